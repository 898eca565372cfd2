//! TOTP (RFC 6238: HMAC-SHA1, 6 digits, 30-second steps), the otpauth URI authenticator
//! apps scan, and recovery codes.

use hmac::{Hmac, KeyInit, Mac};
use rand::RngCore;
use sha2::Digest;

/// Seconds per step.
pub const STEP: u64 = 30;
/// Digits per code.
pub const DIGITS: u32 = 6;
/// Steps of clock skew accepted either side.
pub const SKEW: u64 = 1;

/// A new random 160-bit secret (RFC 4226 recommends 160 bits).
pub fn new_secret() -> Vec<u8> {
    let mut secret = vec![0u8; 20];
    rand::rng().fill_bytes(&mut secret);
    secret
}

/// The code of `secret` at step `counter` (RFC 4226 HOTP).
pub fn code_at(secret: &[u8], counter: u64) -> u32 {
    let Ok(mut mac) = Hmac::<sha1::Sha1>::new_from_slice(secret) else {
        return 0;
    };
    mac.update(&counter.to_be_bytes());
    let digest = mac.finalize().into_bytes();
    let offset = usize::from(digest[19] & 0x0f);
    let binary = (u32::from(digest[offset]) & 0x7f) << 24
        | u32::from(digest[offset + 1]) << 16
        | u32::from(digest[offset + 2]) << 8
        | u32::from(digest[offset + 3]);
    binary % 10u32.pow(DIGITS)
}

/// The step `code` matches at `unix_time`, within ±[`SKEW`] steps; the caller accepts each
/// step once.
pub fn verify(secret: &[u8], code: &str, unix_time: u64) -> Option<u64> {
    if code.len() != DIGITS as usize || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let wanted: u32 = code.parse().ok()?;
    let now = unix_time / STEP;
    (now.saturating_sub(SKEW)..=now + SKEW).find(|&step| code_at(secret, step) == wanted)
}

/// RFC 4648 base32 without padding, as authenticator apps read secrets.
pub fn base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    for chunk in bytes.chunks(5) {
        let mut buffer = [0u8; 5];
        buffer[..chunk.len()].copy_from_slice(chunk);
        let value = buffer.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b));
        let symbols = (chunk.len() * 8).div_ceil(5);
        for i in 0..symbols {
            let index = (value >> (35 - i * 5)) & 0x1f;
            out.push(char::from(ALPHABET[index as usize]));
        }
    }
    out
}

/// Decodes RFC 4648 base32 (no padding, case-insensitive); `None` for anything else.
pub fn from_base32(text: &str) -> Option<Vec<u8>> {
    let mut bits: u64 = 0;
    let mut count = 0;
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    for c in text.trim_end_matches('=').chars() {
        let value = match c.to_ascii_uppercase() {
            c @ 'A'..='Z' => c as u64 - 'A' as u64,
            c @ '2'..='7' => c as u64 - '2' as u64 + 26,
            _ => return None,
        };
        bits = bits << 5 | value;
        count += 5;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

fn encode_component(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~@".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The `otpauth://totp/…` URI of `secret` for `account` at `issuer`.
pub fn otpauth_uri(issuer: &str, account: &str, secret: &[u8]) -> String {
    format!(
        "otpauth://totp/{}:{}?secret={}&issuer={}&algorithm=SHA1&digits={DIGITS}&period={STEP}",
        encode_component(issuer),
        encode_component(account),
        base32(secret),
        encode_component(issuer)
    )
}

/// Ten single-use recovery codes, `xxxxx-xxxxx` from an unambiguous alphabet.
pub fn recovery_codes() -> Vec<String> {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
    let mut rng = rand::rng();
    (0..10)
        .map(|_| {
            let mut code = String::with_capacity(11);
            for i in 0..10 {
                if i == 5 {
                    code.push('-');
                }
                code.push(char::from(
                    ALPHABET[(rng.next_u32() as usize) % ALPHABET.len()],
                ));
            }
            code
        })
        .collect()
}

/// How a recovery code is stored: SHA-256 of its normalised form (they are random and
/// long, so a fast hash suffices; unlike passwords they cannot be guessed from a list).
pub fn recovery_hash(code: &str) -> String {
    let normalised: String = code
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| *c != '-' && *c != ' ')
        .collect();
    hex::encode(sha2::Sha256::digest(normalised.as_bytes()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// RFC 6238 appendix B, SHA-1 seed, truncated to 6 digits.
    #[test]
    fn rfc_6238_vectors() {
        let secret = b"12345678901234567890";
        for (time, code) in [
            (59u64, 287_082u32),
            (1_111_111_109, 81_804),
            (1_111_111_111, 50_471),
            (1_234_567_890, 5_924),
            (2_000_000_000, 279_037),
            (20_000_000_000, 353_130),
        ] {
            assert_eq!(code_at(secret, time / STEP), code, "at {time}");
        }
        assert_eq!(verify(secret, "287082", 59), Some(1));
        assert_eq!(
            verify(secret, "287082", 59 + 30),
            Some(1),
            "one step of skew"
        );
        assert_eq!(
            verify(secret, "287082", 59 + 60),
            None,
            "two steps is too far"
        );
        assert_eq!(verify(secret, "28708", 59), None);
    }

    #[test]
    fn base32_matches_rfc_4648() {
        assert_eq!(base32(b""), "");
        assert_eq!(base32(b"f"), "MY");
        assert_eq!(base32(b"fo"), "MZXQ");
        assert_eq!(base32(b"foo"), "MZXW6");
        assert_eq!(base32(b"foob"), "MZXW6YQ");
        assert_eq!(base32(b"fooba"), "MZXW6YTB");
        assert_eq!(base32(b"foobar"), "MZXW6YTBOI");
        for bytes in [&b""[..], b"f", b"foobar", &[0xff; 20]] {
            assert_eq!(from_base32(&base32(bytes)).unwrap(), bytes);
        }
        assert!(from_base32("not base32!").is_none());
    }

    #[test]
    fn recovery_codes_are_distinct_and_normalised() {
        let codes = recovery_codes();
        assert_eq!(codes.len(), 10);
        assert_eq!(
            recovery_hash(&codes[0]),
            recovery_hash(&codes[0].to_uppercase().replace('-', " "))
        );
        assert_ne!(recovery_hash(&codes[0]), recovery_hash(&codes[1]));
    }
}
