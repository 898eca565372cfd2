//! Password hashing with argon2id, by default at OWASP's parameters (19 MiB, t=2, p=1), run
//! on the blocking pool and capped to fewer threads than cores, so a burst of logins cannot take
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
    /// The cost new hashes are made at (a stored hash is verified at its own).
    params: Params,
}

/// How much work one hash is: argon2id's memory and passes, on one lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashCost {
    /// Memory per hash, in KiB.
    pub memory_kib: u32,
    /// Passes over that memory.
    pub passes: u32,
}

impl HashCost {
    /// OWASP's argon2id minimum at two passes (19 MiB), the default.
    pub const OWASP: HashCost = HashCost {
        memory_kib: 19_456,
        passes: 2,
    };

    /// Whether it costs less than OWASP's argon2id table allows at its number of passes
    /// (46 MiB at one, 19 at two, 12 at three, 9 at four, 7 from five): such hashes are
    /// cheaper to guess, which only a test setup should choose.
    pub fn below_owasp(self) -> bool {
        let least_kib = match self.passes {
            0 | 1 => 47_104,
            2 => 19_456,
            3 => 12_288,
            4 => 9_216,
            _ => 7_168,
        };
        self.memory_kib < least_kib
    }

    fn params(self) -> Result<Params, HashError> {
        Params::new(self.memory_kib, self.passes, 1, None)
            .map_err(|e| HashError::Failed(format!("argon2 parameters: {e}")))
    }
}

fn argon2(params: Params) -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
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
    /// A hasher making hashes at `cost`, running at most `parallel` hashes at once, each
    /// waiting at most `max_wait` for its turn.
    pub fn new(parallel: usize, max_wait: Duration, cost: HashCost) -> Result<Self, HashError> {
        let params = cost.params()?;
        let dummy = uuid::Uuid::new_v4().to_string();
        let dummy_hash = hash_now(&params, &dummy)?;
        Ok(Self {
            permits: Arc::new(Semaphore::new(parallel.max(1))),
            max_wait,
            dummy_hash: dummy_hash.into(),
            params,
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
        let params = self.params.clone();
        self.run(move || hash_now(&params, &password)).await?
    }

    /// Whether `password` matches `hash`, and whether that hash is made otherwise than new
    /// ones are (so a matching password should be hashed again); with `None` (unknown
    /// account) it checks against the dummy hash and answers no match, taking the same time.
    pub async fn verify(
        &self,
        password: String,
        hash: Option<String>,
    ) -> Result<Verdict, HashError> {
        let known = hash.is_some();
        let hash = hash.unwrap_or_else(|| self.dummy_hash.to_string());
        let params = self.params.clone();
        let verdict = self
            .run(move || {
                PasswordHash::new(&hash)
                    .map(|parsed| Verdict {
                        // Checked at the stored hash's own cost, read from it.
                        matches: argon2(params.clone())
                            .verify_password(password.as_bytes(), &parsed)
                            .is_ok(),
                        outdated: made_otherwise(&parsed, &params),
                    })
                    .unwrap_or(Verdict {
                        matches: false,
                        outdated: false,
                    })
            })
            .await?;
        Ok(Verdict {
            matches: known && verdict.matches,
            outdated: known && verdict.matches && verdict.outdated,
        })
    }
}

/// What checking a password against an account's hash found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The password is the account's (never for an unknown account).
    pub matches: bool,
    /// It matched a hash made otherwise than new ones are (another cost, argon2 variant or
    /// version, from before the settings changed): hashing it again now brings the account
    /// to the configured cost, and to the time a check of an unknown e-mail takes.
    pub outdated: bool,
}

/// Whether `stored` was made otherwise than a hash made now at `params` would be.
fn made_otherwise(stored: &PasswordHash, params: &Params) -> bool {
    let same_cost = Params::try_from(stored).is_ok_and(|made| {
        (made.m_cost(), made.t_cost(), made.p_cost())
            == (params.m_cost(), params.t_cost(), params.p_cost())
    });
    stored.algorithm != argon2::ARGON2ID_IDENT
        || stored.version != Some(Version::V0x13 as u32)
        || !same_cost
}

fn hash_now(params: &Params, password: &str) -> Result<String, HashError> {
    argon2(params.clone())
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| HashError::Failed(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_are_argon2id_at_owasps_parameters_and_verify() {
        let passwords = Passwords::new(1, DEFAULT_MAX_WAIT, HashCost::OWASP).expect("a hasher");
        let hash = passwords
            .hash("correct horse".into())
            .await
            .expect("a hash");
        // OWASP's argon2id minimum: 19 MiB of memory, two passes, one lane.
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        let verify = |password: &str, hash: Option<String>| {
            let verdict = passwords.verify(password.to_owned(), hash);
            async move { verdict.await.map(|verdict| verdict.matches) }
        };
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

    #[tokio::test]
    async fn a_hash_is_checked_at_its_own_cost_whatever_new_ones_are_made_at() {
        let cheap = HashCost {
            memory_kib: 8,
            passes: 1,
        };
        let owasp = Passwords::new(1, DEFAULT_MAX_WAIT, HashCost::OWASP).expect("a hasher");
        let light = Passwords::new(1, DEFAULT_MAX_WAIT, cheap).expect("a hasher");
        let light_hash = light.hash("staple".into()).await.expect("a hash");
        assert!(
            light_hash.starts_with("$argon2id$v=19$m=8,t=1,p=1$"),
            "{light_hash}"
        );
        let owasp_hash = owasp.hash("staple".into()).await.expect("a hash");
        for (passwords, hash) in [(&light, &owasp_hash), (&owasp, &light_hash)] {
            // Matched at its own cost, and told apart as made at another.
            assert_eq!(
                passwords
                    .verify("staple".into(), Some(hash.clone()))
                    .await
                    .expect("the hasher answers"),
                Verdict {
                    matches: true,
                    outdated: true
                }
            );
            // A wrong password says nothing of the hash.
            assert_eq!(
                passwords
                    .verify("stapler".into(), Some(hash.clone()))
                    .await
                    .expect("the hasher answers"),
                Verdict {
                    matches: false,
                    outdated: false
                }
            );
        }
        // A hash at the hasher's own cost is not outdated.
        assert_eq!(
            light
                .verify("staple".into(), Some(light_hash.clone()))
                .await
                .expect("the hasher answers"),
            Verdict {
                matches: true,
                outdated: false
            }
        );
        // Another argon2 variant at the configured cost is outdated too.
        let argon2i = Argon2::new(
            Algorithm::Argon2i,
            Version::V0x13,
            HashCost::OWASP.params().expect("parameters"),
        )
        .hash_password(b"staple")
        .expect("a hash")
        .to_string();
        assert_eq!(
            owasp
                .verify("staple".into(), Some(argon2i))
                .await
                .expect("the hasher answers"),
            Verdict {
                matches: true,
                outdated: true
            }
        );
        // Below argon2's own least memory (8 KiB a lane), no hasher is made.
        let too_little = HashCost {
            memory_kib: 7,
            passes: 1,
        };
        assert!(Passwords::new(1, DEFAULT_MAX_WAIT, too_little).is_err());
    }

    #[test]
    fn below_owasp_follows_its_table_at_each_number_of_passes() {
        let cost = |memory_kib, passes| HashCost { memory_kib, passes };
        for (passes, least_kib) in [
            (1, 47_104),
            (2, 19_456),
            (3, 12_288),
            (4, 9_216),
            (5, 7_168),
            (9, 7_168),
        ] {
            assert!(!cost(least_kib, passes).below_owasp(), "{passes} passes");
            assert!(cost(least_kib - 1, passes).below_owasp(), "{passes} passes");
        }
        assert!(!HashCost::OWASP.below_owasp());
        assert!(cost(8, 1).below_owasp());
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
