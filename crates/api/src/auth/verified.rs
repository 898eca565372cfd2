//! Access tokens this process has verified, remembered so that a client's requests check
//! their token's signature once rather than on every request (an HS256 check and the
//! claims' JSON were a third of an authenticated GET's work, issue 17).
//!
//! What is remembered is a pure function of the token's text under the process's one
//! signing key — the user, session and tenant it names — so the exact text is the key
//! and nothing but a successful [`Tokens::verify`] adds an entry: a forged or altered
//! token is never remembered and is checked in full every time. What can change is
//! time and the session: a token's expiry (with the same leeway) is checked on every
//! use, and the session behind it still is, by the `Caller` extractor, on every request
//! (so a logout or revocation ends the token at once, as before). The map holds at most
//! [`VerifiedTokens::new`]'s capacity of entries; when full, expired ones go first, and if
//! that frees less than a tenth it starts afresh — a bounded cost, since only tokens the
//! service issued can fill it.

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::auth::token::{Tokens, Verified};

/// Verified tokens by their text.
#[derive(Debug)]
pub struct VerifiedTokens {
    entries: RwLock<HashMap<Box<str>, Verified>>,
    capacity: usize,
}

/// How many tokens a process remembers by default (each a few hundred bytes).
pub const DEFAULT_CAPACITY: usize = 20_000;

impl VerifiedTokens {
    /// A memory of at most `capacity` verified tokens (at least 1).
    pub fn new(capacity: usize) -> VerifiedTokens {
        VerifiedTokens {
            entries: RwLock::new(HashMap::new()),
            capacity: capacity.max(1),
        }
    }

    /// What `token` names if it is valid now: remembered, or checked by `tokens` (and
    /// then remembered).
    pub fn verify(&self, tokens: &Tokens, token: &str) -> Option<Verified> {
        let now = now();
        let remembered = self
            .entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(token)
            .cloned();
        if let Some(verified) = remembered {
            // Past its expiry a remembered token is refused as the check would refuse it.
            return (now <= verified.valid_until).then_some(verified);
        }
        let verified = tokens.verify(token)?;
        let mut entries = self.entries.write().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= self.capacity {
            entries.retain(|_, remembered| now <= remembered.valid_until);
            // Starting afresh unless a tenth was freed, so the next sweep is at least a
            // tenth of the capacity away (a full memory never costs a sweep per insert).
            let room = (self.capacity / 10).max(1);
            if self.capacity - entries.len() < room {
                entries.clear();
            }
        }
        entries.insert(token.into(), verified.clone());
        Some(verified)
    }

    /// How many tokens are remembered.
    pub fn len(&self) -> usize {
        self.entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether no token is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Now, in seconds since the epoch (the clock [`Tokens::verify`] reads).
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;
    use switchboard_domain::ids::UserId;

    use super::*;
    use crate::auth::token::{AUDIENCE, ISSUER, LEEWAY_SECONDS};

    const KEY: &[u8] = b"a-signing-key-of-32-bytes-at-least";

    fn tokens() -> Tokens {
        Tokens::new(KEY, Duration::from_secs(900))
    }

    /// A token signed with the right key whose `exp` is `exp`.
    fn expiring_at(exp: u64, session: &str) -> String {
        let claims = json!({"sub": "7", "iss": ISSUER, "aud": AUDIENCE, "exp": exp,
                            "iat": now(), "tid": 3, "role": 3, "sid": session});
        switchboard_testing::jwt::sign(&claims, "HS256", KEY)
    }

    #[test]
    fn a_valid_token_is_checked_once_and_named_the_same_after() {
        let tokens = tokens();
        let remembered = VerifiedTokens::new(10);
        let token = tokens.issue(UserId(7), "session-1", 3, 3).expect("a token");
        let first = remembered.verify(&tokens, &token).expect("valid");
        assert_eq!(remembered.len(), 1);
        assert!(!remembered.is_empty());
        // Checked by another key's `Tokens` now, the token would be refused: a second
        // answer can only come from the memory.
        let other = Tokens::new(b"another-signing-key-of-32-bytes!!", Duration::from_secs(9));
        assert_eq!(other.verify(&token), None);
        assert_eq!(remembered.verify(&other, &token), Some(first.clone()));
        assert_eq!(first.user, UserId(7));
        assert_eq!(first.session, "session-1");
        assert_eq!(first.tenant, 3);
    }

    #[test]
    fn forged_tokens_are_never_remembered() {
        let tokens = tokens();
        let remembered = VerifiedTokens::new(10);
        let token = tokens.issue(UserId(7), "s", 3, 3).expect("a token");
        // One character of the signature changed in its middle, so the tag still decodes
        // (a last character's low bits may be padding) and only the MAC can refuse it.
        let middle = token.len() - 20;
        let changed = if token.as_bytes()[middle] == b'A' {
            "B"
        } else {
            "A"
        };
        let mut forged = token.clone();
        forged.replace_range(middle..=middle, changed);
        for _ in 0..2 {
            assert_eq!(remembered.verify(&tokens, &forged), None);
        }
        assert!(remembered.is_empty());
    }

    #[test]
    fn a_remembered_token_expires_with_the_checks_leeway() {
        let tokens = tokens();
        let remembered = VerifiedTokens::new(10);
        // Expired a second ago: still within the leeway, so valid and remembered.
        let token = expiring_at(now() - 1, "s");
        let verified = remembered
            .verify(&tokens, &token)
            .expect("within the leeway");
        assert_eq!(verified.valid_until, now() - 1 + LEEWAY_SECONDS);
        // Past the leeway the check refuses it, and so does the memory.
        let past = expiring_at(now() - LEEWAY_SECONDS - 2, "s");
        assert_eq!(tokens.verify(&past), None);
        let mut entries = remembered.entries.write().expect("the lock");
        let mut stale = verified.clone();
        stale.valid_until = now() - 1;
        entries.insert(past.clone().into(), stale);
        drop(entries);
        assert_eq!(remembered.verify(&tokens, &past), None);
    }

    #[test]
    fn the_memory_stays_within_its_capacity() {
        let tokens = tokens();
        let remembered = VerifiedTokens::new(3);
        let issued: Vec<String> = (0..10)
            .map(|n| expiring_at(now() + 600, &format!("session-{n}")))
            .collect();
        for token in &issued {
            assert!(remembered.verify(&tokens, token).is_some());
            assert!(remembered.len() <= 3);
        }
        // A full memory drops the expired before anything else.
        let remembered = VerifiedTokens::new(2);
        let soon = expiring_at(now() - 1, "soon");
        let later = expiring_at(now() + 600, "later");
        remembered
            .verify(&tokens, &soon)
            .expect("within the leeway");
        remembered.verify(&tokens, &later).expect("valid");
        remembered
            .entries
            .write()
            .expect("the lock")
            .get_mut(soon.as_str())
            .expect("remembered")
            .valid_until = now() - 1;
        let third = expiring_at(now() + 600, "third");
        remembered.verify(&tokens, &third).expect("valid");
        let entries = remembered.entries.read().expect("the lock");
        assert!(entries.contains_key(later.as_str()));
        assert!(entries.contains_key(third.as_str()));
        assert!(!entries.contains_key(soon.as_str()));
    }
}
