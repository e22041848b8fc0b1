//! The Pix channel (issue 40, in progress): a billet's charge with a due date at the account's
//! Pix institution, through the Banco Central's API Pix. So far: the charge's terms (`cobv`).

pub mod cobv;
