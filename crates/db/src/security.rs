//! Account-security state kept in the database, so several `serve` processes agree:
//! failed logins, multi-factor secrets and recovery codes, disabled accounts.

use sea_query::{Expr, ExprTrait, Query};
use switchboard_declare::boxed;
use switchboard_domain::ids::UserId;

use crate::backend::{Db, Tx};
use crate::error::Result;

/// Failures, as counted for a lock: how many within the window, and when the last was.
pub type Failures = (i64, i64);

/// How long a failed attempt counts towards a lock; older failures judge nothing and
/// the background sweep ([`prune_failures`]) deletes them.
pub const FAILURE_WINDOW: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// What asking to try a secret came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reservation {
    /// Locked: no attempt now; retry after this many seconds.
    Locked(u64),
    /// The attempt may go ahead; it is already counted as a failure (this row of
    /// `login_failures`), until a success clears it or it is withdrawn.
    Reserved(i64),
}

/// Asks to try a secret of `account` (a lowercased e-mail) from `address`: reads the
/// failures of both since `since`, lets `lock` judge them, and, unless locked, counts
/// this attempt as a failure at once — before the slow check, and under a lock on the
/// account and the address, so that of concurrent attempts no more are judged than the
/// lock allows. An attempt refused while locked is not counted.
pub async fn reserve_attempt(
    db: &Db,
    account: &str,
    address: &str,
    since: i64,
    now: i64,
    lock: impl FnOnce(Failures, Failures) -> Option<u64>,
) -> Result<Reservation> {
    let mut tx = db.begin().await?;
    let account_key = format!("login-failures:account:{account}");
    let address_key = format!("login-failures:address:{address}");
    tx.lock_keys(&[&account_key, &address_key]).await?;
    let by_account = failures(&mut tx, "account_key", account, since).await?;
    let by_address = failures(&mut tx, "client_address", address, since).await?;
    if let Some(seconds) = lock(by_account, by_address) {
        return Ok(Reservation::Locked(seconds));
    }
    let id = crate::crud::insert_in(
        &mut tx,
        "login_failures",
        vec![
            ("account_key", account.into()),
            ("client_address", address.into()),
            ("at", now.into()),
        ],
    )
    .await?;
    tx.commit().await?;
    Ok(Reservation::Reserved(id))
}

/// Withdraws the reserved attempt `id`: it proved nothing either way.
#[boxed]
pub async fn withdraw_attempt(db: &Db, id: i64) -> Result<()> {
    let delete = Query::delete()
        .from_table("login_failures")
        .and_where(Expr::col("id").eq(id))
        .take();
    db.conn().execute(&delete).await?;
    Ok(())
}

/// Failures since `since`: how many, and the latest, for `column` = `value`.
async fn failures(tx: &mut Tx, column: &'static str, value: &str, since: i64) -> Result<Failures> {
    #[derive(switchboard_domain::declare::FromRow)]
    struct Row {
        count: i64,
        latest: Option<i64>,
    }
    let select = Query::select()
        .expr_as(Expr::cust("COUNT(*)"), "count")
        .expr_as(Expr::col("at").max(), "latest")
        .from("login_failures")
        .and_where(Expr::col(column).eq(value))
        .and_where(Expr::col("at").gte(since))
        .take();
    let row: Row = tx.fetch_one(&select).await?;
    Ok((row.count, row.latest.unwrap_or(0)))
}

/// Forgets the failures of `account` (after a successful login) and those older than
/// `before` of everyone (so the table does not grow).
#[boxed]
pub async fn clear_failures(db: &Db, account: &str, before: i64) -> Result<()> {
    let delete = Query::delete()
        .from_table("login_failures")
        .cond_where(
            sea_query::Condition::any()
                .add(Expr::col("account_key").eq(account))
                .add(Expr::col("at").lt(before)),
        )
        .take();
    db.conn().execute(&delete).await?;
    Ok(())
}

/// Deletes the failures older than `before` (outside every window), answering how many:
/// run on a schedule by the background worker, so a guessing campaign that never
/// succeeds (no success clears it) cannot grow the table without bound.
#[boxed]
pub async fn prune_failures(db: &Db, before: i64) -> Result<u64> {
    let delete = Query::delete()
        .from_table("login_failures")
        .and_where(Expr::col("at").lt(before))
        .take();
    db.conn().execute(&delete).await
}

/// The multi-factor state of a user.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct MfaState {
    /// Whether TOTP is on.
    pub mfa_enabled: i64,
    /// The sealed TOTP secret, when on.
    pub mfa_secret: Option<String>,
    /// The sealed secret awaiting confirmation.
    pub mfa_pending_secret: Option<String>,
    /// The last accepted TOTP step.
    pub mfa_last_step: i64,
    /// Whether the account is disabled.
    pub disabled: i64,
}

/// The multi-factor state of `user`.
#[boxed]
pub async fn mfa_state(db: &Db, user: UserId) -> Result<MfaState> {
    let select = Query::select()
        .columns([
            "mfa_enabled",
            "mfa_secret",
            "mfa_pending_secret",
            "mfa_last_step",
            "disabled",
        ])
        .from("users")
        .and_where(Expr::col("id").eq(user.get()))
        .take();
    db.conn().fetch_one(&select).await
}

/// Stores a sealed secret awaiting confirmation.
#[boxed]
pub async fn set_pending_secret(db: &Db, user: UserId, sealed: &str) -> Result<()> {
    let update = Query::update()
        .table("users")
        .value("mfa_pending_secret", sealed)
        .and_where(Expr::col("id").eq(user.get()))
        .take();
    db.conn().execute(&update).await?;
    Ok(())
}

/// Turns TOTP on with the pending secret, replacing the recovery codes with `code_hashes`.
#[boxed]
pub async fn enable_mfa(
    db: &Db,
    user: UserId,
    sealed: &str,
    step: i64,
    code_hashes: &[String],
) -> Result<()> {
    let mut tx = db.begin().await?;
    let update = Query::update()
        .table("users")
        .values([
            ("mfa_secret", sealed.into()),
            ("mfa_pending_secret", Option::<String>::None.into()),
            ("mfa_enabled", 1i64.into()),
            ("mfa_app_verified", 1i64.into()),
            ("mfa_mode", "app".into()),
            ("mfa_last_step", step.into()),
        ])
        .and_where(Expr::col("id").eq(user.get()))
        .take();
    tx.execute(&update).await?;
    let delete = Query::delete()
        .from_table("recovery_codes")
        .and_where(Expr::col("user_id").eq(user.get()))
        .take();
    tx.execute(&delete).await?;
    for hash in code_hashes {
        let insert = Query::insert()
            .into_table("recovery_codes")
            .columns(["user_id", "code_hash"])
            .values_panic([user.get().into(), hash.clone().into()])
            .take();
        tx.execute(&insert).await?;
    }
    tx.commit().await
}

/// Turns TOTP off and drops the recovery codes.
#[boxed]
pub async fn disable_mfa(db: &Db, user: UserId) -> Result<()> {
    let mut tx = db.begin().await?;
    let update = Query::update()
        .table("users")
        .values([
            ("mfa_secret", Option::<String>::None.into()),
            ("mfa_pending_secret", Option::<String>::None.into()),
            ("mfa_enabled", 0i64.into()),
            ("mfa_app_verified", 0i64.into()),
            ("mfa_mode", "".into()),
        ])
        .and_where(Expr::col("id").eq(user.get()))
        .take();
    tx.execute(&update).await?;
    let delete = Query::delete()
        .from_table("recovery_codes")
        .and_where(Expr::col("user_id").eq(user.get()))
        .take();
    tx.execute(&delete).await?;
    tx.commit().await
}

/// Accepts TOTP `step` for `user` once: true when it is later than every step accepted
/// before (one conditional UPDATE, so a code cannot be replayed, even concurrently).
#[boxed]
pub async fn accept_step(db: &Db, user: UserId, step: i64) -> Result<bool> {
    let update = Query::update()
        .table("users")
        .value("mfa_last_step", step)
        .and_where(Expr::col("id").eq(user.get()))
        .and_where(Expr::col("mfa_last_step").lt(step))
        .take();
    Ok(db.conn().execute(&update).await? == 1)
}

/// Uses the recovery code with `code_hash` of `user`, once: true when it was unused.
#[boxed]
pub async fn use_recovery_code(db: &Db, user: UserId, code_hash: &str, now: i64) -> Result<bool> {
    let update = Query::update()
        .table("recovery_codes")
        .value("used_at", now)
        .and_where(Expr::col("user_id").eq(user.get()))
        .and_where(Expr::col("code_hash").eq(code_hash))
        .and_where(Expr::col("used_at").is_null())
        .take();
    Ok(db.conn().execute(&update).await? == 1)
}

/// Sets a new password hash and ends every session of the account, in one transaction;
/// answers how many sessions ended.
#[boxed]
pub async fn set_password(db: &Db, user: UserId, hash: &str, now: i64) -> Result<u64> {
    let update = Query::update()
        .table("users")
        .value("password_hash", hash)
        .and_where(Expr::col("id").eq(user.get()))
        .take();
    let mut tx = db.begin().await?;
    tx.execute(&update).await?;
    let revoked = crate::sessions::revoke_all_in(&mut tx, user, "password changed", now).await?;
    tx.commit().await?;
    Ok(revoked)
}

/// Replaces the password hash `stored` of `user` with `hash`, the same password hashed
/// again at the configured cost; answers whether it did. Only while `stored` is still the
/// account's hash: a password changed (or hashed again by another login) meanwhile stays.
/// No session ends and no audit entry is written: the password did not change.
#[boxed]
pub async fn rehash_password(db: &Db, user: UserId, stored: &str, hash: &str) -> Result<bool> {
    let update = Query::update()
        .table("users")
        .value("password_hash", hash)
        .and_where(Expr::col("id").eq(user.get()))
        .and_where(Expr::col("password_hash").eq(stored))
        .take();
    Ok(db.conn().execute(&update).await? == 1)
}
