//! Signing secrets and their encryption at rest.
//!
//! A receiver's signing secret has the Standard Webhooks form `whsec_<base64 of 32 random bytes>`;
//! the HMAC key is the decoded bytes. Unlike API tokens, secrets are recoverable: they are stored
//! encrypted with AES-256-GCM under the service's master key, which Secrets Manager keeps (the key
//! is the SHA-256 of the secret's string, so any generated secret string will do). Each ciphertext
//! is bound to its receiver (account and receiver id as associated data), so it cannot be moved to
//! another receiver.
//!
//! The master key can be rotated: the secret's string may hold several keys, one a line (blank
//! lines ignored, each line trimmed). The first line is the current key, which seals; opening tries
//! every line in order. A rotation puts the new key first with the old ones below it, re-seals
//! every stored secret under the new one (`infra/ops webhook reseal`), then drops the old lines
//! (docs/runbook.md, "Rotate the webhook master key"). A string of a single line is used exactly
//! as before rotation existed: its key is the SHA-256 of the whole string as stored.

use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::sync::Arc;

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

/// Encrypts and decrypts signing secrets under the master key: seals under the current key, opens
/// under any of the keys the master secret holds ([the module's rule](self)).
pub struct SecretBox {
    /// The current key first; never empty.
    keys: Vec<LessSafeKey>,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretBox({} key(s))", self.keys.len())
    }
}

/// What a sealed secret is bound to.
fn binding(account: AccountId, receiver: WebhookId) -> String {
    format!("webhook:{account}:{receiver}")
}

fn key_of(text: &str) -> LessSafeKey {
    let key = Sha256::digest(text.as_bytes());
    LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &key).expect("a 32-byte key"))
}

/// The texts the keys of a master secret string derive from, the current one first: each
/// non-blank line trimmed when there are several; the whole string as stored when there is one
/// line or none (as before rotation existed), then, for opening only, that line trimmed when
/// trimming changes it. Repeated lines count once.
fn key_texts(master: &str) -> Vec<&str> {
    let lines: Vec<&str> = master.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    let mut texts = match lines.len() {
        0 | 1 => {
            let mut texts = vec![master];
            texts.extend(lines);
            texts
        }
        _ => lines,
    };
    let mut seen = std::collections::HashSet::new();
    texts.retain(|text| seen.insert(*text));
    texts
}

/// The master key as a process holds it: read from Secrets Manager at its first use (not at
/// start: docs/cold-start.md) and kept; a failed read is tried again at the next use. Cheap to
/// clone (one per process).
#[derive(Clone, Debug)]
pub struct MasterKey(Arc<MasterKeySource>);

#[derive(Debug)]
enum MasterKeySource {
    Read(Arc<SecretBox>),
    Lazy { config: Box<aws_config::SdkConfig>, key: tokio::sync::OnceCell<Arc<SecretBox>> },
    Missing,
}

impl MasterKey {
    /// The master key of this environment (`WEBHOOK_KEY_SECRET_ID`), read at its first use.
    pub fn lazy(config: &aws_config::SdkConfig) -> Self {
        MasterKey(Arc::new(MasterKeySource::Lazy {
            config: Box::new(config.clone()),
            key: tokio::sync::OnceCell::new(),
        }))
    }

    /// A key already read (the dev server, the tests).
    pub fn ready(vault: Arc<SecretBox>) -> Self {
        MasterKey(Arc::new(MasterKeySource::Read(vault)))
    }

    /// No key: what needs one fails (a process that never seals nor opens a secret).
    pub fn missing() -> Self {
        MasterKey(Arc::new(MasterKeySource::Missing))
    }

    /// The key, read now if it was not yet.
    pub async fn get(&self) -> anyhow::Result<Arc<SecretBox>> {
        match &*self.0 {
            MasterKeySource::Read(vault) => Ok(vault.clone()),
            MasterKeySource::Lazy { config, key } => {
                // Boxed: the SDK call's future is deep enough to overflow the compiler's layout
                // limit inline.
                let read = || async { Box::pin(SecretBox::from_env(config)).await.map(Arc::new) };
                Ok(key.get_or_try_init(read).await?.clone())
            }
            MasterKeySource::Missing => anyhow::bail!("no webhook master key in this process"),
        }
    }
}

/// A sealed secret opened: the secret, and whether the current key sealed it.
#[derive(Debug)]
pub struct Opened {
    pub secret: SigningSecret,
    /// Sealed under the current key (the first line): a re-seal would change nothing.
    pub current: bool,
}

impl SecretBox {
    /// The box of a master secret string: one key per line, the first current ([the module's
    /// rule](self)); a single line's key is the SHA-256 of the string as stored.
    pub fn from_master(master: &str) -> Self {
        SecretBox { keys: key_texts(master).into_iter().map(key_of).collect() }
    }

    /// How many keys open (the first of them seals).
    pub fn key_count(&self) -> usize {
        self.keys.len()
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

    /// `base64(nonce ‖ ciphertext ‖ tag)` of the secret under the current key, bound to its
    /// receiver.
    pub fn seal(&self, account: AccountId, receiver: WebhookId, secret: &SigningSecret) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        aws_lc_rs::rand::fill(&mut nonce).expect("the system's random source");
        let mut sealed = secret.expose().as_bytes().to_vec();
        self.keys[0]
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(binding(account, receiver)),
                &mut sealed,
            )
            .expect("AES-GCM seals any length we use");
        STANDARD.encode([nonce.as_slice(), &sealed].concat())
    }

    /// The secret a sealed text holds, when it is one of this receiver's under one of the keys.
    pub fn open(&self, account: AccountId, receiver: WebhookId, sealed: &str) -> anyhow::Result<SigningSecret> {
        Ok(self.opened(account, receiver, sealed)?.secret)
    }

    /// Like [`SecretBox::open`], and says whether the current key sealed it.
    pub fn opened(&self, account: AccountId, receiver: WebhookId, sealed: &str) -> anyhow::Result<Opened> {
        let bytes = STANDARD.decode(sealed)?;
        anyhow::ensure!(bytes.len() > NONCE_LEN, "a sealed secret too short");
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let aad = binding(account, receiver);
        for (index, key) in self.keys.iter().enumerate() {
            let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| anyhow::anyhow!("a bad nonce"))?;
            let mut buffer = ciphertext.to_vec();
            if let Ok(plain) = key.open_in_place(nonce, Aad::from(aad.as_str()), &mut buffer) {
                let text = std::str::from_utf8(plain)?;
                let secret = SigningSecret::parse(text).ok_or_else(|| anyhow::anyhow!("not a signing secret"))?;
                return Ok(Opened { secret, current: index == 0 });
            }
        }
        anyhow::bail!("the secret does not open with this key and receiver")
    }

    /// The sealed text under the current key: `None` when the current key already sealed it
    /// (nothing to do), an error when no key opens it.
    pub fn reseal(&self, account: AccountId, receiver: WebhookId, sealed: &str) -> anyhow::Result<Option<String>> {
        let opened = self.opened(account, receiver, sealed)?;
        Ok((!opened.current).then(|| self.seal(account, receiver, &opened.secret)))
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

    #[test]
    fn a_single_line_master_keeps_the_key_it_always_had() {
        let (account, receiver) = (AccountId::new(7), WebhookId::new(2));
        let secret = SigningSecret::generate();
        // As sealed before several keys existed: under the SHA-256 of the whole string.
        let legacy = {
            let unbound = UnboundKey::new(&AES_256_GCM, &Sha256::digest(b"master one\n")).unwrap();
            SecretBox { keys: vec![LessSafeKey::new(unbound)] }
        };
        let sealed = legacy.seal(account, receiver, &secret);
        let vault = SecretBox::from_master("master one\n");
        assert_eq!(vault.key_count(), 2, "the string as stored, then its line trimmed (to open only)");
        let opened = vault.opened(account, receiver, &sealed).unwrap();
        assert_eq!((opened.secret, opened.current), (secret.clone(), true));
        assert_eq!(vault.reseal(account, receiver, &sealed).unwrap(), None);
        // A new version "new key\nmaster one" (the line trimmed) no longer opens it: the runbook's
        // rule is that the old line is the old string exactly, which a generated key is.
        assert!(SecretBox::from_master("new key\nmaster one").open(account, receiver, &sealed).is_err());
        assert_eq!(SecretBox::from_master("master two").key_count(), 1);
        assert_eq!(SecretBox::from_master("").key_count(), 1);
    }

    #[test]
    fn several_keys_seal_under_the_first_and_open_under_any() {
        let (account, receiver) = (AccountId::new(7), WebhookId::new(2));
        let secret = SigningSecret::generate();
        let old = SecretBox::from_master("old-key");
        let sealed_old = old.seal(account, receiver, &secret);

        // The new version: the new key first, the old one below, blank lines and spaces ignored.
        let rotated = SecretBox::from_master("\n  new-key  \r\n\n old-key\nold-key\n");
        assert_eq!(rotated.key_count(), 2, "a repeated line counts once");
        let opened = rotated.opened(account, receiver, &sealed_old).unwrap();
        assert_eq!((&opened.secret, opened.current), (&secret, false));

        // Sealing uses the new key: the old box cannot open it, the new key alone can.
        let sealed_new = rotated.seal(account, receiver, &secret);
        assert!(old.open(account, receiver, &sealed_new).is_err());
        assert_eq!(SecretBox::from_master("new-key").open(account, receiver, &sealed_new).unwrap(), secret);
        assert!(rotated.opened(account, receiver, &sealed_new).unwrap().current);

        // Re-sealing: an old sealed text becomes a new one, a current one is left alone.
        let resealed = rotated.reseal(account, receiver, &sealed_old).unwrap().expect("sealed under an old key");
        assert_eq!(SecretBox::from_master("new-key").open(account, receiver, &resealed).unwrap(), secret);
        assert_eq!(rotated.reseal(account, receiver, &resealed).unwrap(), None, "idempotent");
        // Still bound to the receiver, whatever the key.
        assert!(rotated.open(account, WebhookId::new(3), &sealed_old).is_err());
        assert!(rotated.reseal(account, WebhookId::new(3), &sealed_old).is_err());
        // Once the old key is dropped, what was re-sealed opens and what was not does not.
        let after = SecretBox::from_master("new-key");
        assert!(after.open(account, receiver, &resealed).is_ok());
        assert!(after.open(account, receiver, &sealed_old).is_err());
    }
}
