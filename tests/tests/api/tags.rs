//! §2.4 and §4.5: tags.
