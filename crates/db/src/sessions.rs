//! Sessions and their refresh tokens: one session per login, its refresh tokens rotating
//! on every use, the whole session revoked when an old token comes back (reuse means it
//! was stolen), on logout, on a password change and when the account is disabled.

use sea_query::{Expr, ExprTrait, Query};
use switchboard_declare::boxed;
use switchboard_domain::ids::UserId;

use crate::backend::Db;
use crate::error::Result;
pub use crate::users::revoke_all_in;

/// A new session's first refresh token, or a rotated one.
#[derive(Clone, Debug)]
pub struct Issued {
    /// The session id (carried by access tokens as `sid`).
    pub session_id: String,
    /// The user.
    pub user_id: UserId,
}

/// What presenting a refresh token came to.
#[derive(Clone, Debug)]
pub enum Rotation {
    /// The token was current: it is now used, and `next` replaces it.
    Rotated(Issued),
    /// The token had been used before: the session is now revoked.
    Reused(Issued),
    /// Unknown, expired, or of a revoked session.
    Invalid,
}

/// Opens a session for `user` with its first refresh token (`token_hash`), valid until
/// `expires_at` (Unix seconds).
#[boxed]
pub async fn open(
    db: &Db,
    user: UserId,
    session_id: &str,
    token_hash: &str,
    client_address: &str,
    now: i64,
    expires_at: i64,
) -> Result<()> {
    let mut tx = db.begin().await?;
    let insert = Query::insert()
        .into_table("sessions")
        .columns([
            "id",
            "user_id",
            "client_address",
            "created_at",
            "last_used_at",
            "expires_at",
        ])
        .values_panic([
            session_id.into(),
            user.get().into(),
            client_address.into(),
            now.into(),
            now.into(),
            expires_at.into(),
        ])
        .take();
    tx.execute(&insert).await?;
    insert_token(&mut tx, session_id, token_hash, now).await?;
    tx.commit().await
}

async fn insert_token(
    tx: &mut crate::Tx,
    session_id: &str,
    token_hash: &str,
    now: i64,
) -> Result<()> {
    let insert = Query::insert()
        .into_table("refresh_tokens")
        .columns(["token_hash", "session_id", "created_at"])
        .values_panic([token_hash.into(), session_id.into(), now.into()])
        .take();
    tx.execute(&insert).await?;
    Ok(())
}

#[derive(switchboard_domain::declare::FromRow)]
struct TokenRow {
    session_id: String,
    user_id: UserId,
    used_at: Option<i64>,
    expires_at: i64,
    revoked_at: Option<i64>,
}

/// Rotates the refresh token `token_hash`: marks it used and stores `next_hash` in its
/// session. Marking is one conditional UPDATE, so of two processes presenting the same
/// token at once exactly one rotates and the other sees a reuse.
#[boxed]
pub async fn rotate(db: &Db, token_hash: &str, next_hash: &str, now: i64) -> Result<Rotation> {
    let select = Query::select()
        .column(("s", "id"))
        .expr_as(Expr::col(("s", "id")), "session_id")
        .column(("s", "user_id"))
        .column(("t", "used_at"))
        .column(("s", "expires_at"))
        .column(("s", "revoked_at"))
        .from_as("refresh_tokens", "t")
        .inner_join(
            sea_query::TableRef::from("sessions").alias("s"),
            Expr::col(("s", "id")).equals(("t", "session_id")),
        )
        .and_where(Expr::col(("t", "token_hash")).eq(token_hash))
        .take();
    let Some(row) = db.conn().fetch_optional::<TokenRow>(&select).await? else {
        return Ok(Rotation::Invalid);
    };
    let issued = Issued {
        session_id: row.session_id.clone(),
        user_id: row.user_id,
    };
    if row.revoked_at.is_some() || row.expires_at <= now {
        return Ok(Rotation::Invalid);
    }
    if row.used_at.is_some() {
        revoke(db, &row.session_id, "refresh token reused", now).await?;
        return Ok(Rotation::Reused(issued));
    }
    let mut tx = db.begin().await?;
    let mark = Query::update()
        .table("refresh_tokens")
        .value("used_at", now)
        .and_where(Expr::col("token_hash").eq(token_hash))
        .and_where(Expr::col("used_at").is_null())
        .take();
    if tx.execute(&mark).await? == 0 {
        drop(tx);
        revoke(db, &row.session_id, "refresh token reused", now).await?;
        return Ok(Rotation::Reused(issued));
    }
    insert_token(&mut tx, &row.session_id, next_hash, now).await?;
    let touch = Query::update()
        .table("sessions")
        .value("last_used_at", now)
        .and_where(Expr::col("id").eq(row.session_id.as_str()))
        .take();
    tx.execute(&touch).await?;
    tx.commit().await?;
    Ok(Rotation::Rotated(issued))
}

/// The session a refresh token belongs to, and its user, if the token is known.
#[boxed]
pub async fn of_token(db: &Db, token_hash: &str) -> Result<Option<Issued>> {
    #[derive(switchboard_domain::declare::FromRow)]
    struct Row {
        session_id: String,
        user_id: UserId,
    }
    let select = Query::select()
        .column(("t", "session_id"))
        .column(("s", "user_id"))
        .from_as("refresh_tokens", "t")
        .inner_join(
            sea_query::TableRef::from("sessions").alias("s"),
            Expr::col(("s", "id")).equals(("t", "session_id")),
        )
        .and_where(Expr::col(("t", "token_hash")).eq(token_hash))
        .take();
    let row = db.conn().fetch_optional::<Row>(&select).await?;
    Ok(row.map(|r| Issued {
        session_id: r.session_id,
        user_id: r.user_id,
    }))
}

/// Whether session `id` of `user` is open (not revoked, not expired).
#[boxed]
pub async fn is_active(db: &Db, id: &str, user: UserId, now: i64) -> Result<bool> {
    let select = Query::select()
        .expr(Expr::cust("COUNT(*)"))
        .from("sessions")
        .and_where(Expr::col("id").eq(id))
        .and_where(Expr::col("user_id").eq(user.get()))
        .and_where(Expr::col("revoked_at").is_null())
        .and_where(Expr::col("expires_at").gt(now))
        .take();
    Ok(db.conn().scalar::<i64>(&select).await? > 0)
}

/// Revokes session `id`.
#[boxed]
pub async fn revoke(db: &Db, id: &str, reason: &str, now: i64) -> Result<u64> {
    let update = Query::update()
        .table("sessions")
        .values([
            ("revoked_at", now.into()),
            ("revoked_reason", reason.into()),
        ])
        .and_where(Expr::col("id").eq(id))
        .and_where(Expr::col("revoked_at").is_null())
        .take();
    db.conn().execute(&update).await
}

/// Revokes every open session of `user`, answering how many.
#[boxed]
pub async fn revoke_all(db: &Db, user: UserId, reason: &str, now: i64) -> Result<u64> {
    let mut tx = db.begin().await?;
    let revoked = revoke_all_in(&mut tx, user, reason, now).await?;
    tx.commit().await?;
    Ok(revoked)
}

/// The account of the open session `session` of `user` at `now` (Unix seconds): from the
/// session cache when a request of the session was checked since the last change to any
/// account or session, else from one query (then cached). `None` when the session is
/// revoked, expired or not the user's, or the account is disabled or has no scope.
#[boxed]
pub async fn account(
    db: &Db,
    session: &str,
    user: UserId,
    now: i64,
) -> Result<Option<crate::session_cache::Account>> {
    let cache = db.sessions();
    if let Some(account) = cache.get(session, user, now) {
        return Ok(Some(account));
    }
    // Read before the database, so a change committed meanwhile is not stored.
    let generation = cache.generation();
    let Some((found, expires_at)) = crate::users::of_open_session(db, session, user, now).await?
    else {
        return Ok(None);
    };
    let Some(principal) = found.principal() else {
        return Ok(None);
    };
    let account = crate::session_cache::Account {
        principal,
        email: found.email,
    };
    if let Some(generation) = generation {
        cache.put(generation, session, user, expires_at, &account);
    }
    Ok(Some(account))
}
