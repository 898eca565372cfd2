//! Tenant scope as SQL: the conditions that confine a query to what the caller reaches.
//! Every repository function that reads tenant data passes the caller's scope through here.

use sea_query::{Condition, Expr, ExprTrait, Query};
use switchboard_domain::Scope;

/// Confines `tenant_column` (a record's tenant id) to the tenants `scope` reaches.
pub fn tenants(scope: &Scope, tenant_column: Expr) -> Condition {
    match *scope {
        Scope::Platform => Condition::all(),
        Scope::Partner(partner) => Condition::all().add(
            tenant_column.in_subquery(
                Query::select()
                    .column("id")
                    .from("tenants")
                    .and_where(Expr::col("partner_id").eq(partner.get()))
                    .take(),
            ),
        ),
        Scope::Tenant(tenant) | Scope::Branch(tenant, _) | Scope::User(tenant, _, _) => {
            Condition::all().add(tenant_column.eq(tenant.get()))
        }
    }
}

/// Further confines a branch-bearing record to a branch admin's own branch.
pub fn branch(scope: &Scope, branch_column: Expr) -> Condition {
    match *scope {
        Scope::Branch(_, branch) => Condition::all().add(branch_column.eq(branch.get())),
        _ => Condition::all(),
    }
}

/// A column reference from `table.column` or `column` notation.
pub fn column(name: &'static str) -> Expr {
    match name.split_once('.') {
        Some((table, column)) => Expr::col((table, column)),
        None => Expr::col(name),
    }
}

/// Confines a table's rows to one tenant (for checks of ids named in a body).
pub fn of_tenant(tenant: switchboard_domain::ids::TenantId) -> Condition {
    Condition::all().add(Expr::col("tenant_id").eq(tenant.get()))
}
