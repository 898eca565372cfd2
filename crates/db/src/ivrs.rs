//! IVRs of a tenant.

use sea_query::{Expr, ExprTrait, Query, SelectStatement};
use switchboard_domain::Scope;
use switchboard_domain::ids::{IvrId, TenantId};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::ivr::{CreateIvr, Ivr, UpdateIvr};

use crate::backend::Db;
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns(["id", "tenant_id", "name", "number"])
        .from("ivrs")
        .cond_where(scope::tenants(scope, Expr::col("tenant_id")))
        .take()
}

/// Lists the IVRs the caller reaches.
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &TenantFilter,
    query: &ListQuery,
) -> Result<Listing<Ivr>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col("tenant_id").eq(tenant.get()));
    }
    list::run(db, select, Ivr::SPEC, query).await
}

/// One IVR.
pub async fn get(db: &Db, scope: &Scope, id: IvrId) -> Result<Ivr> {
    crud::get(db, select(scope), "id", id.get()).await
}

/// Creates an IVR of `tenant`.
pub async fn create(db: &Db, tenant: TenantId, body: CreateIvr) -> Result<Ivr> {
    let id = crud::insert(
        db,
        "ivrs",
        vec![
            ("tenant_id", tenant.get().into()),
            ("name", body.name.into()),
            ("number", body.number.into()),
        ],
    )
    .await?;
    get(db, &Scope::Platform, IvrId(id)).await
}

/// Changes an IVR.
pub async fn update(db: &Db, scope: &Scope, id: IvrId, body: UpdateIvr) -> Result<Ivr> {
    let mut changes: Changes = Vec::new();
    if let Some(name) = body.name {
        changes.push(("name", name.into()));
    }
    if let Some(number) = body.number {
        changes.push(("number", number.into()));
    }
    crud::update(db, select(scope), "id", "ivrs", id.get(), changes).await
}

/// Deletes an IVR that no destination list or announcement uses.
pub async fn delete(db: &Db, scope: &Scope, id: IvrId) -> Result<Ivr> {
    crud::delete(db, select(scope), "id", "ivrs", id.get()).await
}
