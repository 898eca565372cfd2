//! The console's refreshes of an API session, shared by every `serve` process: one
//! process claims a refresh token and spends it at the API, the others wait for the
//! answer it leaves (sealed by the console) instead of spending the token again, which
//! the API's reuse detection would take for theft. See the console's `refresh` module.

use sea_query::{Expr, ExprTrait, Query};
use switchboard_declare::boxed;

use crate::backend::Db;
use crate::error::Result;

/// The table.
const TABLE: &str = "console_refreshes";

/// How long a refresh's answer is handed to requests still presenting the token it spent
/// (milliseconds): longer than a page and its pictures take to load, and no longer —
/// within it, the old cookie replayed is not caught by the API's reuse detection
/// (docs/decisions.md, "The console's session refresh").
pub const KEPT_MS: i64 = 10_000;

/// Where a claimed refresh stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claimed {
    /// Under way in some process (none answered yet).
    UnderWay,
    /// Answered: the sealed answer.
    Answered(String),
    /// Not claimed (any more): its refresh failed and was let go, or it was never claimed.
    Free,
}

/// Claims the refresh of the token whose SHA-256 (hex) is `token_hash` at `now_ms` (Unix
/// milliseconds), answering whether this caller won it and must refresh. Claims older
/// than [`KEPT_MS`] are removed first, every token's: past that window a token presented
/// again is spent at the API again (and caught there as reused).
#[boxed]
pub async fn claim(db: &Db, token_hash: &str, now_ms: i64) -> Result<bool> {
    prune(db, now_ms).await?;
    let insert = Query::insert()
        .into_table(TABLE)
        .columns(["token_hash", "claimed_at"])
        .values_panic([token_hash.into(), now_ms.into()])
        .on_conflict(
            sea_query::OnConflict::column("token_hash")
                .do_nothing()
                .to_owned(),
        )
        .take();
    Ok(db.conn().execute(&insert).await? == 1)
}

/// Leaves the sealed `answer` of the claimed refresh of `token_hash` for the others.
#[boxed]
pub async fn answer(db: &Db, token_hash: &str, answer: &str) -> Result<()> {
    let update = Query::update()
        .table(TABLE)
        .value("answer", answer)
        .and_where(Expr::col("token_hash").eq(token_hash))
        .take();
    db.conn().execute(&update).await?;
    Ok(())
}

/// Lets the claim of `token_hash` go (its refresh failed; the token may still be good,
/// and the next request tries again).
#[boxed]
pub async fn release(db: &Db, token_hash: &str) -> Result<()> {
    let delete = Query::delete()
        .from_table(TABLE)
        .and_where(Expr::col("token_hash").eq(token_hash))
        .take();
    db.conn().execute(&delete).await?;
    Ok(())
}

/// Where the refresh of `token_hash` stands.
#[boxed]
pub async fn get(db: &Db, token_hash: &str) -> Result<Claimed> {
    let select = Query::select()
        .column("answer")
        .from(TABLE)
        .and_where(Expr::col("token_hash").eq(token_hash))
        .take();
    let row: Option<(Option<String>,)> = db.conn().fetch_optional(&select).await?;
    Ok(match row {
        None => Claimed::Free,
        Some((None,)) => Claimed::UnderWay,
        Some((Some(answer),)) => Claimed::Answered(answer),
    })
}

/// Deletes the claims older than [`KEPT_MS`] at `now_ms`, answering how many: the sealed
/// tokens of a refresh are not kept past the window (the retention sweep calls it too,
/// for a deployment where no claim follows).
#[boxed]
pub async fn prune(db: &Db, now_ms: i64) -> Result<u64> {
    let expired = Query::delete()
        .from_table(TABLE)
        .and_where(Expr::col("claimed_at").lt(now_ms - KEPT_MS))
        .take();
    db.conn().execute(&expired).await
}
