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

/// Confines a record that is either a branch's or the whole tenant's (a null branch) to
/// a branch admin's own branch and the tenant-wide ones: another branch's is out of
/// reach, as with [`branch`], while what every branch shares (the tenant's default music
/// on hold) stays readable.
pub fn branch_or_shared(scope: &Scope, branch_column: Expr) -> Condition {
    match *scope {
        Scope::Branch(_, branch) => Condition::any()
            .add(branch_column.clone().is_null())
            .add(branch_column.eq(branch.get())),
        _ => Condition::all(),
    }
}

/// The extensions a branch admin or a user reaches, as a condition on a column holding
/// an extension id: a branch admin, its branch's extensions; a user, its own extension
/// (nothing when it has none); tenant-wide roles are not confined (`None`).
fn own_extensions(scope: &Scope, extension_column: Expr) -> Option<Condition> {
    match *scope {
        Scope::Branch(tenant, branch) => Some(
            Condition::all().add(
                extension_column.in_subquery(
                    Query::select()
                        .column("id")
                        .from("extensions")
                        .and_where(Expr::col("tenant_id").eq(tenant.get()))
                        .and_where(Expr::col("branch_id").eq(branch.get()))
                        .take(),
                ),
            ),
        ),
        Scope::User(_, _, Some(extension)) => {
            Some(Condition::all().add(extension_column.eq(extension.get())))
        }
        Scope::User(_, _, None) => Some(Condition::all().add(Expr::cust("1 = 0"))),
        _ => None,
    }
}

/// Further confines records that belong to one extension by its id (a voicemail
/// message, by the extension its mailbox was when it was left) to the extensions a
/// branch admin or a user reaches. Ids, never numbers: an extension created or
/// renumbered later does not change who sees a record.
pub fn own_extension(scope: &Scope, extension_column: Expr) -> Condition {
    own_extensions(scope, extension_column).unwrap_or_else(Condition::all)
}

/// Further confines calls (by their id column) to those a branch admin's or a user's
/// extensions took part in, as the engine identified the parties when it reported the
/// call (`call_parties`).
pub fn own_calls(scope: &Scope, call_id_column: Expr) -> Condition {
    match own_extensions(scope, Expr::col(("p", "extension_id"))) {
        None => Condition::all(),
        Some(parties) => Condition::all().add(
            call_id_column.in_subquery(
                Query::select()
                    .column(("p", "call_id"))
                    .from_as("call_parties", "p")
                    .cond_where(parties)
                    .take(),
            ),
        ),
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
