//! The process's PSP clients, one per secret ([`Registry`]: `payments::secrets`), so that a rotated
//! certificate is taken up without a deploy.

use std::sync::OnceLock;

use super::{Credentials, Psp};
use crate::payments::secrets::FromSecret;

/// The process's PSP clients, one per secret, read again after
/// [`crate::payments::secrets::RELOAD_AFTER`].
pub type Registry = crate::payments::secrets::Registry<Psp>;

/// The process's registry.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::default)
}

impl FromSecret for Psp {
    type Credentials = Credentials;
    const SECRET: &'static str = "the PSP secret";

    fn from_credentials(credentials: Credentials) -> anyhow::Result<Psp> {
        Psp::new(credentials)
    }

    fn credentials(&self) -> &Credentials {
        &self.credentials
    }
}
