//! Branches of a tenant; a branch admin reaches only its own.

use sea_query::{Expr, ExprTrait, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{BranchId, TenantId};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::branch::{Branch, CreateBranch, UpdateBranch};

use crate::backend::{Db, Tx};
use crate::changes;
use crate::crud;
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

fn select(scope: &Scope) -> SelectStatement {
    crud::select_stored::<Branch>()
        .cond_where(scope::tenants(scope, Expr::col("tenant_id")))
        .cond_where(scope::branch(scope, Expr::col("id")))
        .take()
}

/// Lists the branches the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &TenantFilter,
    query: &ListQuery,
) -> Result<Listing<Branch>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col("tenant_id").eq(tenant.get()));
    }
    list::run(db, select, Branch::SPEC, query).await
}

/// One branch.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: BranchId) -> Result<Branch> {
    crud::get(db, select(scope), "id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Branch>> {
    crud::find_on(tx, select(&Scope::Platform), "id", id).await
}

/// Whether branch `id` belongs to `tenant`.
#[boxed]
pub async fn of_tenant(db: &Db, tenant: TenantId, id: BranchId) -> Result<bool> {
    crud::exists(
        db,
        "branches",
        id.get(),
        Expr::col("tenant_id").eq(tenant.get()).into(),
    )
    .await
}

/// Creates a branch of `tenant`.
#[boxed]
pub async fn create(db: &Db, tenant: TenantId, body: CreateBranch) -> Result<Branch> {
    let id = crud::insert(db, "branches", changes::with_tenant(tenant, &body)).await?;
    get(db, &Scope::Platform, BranchId(id)).await
}

/// Changes a branch.
#[boxed]
pub async fn update(db: &Db, scope: &Scope, id: BranchId, body: UpdateBranch) -> Result<Branch> {
    let changes = changes::of(&body);
    crud::update(db, select(scope), "id", "branches", id.get(), changes).await
}

/// Deletes a branch that no extension or user belongs to.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: BranchId) -> Result<Branch> {
    crud::delete(db, select(scope), "id", "branches", id.get()).await
}
