//! §2.5 and §4.6: groups.
