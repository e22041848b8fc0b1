//! API tokens: `sct_` followed by 48 base58 characters (no `0`, `O`, `I`, `l`), 52 in all. Only the
//! SHA-256 digest and the last 4 characters are ever stored.

use rand::Rng;
use sha2::{Digest, Sha256};

pub const PREFIX: &str = "sct_";
const RANDOM_LEN: usize = 48;
const TOKEN_LEN: usize = 52;
const BASE58: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// A well-formed token. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiToken(String);

impl std::fmt::Debug for ApiToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApiToken(sct_…{})", self.last4())
    }
}

impl ApiToken {
    /// A new token from the operating system's random source (ThreadRng, a CSPRNG).
    pub fn generate() -> Self {
        let mut rng = rand::rng();
        let random: String = (0..RANDOM_LEN).map(|_| BASE58[rng.random_range(0..BASE58.len())] as char).collect();
        ApiToken(format!("{PREFIX}{random}"))
    }

    pub fn parse(text: &str) -> Option<Self> {
        let random = text.strip_prefix(PREFIX)?;
        let well_formed = text.len() == TOKEN_LEN && random.bytes().all(|c| BASE58.contains(&c));
        well_formed.then(|| ApiToken(text.to_owned()))
    }

    /// `Bearer <token>` with exactly one space and nothing else.
    pub fn from_authorization_header(value: &str) -> Option<Self> {
        ApiToken::parse(value.strip_prefix("Bearer ")?)
    }

    pub fn digest(&self) -> String {
        hex::encode(Sha256::digest(self.0.as_bytes()))
    }

    pub fn last4(&self) -> &str {
        &self.0[TOKEN_LEN - 4..]
    }

    /// The plain token, to show once at creation.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// `sct_…Ab3x`, for listings.
pub fn masked(last4: &str) -> String {
    format!("{PREFIX}…{last4}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "sct_123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnop";

    #[test]
    fn generated_tokens_are_well_formed_and_distinct() {
        let a = ApiToken::generate();
        let b = ApiToken::generate();
        assert_eq!(a.expose().len(), TOKEN_LEN);
        assert!(ApiToken::parse(a.expose()).is_some());
        assert_ne!(a, b);
        assert_eq!(a.digest().len(), 64);
    }

    #[test]
    fn the_format_is_strict() {
        assert_eq!(VALID.len(), 52);
        assert!(ApiToken::parse(VALID).is_some());
        for bad in ["0", "O", "I", "l", "_", "é"] {
            let t = format!("{}{}", &VALID[..51], bad);
            assert!(ApiToken::parse(&t).is_none(), "{t}");
        }
        assert!(ApiToken::parse(&VALID[..51]).is_none());
        assert!(ApiToken::parse(&format!("{VALID}a")).is_none());
        assert!(ApiToken::parse(&VALID.replace("sct_", "sk_x")).is_none());
    }

    #[test]
    fn the_header_needs_bearer_and_exactly_one_space() {
        assert!(ApiToken::from_authorization_header(&format!("Bearer {VALID}")).is_some());
        assert!(ApiToken::from_authorization_header(&format!("Bearer  {VALID}")).is_none());
        assert!(ApiToken::from_authorization_header(&format!("bearer {VALID}")).is_none());
        assert!(ApiToken::from_authorization_header(&format!("Token {VALID}")).is_none());
        assert!(ApiToken::from_authorization_header(&format!("Bearer {VALID} ")).is_none());
        assert!(ApiToken::from_authorization_header(VALID).is_none());
        assert!(ApiToken::from_authorization_header("Bearer ").is_none());
    }

    #[test]
    fn debug_and_mask_hide_the_token() {
        let t = ApiToken::parse(VALID).unwrap();
        assert_eq!(format!("{t:?}"), "ApiToken(sct_…mnop)");
        assert_eq!(masked(t.last4()), "sct_…mnop");
    }
}
