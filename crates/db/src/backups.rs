//! The record of finished backups: written by `switchboard backup` once its copy is
//! complete, read by every process's `/metrics` (the last backup's time and age), so an
//! alert sees backups stop whichever host runs them.

use sea_query::{Expr, ExprTrait, Query};
use switchboard_declare::boxed;

use crate::backend::Db;
use crate::error::Result;

/// Records a backup finished at `finished_at` (Unix seconds) with a database copy of
/// `database_bytes`.
#[boxed]
pub async fn record(db: &Db, finished_at: i64, database_bytes: i64) -> Result<()> {
    let insert = Query::insert()
        .into_table("backups")
        .columns(["finished_at", "database_bytes"])
        .values_panic([finished_at.into(), database_bytes.into()])
        .take();
    db.conn().execute(&insert).await?;
    Ok(())
}

/// When the last recorded backup finished (Unix seconds), `None` before the first.
#[boxed]
pub async fn last_finished(db: &Db) -> Result<Option<i64>> {
    let select = Query::select()
        .expr(Expr::col("finished_at").max())
        .from("backups")
        .take();
    db.conn().scalar(&select).await
}
