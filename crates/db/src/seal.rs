//! Secrets at rest (TOTP secrets today, webhook credentials later): sealed with
//! XChaCha20-Poly1305 under a key derived from the master key, so a database dump alone
//! does not reveal them.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};

/// Seals and opens secrets.
#[derive(Clone)]
pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(***)")
    }
}

/// The prefix of sealed values, naming the scheme so it can change later.
const PREFIX: &str = "xc1:";

impl Sealer {
    /// A sealer with a 32-byte key.
    pub fn new(key: &[u8; 32]) -> Sealer {
        Sealer {
            cipher: XChaCha20Poly1305::new(&Key::from(*key)),
        }
    }

    /// Seals `plaintext` under a fresh random nonce.
    pub fn seal(&self, plaintext: &[u8]) -> String {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        // Encryption with a valid key and nonce cannot fail for in-memory buffers.
        let sealed = self.cipher.encrypt(&nonce, plaintext).unwrap_or_default();
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Opens a sealed value; `None` when it was tampered with or sealed under another key.
    pub fn open(&self, sealed: &str) -> Option<Vec<u8>> {
        let bytes = URL_SAFE_NO_PAD.decode(sealed.strip_prefix(PREFIX)?).ok()?;
        if bytes.len() < 24 {
            return None;
        }
        let (nonce, body) = bytes.split_at(24);
        let nonce: [u8; 24] = nonce.try_into().ok()?;
        self.cipher.decrypt(&XNonce::from(nonce), body).ok()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn seals_and_opens_and_refuses_tampering() {
        let sealer = Sealer::new(&[7; 32]);
        let sealed = sealer.seal(b"secret");
        assert_ne!(sealed, sealer.seal(b"secret"), "fresh nonce each time");
        assert_eq!(sealer.open(&sealed).unwrap(), b"secret");
        let mut tampered = sealed.clone().into_bytes();
        let last = tampered.len() - 2;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert!(
            sealer
                .open(std::str::from_utf8(&tampered).unwrap())
                .is_none()
        );
        assert!(Sealer::new(&[8; 32]).open(&sealed).is_none());
    }
}
