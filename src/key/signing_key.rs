//! A signing key in its one written form: text taken byte for byte, or `hex:` and the hex
//! digits of its bytes (see the module above). A leaf: the settings check a key's written
//! form with it, and the installation (`key`) reads and writes keys with it.

use anyhow::{Context, bail};
use rand::RngCore;
use switchboard_api::auth::token::{self, MIN_KEY_BYTES};

/// What marks a written key as hex digits of its bytes.
pub const HEX: &str = "hex:";

/// A signing key and the text it was written as.
#[derive(Clone)]
pub struct SigningKey {
    bytes: Vec<u8>,
    written: String,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({})", self.fingerprint())
    }
}

impl SigningKey {
    /// Reads a key in its written form (see the module's comment); too short a key, or
    /// `hex:` followed by anything but pairs of hex digits, is refused.
    pub fn parse(written: &str) -> anyhow::Result<SigningKey> {
        let bytes = match written.strip_prefix(HEX) {
            Some(digits) => hex::decode(digits)
                .with_context(|| format!("a key written {HEX}… must go on with hex digits"))?,
            None => written.as_bytes().to_vec(),
        };
        if bytes.len() < MIN_KEY_BYTES {
            bail!("a signing key must be at least {MIN_KEY_BYTES} bytes");
        }
        Ok(SigningKey {
            bytes,
            written: written.to_owned(),
        })
    }

    /// A new key of random bytes, written `hex:…`.
    pub fn generate() -> SigningKey {
        let mut bytes = vec![0u8; MIN_KEY_BYTES];
        rand::rng().fill_bytes(&mut bytes);
        SigningKey {
            written: format!("{HEX}{}", hex::encode(&bytes)),
            bytes,
        }
    }

    /// The key's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The key in its written form: what `SWITCHBOARD_JWT_SECRET` or the key file would
    /// hold to mean this key.
    pub fn written(&self) -> &str {
        &self.written
    }

    /// The sealer of secrets at rest, under the key derived from this one for them.
    pub fn sealer(&self) -> switchboard_db::seal::Sealer {
        switchboard_db::seal::Sealer::new(&token::derived_key(&self.bytes, "sealed secrets"))
    }

    /// A short name of the key that tells nothing of it (16 hex digits of a key derived
    /// for this purpose alone), to match an installation's key with a backup's.
    pub fn fingerprint(&self) -> String {
        hex::encode(&token::derived_key(&self.bytes, "signing key fingerprint")[..8])
    }
}
