//! The tenant's one dial plan: every dialable record's number, held in `dial_plan` by
//! triggers on the records' tables (migration 0013), so a number reaches exactly one thing.
//! The unique key settles concurrent claims; the check here, run in the writing
//! transaction, answers the common case with a 409 naming the holder.

use sea_query::{Expr, ExprTrait, Query};

use crate::backend::Tx;
use crate::changes::Changes;
use crate::error::{Error, Result};

/// The dialable tables and the kind their numbers are held as (the triggers write the
/// same word). A new dialable record adds its table here and its triggers in a migration.
pub const DIALABLE: &[(&str, &str)] = &[
    ("extensions", "extension"),
    ("ivrs", "IVR"),
    ("paging_groups", "paging group"),
    ("queues", "queue"),
    ("pharmacy_agents", "pharmacy agent"),
];

/// The kind a dialable `table`'s numbers are held as.
fn kind_of(table: &str) -> Option<&'static str> {
    DIALABLE
        .iter()
        .find(|(name, _)| *name == table)
        .map(|(_, kind)| *kind)
}

/// Refuses a write of `changes` to `table` (a new row when `id` is `None`) whose number
/// another record of the tenant's dial plan holds: 409 `the number 101 is taken by
/// extension 'Reception' (id 3)` (`in_use::holder`, as every refusal names a holder).
/// Tables outside the dial plan, and writes not touching the number, pass.
pub(crate) async fn check(
    tx: &mut Tx,
    table: &'static str,
    id: Option<i64>,
    changes: &Changes,
) -> Result<()> {
    let Some(kind) = kind_of(table) else {
        return Ok(());
    };
    let Some((_, number)) = changes.iter().find(|(column, _)| *column == "number") else {
        return Ok(());
    };
    let mut select = Query::select();
    select
        .columns(["number", "owner_kind", "owner_name", "owner_id"])
        .from("dial_plan")
        .and_where(Expr::col("number").eq(number.clone()));
    match id {
        None => {
            let Some((_, tenant)) = changes.iter().find(|(column, _)| *column == "tenant_id")
            else {
                return Ok(());
            };
            select.and_where(Expr::col("tenant_id").eq(tenant.clone()));
        }
        Some(id) => {
            let tenant = Query::select()
                .column("tenant_id")
                .from(table)
                .and_where(Expr::col("id").eq(id))
                .take();
            select
                .and_where(Expr::col("tenant_id").in_subquery(tenant))
                .and_where(
                    Expr::col("owner_kind")
                        .ne(kind)
                        .or(Expr::col("owner_id").ne(id)),
                );
        }
    }
    if let Some((number, kind, name, owner)) = tx
        .fetch_optional::<(String, String, String, i64)>(&select)
        .await?
    {
        return Err(Error::Conflict(format!(
            "the number {number} is taken by {}",
            crate::in_use::holder(&kind, &name, owner)
        )));
    }
    Ok(())
}
