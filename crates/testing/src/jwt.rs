//! Tokens forged by hand, for tests that check what the service refuses: the header's
//! `alg` and the MAC are the test's choice, and nothing here goes through jsonwebtoken, so
//! a test's token does not depend on the cryptography the service installs.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};

/// A JWT over `claims` whose header names `algorithm` (`HS256`, `HS384` or `HS512`) and
/// whose signature is that HMAC under `key`.
///
/// # Panics
///
/// On another algorithm: a test names one of the three.
pub fn sign(claims: &serde_json::Value, algorithm: &str, key: &[u8]) -> String {
    let header = serde_json::json!({"alg": algorithm, "typ": "JWT"});
    let message = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let tag = match algorithm {
        "HS256" => mac::<hmac::Hmac<sha2::Sha256>>(key, &message),
        "HS384" => mac::<hmac::Hmac<sha2::Sha384>>(key, &message),
        "HS512" => mac::<hmac::Hmac<sha2::Sha512>>(key, &message),
        other => panic!("no HMAC algorithm {other}"),
    };
    format!("{message}.{}", URL_SAFE_NO_PAD.encode(tag))
}

/// The MAC `M` of `message` under `key`.
fn mac<M: KeyInit + Mac>(key: &[u8], message: &str) -> Vec<u8> {
    let mut mac = <M as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(message.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    /// The MAC is HMAC-SHA-256 as RFC 4231 defines it (its test case 2).
    #[test]
    fn the_mac_is_hmac_sha_256_of_rfc_4231() {
        let tag = super::mac::<hmac::Hmac<sha2::Sha256>>(b"Jefe", "what do ya want for nothing?");
        assert_eq!(
            hex(&tag),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}
