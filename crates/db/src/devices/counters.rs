//! The device list's totals, read from the counters kept per tenant and branch (the
//! whole list's in `device_counts`, a MAC prefix's in its own table) rather than counted.

use sea_query::{Condition, Expr, ExprTrait, Query};
use switchboard_domain::Scope;
use switchboard_domain::records::device::DeviceFilter;

use crate::backend::Db;
use crate::error::Result;
use crate::scope;

/// The sum of the `devices` counters of `table` (kept per tenant and branch, 0 for
/// none) the caller reaches under the filter's tenant and branch and `condition`.
pub(super) async fn sum_counters(
    db: &Db,
    scope: &Scope,
    filter: &DeviceFilter,
    table: &'static str,
    condition: Condition,
) -> Result<i64> {
    let mut select = Query::select()
        .expr(Expr::cust("CAST(COALESCE(SUM(c.devices), 0) AS BIGINT)"))
        .from_as(table, "c")
        .cond_where(scope::tenants(scope, Expr::col(("c", "tenant_id"))))
        .cond_where(scope::branch(scope, Expr::col(("c", "branch_id"))))
        .cond_where(condition)
        .take();
    if let Some(tenant) = filter.place.tenant.tenant_id {
        select.and_where(Expr::col(("c", "tenant_id")).eq(tenant.get()));
    }
    if let Some(branch) = filter.place.branch_id {
        select.and_where(Expr::col(("c", "branch_id")).eq(branch.get()));
    }
    db.conn().scalar(&select).await
}
