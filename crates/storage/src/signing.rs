//! HMAC-SHA256 signatures for the download links switchboard serves itself (local storage).
//!
//! A link carries `expires` (unix seconds) and `signature` (hex); the signature covers the object key
//! and the expiry, so neither can be changed without the signing key.

use std::fmt;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Versioned domain label: a signature made for another purpose with the same key never verifies here.
const DOMAIN: &[u8] = b"switchboard-download-v1\n";

/// Signs and checks local download links with a secret key.
#[derive(Clone)]
pub struct UrlSigner {
    /// The MAC already keyed; each signature starts from a clone of it.
    keyed: HmacSha256,
}

impl UrlSigner {
    /// The shortest signing key accepted, in bytes (the HMAC-SHA256 output size).
    pub const MIN_KEY_LEN: usize = 32;

    /// A signer over `key`; `None` when the key is shorter than [`UrlSigner::MIN_KEY_LEN`].
    pub fn new(key: &[u8]) -> Option<UrlSigner> {
        if key.len() < Self::MIN_KEY_LEN {
            return None;
        }
        let keyed = HmacSha256::new_from_slice(key).ok()?;
        Some(UrlSigner { keyed })
    }

    fn mac(&self, object_key: &str, expires_unix: i64) -> HmacSha256 {
        let mut mac = self.keyed.clone();
        mac.update(DOMAIN);
        // Keys never contain '\n' (the store refuses them), so key and expiry cannot be shifted
        // across the separator to forge another message.
        mac.update(object_key.as_bytes());
        mac.update(b"\n");
        mac.update(expires_unix.to_string().as_bytes());
        mac
    }

    /// The lowercase hex signature of `object_key` valid until `expires_unix`.
    pub fn sign(&self, object_key: &str, expires_unix: i64) -> String {
        hex::encode(self.mac(object_key, expires_unix).finalize().into_bytes())
    }

    /// Whether `signature` is this signer's signature of `object_key` and `expires`, and `now_unix` is
    /// before `expires`. The comparison is constant-time; malformed input is simply refused.
    pub fn verify(&self, object_key: &str, expires: &str, signature: &str, now_unix: i64) -> bool {
        let Some(expires_unix) = parse_unix(expires) else {
            return false;
        };
        if now_unix >= expires_unix {
            return false;
        }
        if signature.len() != 64 {
            return false;
        }
        let Ok(given) = hex::decode(signature) else {
            return false;
        };
        self.mac(object_key, expires_unix)
            .verify_slice(&given)
            .is_ok()
    }
}

/// Parses plain decimal unix seconds; refuses signs, spaces and leading zeros so each expiry has
/// exactly one spelling.
fn parse_unix(text: &str) -> Option<i64> {
    if text.is_empty() || text.len() > 18 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if text.len() > 1 && text.starts_with('0') {
        return None;
    }
    text.parse().ok()
}

impl fmt::Debug for UrlSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The key is a secret: never print it.
        f.debug_struct("UrlSigner").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn signer() -> UrlSigner {
        UrlSigner::new(KEY).unwrap()
    }

    #[test]
    fn short_keys_are_refused() {
        assert!(UrlSigner::new(&KEY[..31]).is_none());
        assert!(UrlSigner::new(b"").is_none());
        assert!(UrlSigner::new(KEY).is_some());
    }

    #[test]
    fn a_fresh_signature_verifies() {
        let s = signer();
        let sig = s.sign("tenants/7/media/a.wav", 1_000);
        assert_eq!(sig.len(), 64);
        assert!(s.verify("tenants/7/media/a.wav", "1000", &sig, 999));
        assert!(s.verify("tenants/7/media/a.wav", "1000", &sig.to_uppercase(), 0));
    }

    #[test]
    fn expired_links_are_refused() {
        let s = signer();
        let sig = s.sign("k", 1_000);
        assert!(!s.verify("k", "1000", &sig, 1_000));
        assert!(!s.verify("k", "1000", &sig, 5_000));
    }

    #[test]
    fn tampering_is_refused() {
        let s = signer();
        let sig = s.sign("tenants/7/media/a.wav", 1_000);
        // Another key.
        assert!(!s.verify("tenants/7/media/b.wav", "1000", &sig, 0));
        assert!(!s.verify("tenants/8/media/a.wav", "1000", &sig, 0));
        // Another expiry, including other spellings of the same number.
        assert!(!s.verify("tenants/7/media/a.wav", "1001", &sig, 0));
        assert!(!s.verify("tenants/7/media/a.wav", "01000", &sig, 0));
        assert!(!s.verify("tenants/7/media/a.wav", "+1000", &sig, 0));
        assert!(!s.verify("tenants/7/media/a.wav", " 1000", &sig, 0));
        assert!(!s.verify("tenants/7/media/a.wav", "", &sig, 0));
        // A changed signature.
        let mut flipped = sig.clone().into_bytes();
        flipped[10] = if flipped[10] == b'0' { b'1' } else { b'0' };
        let flipped = String::from_utf8(flipped).unwrap();
        assert!(!s.verify("tenants/7/media/a.wav", "1000", &flipped, 0));
        assert!(!s.verify("tenants/7/media/a.wav", "1000", &sig[..62], 0));
        assert!(!s.verify("tenants/7/media/a.wav", "1000", "zz", 0));
        assert!(!s.verify("tenants/7/media/a.wav", "1000", "", 0));
        // Another signing key.
        let other = UrlSigner::new(b"fedcba9876543210fedcba9876543210").unwrap();
        assert!(!other.verify("tenants/7/media/a.wav", "1000", &sig, 0));
    }

    #[test]
    fn debug_hides_the_key() {
        let text = format!("{:?}", signer());
        assert!(!text.contains("0123456789"));
    }
}
