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

/// Further confines records that belong to a phone extension by number (a mailbox, a
/// call's parties) to the extensions a branch admin or a user reaches: a branch admin,
/// its branch's extensions; a user, its own extension (nothing when it has none).
pub fn own_numbers(scope: &Scope, number_columns: &[&'static str]) -> Condition {
    let numbers = match *scope {
        Scope::Branch(tenant, branch) => Query::select()
            .column("number")
            .from("extensions")
            .and_where(Expr::col("tenant_id").eq(tenant.get()))
            .and_where(Expr::col("branch_id").eq(branch.get()))
            .take(),
        Scope::User(_, _, Some(extension)) => Query::select()
            .column("number")
            .from("extensions")
            .and_where(Expr::col("id").eq(extension.get()))
            .take(),
        Scope::User(_, _, None) => return Condition::all().add(Expr::cust("1 = 0")),
        _ => return Condition::all(),
    };
    number_columns.iter().fold(Condition::any(), |any, name| {
        any.add(column(name).in_subquery(numbers.clone()))
    })
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
