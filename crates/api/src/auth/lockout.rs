//! The one rule for every check of a secret — a login's password and second factor, the
//! password that re-authenticates a change in `/v2/users/me/*`: refused with 429 and
//! `Retry-After` while the account or the client address is locked, and counted as a
//! failure *before* the slow check, so concurrent attempts cannot each get a guess.
//! Locks follow the failures within the window: none below the threshold, then a lock
//! that doubles with each further failure and never lasts long.
//!
//! Return types are spelled `Result<_, ApiError>`, not the `ApiResult` alias, so that
//! cargo-mutants generates its `Ok(())` mutants (see `scripts/mutants.sh`).

use serde_json::json;
use switchboard_db::audit::NewEntry;
use switchboard_db::security::{self, Failures, Reservation};

use crate::error::ApiError;
use crate::state::{AppState, Settings};

/// An attempt at a secret, already counted as a failure: settle it with
/// [`Attempt::succeeded`] (which forgets the account's failures) or leave it counted.
#[must_use = "a successful attempt must be settled, or it stays counted as a failure"]
#[derive(Debug)]
pub struct Attempt {
    account: String,
    reservation: i64,
}

/// Asks to try a secret of `account` (an e-mail address, any case) from `address`:
/// refused with 429 while locked (and audited as `login.locked`), otherwise counted.
pub async fn attempt(
    state: &AppState,
    account: &str,
    address: &str,
    now: i64,
) -> Result<Attempt, ApiError> {
    let account = account.to_lowercase();
    let settings = &state.settings;
    let window = i64::try_from(settings.failure_window.as_secs()).unwrap_or(i64::MAX);
    let mut counts = None;
    let lock = |by_account: Failures, by_address: Failures| {
        counts = Some((by_account.0, by_address.0));
        [
            lock_left(settings, by_account, settings.lockout_threshold, now),
            lock_left(settings, by_address, settings.address_threshold, now),
        ]
        .into_iter()
        .flatten()
        .max()
    };
    // Counted by the client's key (an IPv6 client by its /64); audited by its address.
    let reservation = security::reserve_attempt(
        &state.db,
        &account,
        &crate::client::limit_key(address),
        now.saturating_sub(window),
        now,
        lock,
    )
    .await?;
    match reservation {
        Reservation::Reserved(reservation) => Ok(Attempt {
            account,
            reservation,
        }),
        Reservation::Locked(seconds) => {
            crate::metrics::refused("lockout");
            let (account_failures, address_failures) = counts.unwrap_or_default();
            let locked = NewEntry {
                action: "login.locked",
                entity: "authentication",
                user_email: account,
                client_address: address.to_owned(),
                details: json!({
                    "retryAfterSeconds": seconds,
                    "accountFailures": account_failures,
                    "addressFailures": address_failures,
                }),
                ..NewEntry::default()
            };
            let until = now.saturating_add(i64::try_from(seconds).unwrap_or(i64::MAX));
            // One entry per lock, counting its refusals: a flood adds no rows.
            if let Err(error) =
                switchboard_db::audit::record_refusal(&state.db, locked, until).await
            {
                tracing::error!(%error, "could not record a refused sign-in");
            }
            Err(ApiError::locked(seconds, now))
        }
    }
}

impl Attempt {
    /// The secret was right: the account's failures are forgotten (and those of everyone
    /// older than the window, so the table does not grow).
    pub async fn succeeded(self, state: &AppState, now: i64) -> Result<(), ApiError> {
        let window = i64::try_from(state.settings.failure_window.as_secs()).unwrap_or(i64::MAX);
        security::clear_failures(&state.db, &self.account, now.saturating_sub(window)).await?;
        Ok(())
    }
}

impl Attempt {
    /// The attempt proved nothing either way (the password was right, but the second
    /// factor is still to come): it stops counting, and no other failure is forgotten.
    pub async fn withdraw(self, state: &AppState) -> Result<(), ApiError> {
        security::withdraw_attempt(&state.db, self.reservation).await?;
        Ok(())
    }
}

/// The lock in force for failures `(count, latest)` past `threshold`: seconds left, if any.
fn lock_left(
    settings: &Settings,
    (count, latest): Failures,
    threshold: i64,
    now: i64,
) -> Option<u64> {
    let base = settings.lockout_base.as_secs();
    let lock = lock_length(base, settings.lockout_max.as_secs(), count, threshold)?;
    let until = latest.saturating_add(i64::try_from(lock).unwrap_or(i64::MAX));
    (now < until).then(|| u64::try_from(until - now).unwrap_or(1).max(1))
}

/// The lock, in seconds, after `count` failures against `threshold`: none below it, then
/// `base` doubling with each further failure, never more than `max`.
fn lock_length(base: u64, max: u64, count: i64, threshold: i64) -> Option<u64> {
    if count < threshold {
        return None;
    }
    let base = base.max(1);
    let doubled = base.saturating_mul(1u64 << (count - threshold).clamp(0, 30));
    Some(doubled.min(max.max(base)))
}

#[cfg(test)]
mod tests {
    use super::{Settings, lock_left, lock_length};

    #[test]
    fn a_lock_lasts_from_the_latest_failure_to_its_length() {
        // A 30 s first lock, 5 failures an account: the defaults.
        let settings = Settings::new("http://localhost".into());
        // Five failures, the latest at 1,000: locked until 1,030.
        let left = |now| lock_left(&settings, (5, 1_000), 5, now);
        assert_eq!(left(1_000), Some(30));
        assert_eq!(left(1_012), Some(18), "the seconds left, for Retry-After");
        assert_eq!(left(1_029), Some(1));
        assert_eq!(left(1_030), None, "over at its end, not a second later");
        assert_eq!(
            lock_left(&settings, (4, 1_000), 5, 1_000),
            None,
            "below the threshold"
        );
    }

    #[test]
    fn locks_double_and_stop_at_the_cap() {
        let lengths: Vec<_> = (4..=12)
            .map(|count| lock_length(30, 900, count, 5))
            .collect();
        assert_eq!(
            lengths,
            [
                None,
                Some(30),
                Some(60),
                Some(120),
                Some(240),
                Some(480),
                Some(900),
                Some(900),
                Some(900)
            ]
        );
        assert_eq!(
            lock_length(30, 900, 1000, 5),
            Some(900),
            "no overflow however long it goes on"
        );
    }
}
