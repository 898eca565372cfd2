//! Password hashing with argon2id at OWASP's parameters (19 MiB, t=2, p=1), run on the
//! blocking pool and capped to fewer threads than cores, so a burst of logins cannot take
//! every core from the requests around it; a hash that cannot start within a short wait
//! is refused as busy (503 with `Retry-After`) rather than queued behind the burst.

use std::sync::Arc;
use std::time::Duration;

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::Semaphore;

/// Hashes and verifies passwords.
#[derive(Clone, Debug)]
pub struct Passwords {
    permits: Arc<Semaphore>,
    /// How long a hash may wait for a free thread before it is refused as busy.
    max_wait: Duration,
    /// A hash of a random password, verified against when the e-mail is unknown so that
    /// both failures take the same time.
    dummy_hash: Arc<str>,
}

fn argon2() -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, Params::DEFAULT)
}

/// Why hashing failed.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// Every hashing thread stayed busy for longer than the wait allows.
    #[error("every password-hashing thread is busy")]
    Busy,
    /// Hashing itself failed (never shown to clients).
    #[error("password hashing failed: {0}")]
    Failed(String),
}

/// How long a hash waits for a free thread by default: a few hashes' time, not a queue.
pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(5);

impl Passwords {
    /// A hasher running at most `parallel` hashes at once, each waiting at most
    /// [`DEFAULT_MAX_WAIT`] for its turn.
    pub fn new(parallel: usize) -> Result<Self, HashError> {
        Self::with_wait(parallel, DEFAULT_MAX_WAIT)
    }

    /// A hasher running at most `parallel` hashes at once, each waiting at most
    /// `max_wait` for its turn.
    pub fn with_wait(parallel: usize, max_wait: Duration) -> Result<Self, HashError> {
        let dummy = uuid::Uuid::new_v4().to_string();
        let dummy_hash = hash_now(&dummy)?;
        Ok(Self {
            permits: Arc::new(Semaphore::new(parallel.max(1))),
            max_wait,
            dummy_hash: dummy_hash.into(),
        })
    }

    /// The default cap: one core left free for everything else.
    pub fn default_parallelism() -> usize {
        std::thread::available_parallelism()
            .map(|n| n.get().saturating_sub(1))
            .unwrap_or(1)
            .max(1)
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, HashError> {
        let _permit = tokio::time::timeout(self.max_wait, self.permits.acquire())
            .await
            .map_err(|_| HashError::Busy)?
            .map_err(|e| HashError::Failed(e.to_string()))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| HashError::Failed(e.to_string()))
    }

    /// The PHC string of `password`.
    pub async fn hash(&self, password: String) -> Result<String, HashError> {
        self.run(move || hash_now(&password)).await?
    }

    /// Whether `password` matches `hash`; with `None` (unknown account) it checks against
    /// the dummy hash and answers `false`, taking the same time.
    pub async fn verify(&self, password: String, hash: Option<String>) -> Result<bool, HashError> {
        let known = hash.is_some();
        let hash = hash.unwrap_or_else(|| self.dummy_hash.to_string());
        let matches = self
            .run(move || {
                PasswordHash::new(&hash)
                    .map(|parsed| {
                        argon2()
                            .verify_password(password.as_bytes(), &parsed)
                            .is_ok()
                    })
                    .unwrap_or(false)
            })
            .await?;
        Ok(known && matches)
    }
}

fn hash_now(password: &str) -> Result<String, HashError> {
    argon2()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| HashError::Failed(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_are_argon2id_at_owasps_parameters_and_verify() {
        let passwords = Passwords::new(1).expect("a hasher");
        let hash = passwords
            .hash("correct horse".into())
            .await
            .expect("a hash");
        // OWASP's argon2id minimum: 19 MiB of memory, two passes, one lane.
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        let verify =
            |password: &str, hash: Option<String>| passwords.verify(password.to_owned(), hash);
        assert!(
            verify("correct horse", Some(hash.clone()))
                .await
                .expect("the hasher answers")
        );
        assert!(
            !verify("correct horsf", Some(hash.clone()))
                .await
                .expect("the hasher answers")
        );
        // An unknown account never matches, even with the dummy's password unknown.
        assert!(
            !verify("correct horse", None)
                .await
                .expect("the hasher answers")
        );
        assert!(
            !verify("correct horse", Some("not a hash".into()))
                .await
                .expect("the hasher answers")
        );
    }

    #[test]
    fn one_core_is_left_to_everything_else() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(
            Passwords::default_parallelism(),
            cores.saturating_sub(1).max(1)
        );
    }
}
