//! The boleto channel: what the banks are told ([`remittance`]: registrations, changes and
//! write-offs in each bank's CNAB layout), what they answer ([`returns`]: return files read and
//! applied) and the payment a bank reports ([`bank`], also the simulated bank's). The layouts and
//! the slip are data and rendering in `crate::billets`; a billet's registration, which makes every
//! channel's charge, is [`crate::payments::registrar`].

pub mod bank;
pub mod remittance;
pub mod returns;
