//! Verified sessions kept in process memory, so that an authenticated request reads
//! neither the account nor the session when a request of the same session was checked a
//! moment ago — without weakening "a logout, a password change, a disabled account or a
//! changed role takes effect on the next request".
//!
//! Every cached entry carries the *generation* it was read under, and is only served while
//! the generation has not moved. The generation moves:
//! - in this process, after any statement that updates or deletes `users` or `sessions`,
//!   or deletes `extensions` (which clears a user's extension), commits
//!   ([`touches_accounts`] looks at the rendered SQL, so a write added later is covered
//!   without being registered anywhere);
//! - across processes (PostgreSQL), when a trigger on those tables notifies the channel
//!   [`CHANNEL`] on commit (migration 0028) and this process's listener hears it.
//!
//! The generation is read *before* the database is, and an entry is stored under that
//! generation: a write that commits while the read is under way moves the generation, so
//! what the read found is never served. While the listener is not connected (at start,
//! after a dropped connection until it listens again) the cache is bypassed: nothing is
//! served from it and nothing stored. SQLite is one process's file (docs/decisions.md),
//! so its generation moves in process only. Whatever happens, an entry lives at most
//! [`TTL`], and the cache holds at most [`MAX_ENTRIES`] entries.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use switchboard_domain::Principal;
use switchboard_domain::ids::UserId;

/// The PostgreSQL notification channel the account triggers notify (migration 0028).
pub const CHANNEL: &str = "switchboard_accounts";

/// The longest an entry is served, whatever the notifications say: the bound on a change
/// made where no notification reaches (a listener connection that died without an error).
pub const TTL: Duration = Duration::from_secs(10);

/// The most sessions cached at once (about 200 bytes each); beyond that the cache is
/// emptied and fills again.
pub const MAX_ENTRIES: usize = 50_000;

/// How long the listener waits before connecting again after a failure.
const RECONNECT_DELAY: Duration = Duration::from_millis(500);

/// The account of a verified, open session.
#[derive(Clone, Debug)]
pub struct Account {
    /// Who the caller is and what they reach.
    pub principal: Principal,
    /// The account's e-mail address (for the audit trail).
    pub email: String,
}

struct Entry {
    user: UserId,
    account: Account,
    generation: u64,
    /// The session's own end (Unix seconds).
    expires_at: i64,
    stored: Instant,
}

/// The cache and its generation, one per [`Db`](crate::Db) (shared by its clones).
#[derive(Debug)]
pub struct SessionCache {
    generation: AtomicU64,
    /// Whether entries may be served: always on SQLite; on PostgreSQL only while the
    /// listener listens.
    trusted: AtomicBool,
    entries: Mutex<HashMap<String, EntryCell>>,
}

/// An entry, boxed away from `Debug` (it holds e-mail addresses).
struct EntryCell(Entry);

impl std::fmt::Debug for EntryCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Entry")
    }
}

impl SessionCache {
    /// A cache served at once (`trusted`: SQLite) or only once a listener listens.
    pub(crate) fn new(trusted: bool) -> SessionCache {
        SessionCache {
            generation: AtomicU64::new(0),
            trusted: AtomicBool::new(trusted),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The current generation, or `None` while the cache must be bypassed.
    pub(crate) fn generation(&self) -> Option<u64> {
        // The flag is read after the generation: a listener that stops moves the
        // generation after clearing the flag, so either is seen.
        let generation = self.generation.load(Ordering::Acquire);
        self.trusted.load(Ordering::Acquire).then_some(generation)
    }

    /// Invalidates every entry (an account or session changed).
    pub(crate) fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    fn set_trusted(&self, trusted: bool) {
        self.trusted.store(trusted, Ordering::Release);
        self.changed();
        if !trusted {
            self.lock().clear();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, EntryCell>> {
        // The map is consistent between any two statements: a panic elsewhere is no
        // reason to stop caching.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cached account of `session` of `user`, if still valid at `now` (Unix seconds).
    pub(crate) fn get(&self, session: &str, user: UserId, now: i64) -> Option<Account> {
        let generation = self.generation()?;
        let mut entries = self.lock();
        let entry = &entries.get(session)?.0;
        if entry.generation == generation
            && entry.user == user
            && entry.expires_at > now
            && entry.stored.elapsed() < TTL
        {
            return Some(entry.account.clone());
        }
        entries.remove(session);
        None
    }

    /// Stores what a read under `generation` found, unless the generation moved since.
    pub(crate) fn put(
        &self,
        generation: u64,
        session: &str,
        user: UserId,
        expires_at: i64,
        account: &Account,
    ) {
        let mut entries = self.lock();
        if self.generation() != Some(generation) {
            return;
        }
        if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        entries.insert(
            session.to_owned(),
            EntryCell(Entry {
                user,
                account: account.clone(),
                generation,
                expires_at,
                stored: Instant::now(),
            }),
        );
    }

    /// How many entries are stored (valid or not).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Listens, on a connection of `listening`, for account changes made by other
    /// processes on the database of `pool` until `pool` closes; the cache is bypassed
    /// whenever the listener is not listening.
    pub(crate) async fn listen(
        self: std::sync::Arc<Self>,
        pool: sqlx::PgPool,
        listening: sqlx::PgPool,
    ) {
        use sqlx::postgres::PgListener;
        while !pool.is_closed() {
            self.set_trusted(false);
            let mut listener = match PgListener::connect_with(&listening).await {
                Ok(listener) => listener,
                Err(error) => {
                    tracing::warn!(%error, "the session cache cannot listen; bypassed");
                    tokio::time::sleep(RECONNECT_DELAY).await;
                    continue;
                }
            };
            // A lost connection must end this loop (and the trust), not be mended behind
            // our back with the notifications sent meanwhile lost.
            listener.eager_reconnect(false);
            if let Err(error) = listener.listen(CHANNEL).await {
                tracing::warn!(%error, "the session cache cannot listen; bypassed");
                tokio::time::sleep(RECONNECT_DELAY).await;
                continue;
            }
            self.set_trusted(true);
            loop {
                tokio::select! {
                    received = listener.try_recv() => match received {
                        Ok(Some(_)) => self.changed(),
                        _ => break,
                    },
                    () = pool.close_event() => break,
                }
            }
            tracing::warn!("the session cache's listener lost its connection; bypassed");
        }
        self.set_trusted(false);
        listening.close().await;
    }
}

/// Whether the SQL statement `sql` changes an account or a session: an `UPDATE` or a
/// `DELETE` of `users` or `sessions`, or a `DELETE` of `extensions` (a user's extension
/// is cleared with it). Inserts never invalidate: a new session is not cached yet.
pub(crate) fn touches_accounts(sql: &str) -> bool {
    const WRITES: [&str; 5] = [
        "UPDATE \"users\"",
        "UPDATE \"sessions\"",
        "DELETE FROM \"users\"",
        "DELETE FROM \"sessions\"",
        "DELETE FROM \"extensions\"",
    ];
    let sql = sql.trim_start();
    WRITES.iter().any(|write| sql.starts_with(write))
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_domain::Principal;

    fn account() -> Account {
        Account {
            principal: Principal::operator(),
            email: "a@example.test".into(),
        }
    }

    #[test]
    fn an_entry_is_served_until_the_generation_moves() {
        let cache = SessionCache::new(true);
        let generation = cache.generation().unwrap_or_default();
        cache.put(generation, "s1", UserId(1), 100, &account());
        assert!(cache.get("s1", UserId(1), 50).is_some());
        assert!(cache.get("s1", UserId(2), 50).is_none(), "another user");
        cache.put(generation, "s1", UserId(1), 100, &account());
        assert!(cache.get("s1", UserId(1), 100).is_none(), "session ended");
        cache.put(generation, "s1", UserId(1), 100, &account());
        cache.changed();
        assert!(cache.get("s1", UserId(1), 50).is_none(), "changed");
        cache.put(generation, "s1", UserId(1), 100, &account());
        assert!(
            cache.is_empty(),
            "a read from before a change is not stored"
        );
    }

    #[test]
    fn an_untrusted_cache_serves_and_stores_nothing() {
        let cache = SessionCache::new(false);
        assert_eq!(cache.generation(), None);
        cache.put(0, "s1", UserId(1), 100, &account());
        assert!(cache.is_empty());
        assert!(cache.get("s1", UserId(1), 50).is_none());
    }

    #[test]
    fn writes_to_accounts_are_recognised() {
        assert!(touches_accounts("UPDATE \"users\" SET \"role\" = $1"));
        assert!(touches_accounts(
            "UPDATE \"sessions\" SET \"revoked_at\" = $1"
        ));
        assert!(touches_accounts("DELETE FROM \"users\" WHERE"));
        assert!(touches_accounts("DELETE FROM \"extensions\" WHERE"));
        assert!(!touches_accounts("INSERT INTO \"sessions\" (\"id\")"));
        assert!(!touches_accounts("SELECT * FROM \"users\""));
        assert!(!touches_accounts("UPDATE \"users_x\" SET"));
    }
}
