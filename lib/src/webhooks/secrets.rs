//! Signing secrets and their encryption at rest.
//!
//! A receiver's signing secret has the Standard Webhooks form `whsec_<base64 of 32 random bytes>`;
//! the HMAC key is the decoded bytes. Unlike API tokens, secrets are recoverable: they are stored
//! encrypted with AES-256-GCM under the service's master key, which Secrets Manager keeps (the key
//! is the SHA-256 of the secret's string, so any generated secret string will do). Each ciphertext
//! is bound to its receiver (account and receiver id as associated data), so it cannot be moved to
//! another receiver.

use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::values::{AccountId, WebhookId};

pub const PREFIX: &str = "whsec_";
const SECRET_BYTES: usize = 32;

/// A receiver's signing secret. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningSecret(String);

impl std::fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningSecret({})", self.masked())
    }
}

impl SigningSecret {
    /// A new secret from the operating system's random source.
    pub fn generate() -> Self {
        let mut bytes = [0u8; SECRET_BYTES];
        aws_lc_rs::rand::fill(&mut bytes).expect("the system's random source");
        SigningSecret(format!("{PREFIX}{}", STANDARD.encode(bytes)))
    }

    /// A secret in the Standard Webhooks form, of 24 to 32 bytes.
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = STANDARD.decode(text.strip_prefix(PREFIX)?).ok()?;
        (24..=SECRET_BYTES).contains(&bytes.len()).then(|| SigningSecret(text.to_owned()))
    }

    /// The HMAC key: the decoded part after `whsec_`.
    pub fn key(&self) -> Vec<u8> {
        STANDARD.decode(&self.0[PREFIX.len()..]).expect("a parsed secret decodes")
    }

    /// The secret itself, to show an operator.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `whsec_…AbCd`, for listings.
    pub fn masked(&self) -> String {
        format!("{PREFIX}…{}", &self.0[self.0.len() - 4..])
    }
}

/// Encrypts and decrypts signing secrets under the master key.
pub struct SecretBox {
    key: LessSafeKey,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(…)")
    }
}

/// What a sealed secret is bound to.
fn binding(account: AccountId, receiver: WebhookId) -> String {
    format!("webhook:{account}:{receiver}")
}

impl SecretBox {
    /// The box of a master secret string (the key is its SHA-256).
    pub fn from_master(master: &str) -> Self {
        let key = Sha256::digest(master.as_bytes());
        let unbound = UnboundKey::new(&AES_256_GCM, &key).expect("a 32-byte key");
        SecretBox { key: LessSafeKey::new(unbound) }
    }

    /// The master key read from Secrets Manager (`WEBHOOK_KEY_SECRET_ID`, its name or ARN).
    pub async fn load(client: &aws_sdk_secretsmanager::Client, secret_id: &str) -> anyhow::Result<Self> {
        use anyhow::Context as _;
        let found = client.get_secret_value().secret_id(secret_id).send().await.context("GetSecretValue")?;
        let master = found.secret_string().context("the webhook master key secret has no string")?;
        Ok(SecretBox::from_master(master))
    }

    /// The master key of this environment (`WEBHOOK_KEY_SECRET_ID`).
    pub async fn from_env(config: &aws_config::SdkConfig) -> anyhow::Result<Self> {
        let id = crate::config::webhook_key_secret_id();
        SecretBox::load(&aws_sdk_secretsmanager::Client::new(config), &id).await
    }

    /// `base64(nonce ‖ ciphertext ‖ tag)` of the secret, bound to its receiver.
    pub fn seal(&self, account: AccountId, receiver: WebhookId, secret: &SigningSecret) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        aws_lc_rs::rand::fill(&mut nonce).expect("the system's random source");
        let mut sealed = secret.expose().as_bytes().to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(binding(account, receiver)),
                &mut sealed,
            )
            .expect("AES-GCM seals any length we use");
        STANDARD.encode([nonce.as_slice(), &sealed].concat())
    }

    /// The secret a sealed text holds, when it is one of this receiver's under this key.
    pub fn open(&self, account: AccountId, receiver: WebhookId, sealed: &str) -> anyhow::Result<SigningSecret> {
        let bytes = STANDARD.decode(sealed)?;
        anyhow::ensure!(bytes.len() > NONCE_LEN, "a sealed secret too short");
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| anyhow::anyhow!("a bad nonce"))?;
        let mut buffer = ciphertext.to_vec();
        let plain = self
            .key
            .open_in_place(nonce, Aad::from(binding(account, receiver)), &mut buffer)
            .map_err(|_| anyhow::anyhow!("the secret does not open with this key and receiver"))?;
        let text = std::str::from_utf8(plain)?;
        SigningSecret::parse(text).ok_or_else(|| anyhow::anyhow!("not a signing secret"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_have_the_standard_webhooks_form() {
        let secret = SigningSecret::generate();
        assert!(secret.expose().starts_with("whsec_"));
        assert_eq!(secret.key().len(), 32);
        assert_eq!(SigningSecret::parse(secret.expose()), Some(secret.clone()));
        assert!(format!("{secret:?}").contains('…') && !format!("{secret:?}").contains(&secret.expose()[6..]));
        assert_eq!(SigningSecret::parse("whsec_short"), None);
        assert_eq!(SigningSecret::parse("sk_abc"), None);
        // The Standard Webhooks test secret (24 bytes).
        assert!(SigningSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").is_some());
    }

    #[test]
    fn sealed_secrets_open_only_for_their_receiver_and_key() {
        let (account, receiver) = (AccountId::new(7), WebhookId::new(2));
        let secret = SigningSecret::generate();
        let vault = SecretBox::from_master("master one");
        let sealed = vault.seal(account, receiver, &secret);
        assert!(!sealed.contains(&secret.expose()[6..]));
        assert_eq!(vault.open(account, receiver, &sealed).unwrap(), secret);
        assert_ne!(vault.seal(account, receiver, &secret), sealed, "a fresh nonce each time");
        assert!(vault.open(account, WebhookId::new(3), &sealed).is_err());
        assert!(vault.open(AccountId::new(8), receiver, &sealed).is_err());
        assert!(SecretBox::from_master("master two").open(account, receiver, &sealed).is_err());
    }
}
