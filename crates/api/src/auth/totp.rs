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
    let mut out = String::new();
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
    let mut out = Vec::new();
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
    fn a_code_from_one_step_either_side_is_accepted_and_nothing_else() {
        let secret = b"12345678901234567890";
        let at = 1_234_567_890;
        let now = at / STEP;
        // The RFC's code at this time has leading zeros: "005924".
        assert_eq!(verify(secret, "005924", at), Some(now));
        // A phone whose clock runs one step ahead or behind is accepted, at the step its
        // code belongs to (the caller refuses a step used before).
        let ahead = format!("{:06}", code_at(secret, now + 1));
        let behind = format!("{:06}", code_at(secret, now - 1));
        assert_eq!(verify(secret, &ahead, at), Some(now + 1));
        assert_eq!(verify(secret, &behind, at), Some(now - 1));
        let two_ahead = format!("{:06}", code_at(secret, now + 2));
        assert_eq!(verify(secret, &two_ahead, at), None, "two steps ahead");
        // Exactly six ASCII digits: the same number written otherwise is refused.
        for written_otherwise in ["05924", "5924", "+05924", "0005924", "00592a", " 05924"] {
            assert_eq!(
                verify(secret, written_otherwise, at),
                None,
                "{written_otherwise:?}"
            );
        }
    }

    #[test]
    fn a_new_secret_is_160_random_bits() {
        let (one, another) = (new_secret(), new_secret());
        assert_eq!(one.len(), 20);
        assert_ne!(one, another);
        assert!(one.iter().any(|b| *b > 1), "not a constant filler");
    }

    #[test]
    fn the_otpauth_uri_escapes_the_issuer_and_account() {
        assert_eq!(
            otpauth_uri("Acme Phones", "ann+admin@example.com", b"foobar"),
            "otpauth://totp/Acme%20Phones:ann%2Badmin@example.com?secret=MZXW6YTBOI\
             &issuer=Acme%20Phones&algorithm=SHA1&digits=6&period=30"
        );
        // Unreserved characters stay as they are; a colon (the label's separator), an
        // ampersand and non-ASCII are escaped byte by byte.
        assert_eq!(
            otpauth_uri("a-b._~", "x:y&z\u{e9}", b""),
            "otpauth://totp/a-b._~:x%3Ay%26z%C3%A9?secret=&issuer=a-b._~\
             &algorithm=SHA1&digits=6&period=30"
        );
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
        let unambiguous =
            |c: char| (c.is_ascii_lowercase() && !"ilo".contains(c)) || ('2'..='9').contains(&c);
        for code in &codes {
            let (first, second) = code.split_once('-').unwrap();
            assert_eq!((first.len(), second.len()), (5, 5), "{code}");
            assert!(
                first.chars().chain(second.chars()).all(unambiguous),
                "{code}"
            );
        }
        let distinct: std::collections::HashSet<_> = codes.iter().collect();
        assert_eq!(distinct.len(), 10);
        // Stored as SHA-256 of the code without its dash, in lower case.
        assert_eq!(
            recovery_hash(" ABCDE-23456 "),
            "3f3ca7d0c3da794e94f9b663af89ec93566b1ec3bb117818eacf40187a0e54ab"
        );
        assert_eq!(
            recovery_hash(&codes[0]),
            recovery_hash(&codes[0].to_uppercase().replace('-', " "))
        );
        assert_ne!(recovery_hash(&codes[0]), recovery_hash(&codes[1]));
    }
}
