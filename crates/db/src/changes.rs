//! What a write sets: the columns and their values, as [`crate::crud`] writes them and
//! the checks it runs (dial plan, in use) read them; below them all.

use sea_query::Expr;
use switchboard_domain::declare::{ColumnValue, Columns};
use switchboard_domain::ids::TenantId;

/// Column values to write.
pub type Changes = Vec<(&'static str, Expr)>;

/// The value a declared column holds, as sea-query binds it (a null keeps its type).
pub fn expr(value: ColumnValue) -> Expr {
    match value {
        ColumnValue::Int(value) => value.into(),
        ColumnValue::Text(value) => value.into(),
        ColumnValue::Bool(value) => value.into(),
    }
}

/// The columns of a declared create body placed in `tenant`: `tenant_id` first, then
/// the body's own.
pub fn with_tenant<C: Columns>(tenant: TenantId, body: &C) -> Changes {
    let mut changes = vec![("tenant_id", tenant.get().into())];
    changes.extend(of(body));
    changes
}

/// The columns a declared body writes (`#[field(column)]`): all of a create's, the sent
/// ones of an update's.
pub fn of<C: Columns>(body: &C) -> Changes {
    body.columns()
        .into_iter()
        .map(|(column, value)| (column, expr(value)))
        .collect()
}
