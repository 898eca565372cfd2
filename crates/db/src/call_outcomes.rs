//! A tenant's call outcomes (dispositions), named by engine results.

use sea_query::{Expr, ExprTrait, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{CallOutcomeId, TenantId};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::call_outcome::{
    CallOutcome, CreateCallOutcome, UpdateCallOutcome,
};

use crate::backend::{Db, Tx};
use crate::changes;
use crate::crud;
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

fn select(scope: &Scope) -> SelectStatement {
    crud::select_stored::<CallOutcome>()
        .cond_where(scope::tenants(scope, Expr::col("tenant_id")))
        .take()
}

/// Lists the call outcomes the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &TenantFilter,
    query: &ListQuery,
) -> Result<Listing<CallOutcome>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col("tenant_id").eq(tenant.get()));
    }
    list::run(db, select, CallOutcome::SPEC, query).await
}

/// One call outcome.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: CallOutcomeId) -> Result<CallOutcome> {
    crud::get(db, select(scope), "id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<CallOutcome>> {
    crud::find_on(tx, select(&Scope::Platform), "id", id).await
}

/// The outcome of `tenant` named `name`, if the tenant defined one.
#[boxed]
pub async fn by_name(db: &Db, tenant: TenantId, name: &str) -> Result<Option<CallOutcome>> {
    let select = select(&Scope::Tenant(tenant))
        .and_where(Expr::col("name").eq(name))
        .take();
    db.conn().fetch_optional(&select).await
}

/// Creates a call outcome of `tenant`; a name taken in the tenant is a conflict.
#[boxed]
pub async fn create(db: &Db, tenant: TenantId, body: CreateCallOutcome) -> Result<CallOutcome> {
    let id = crud::insert(db, "call_outcomes", changes::with_tenant(tenant, &body)).await?;
    get(db, &Scope::Platform, CallOutcomeId(id)).await
}

/// Changes a call outcome.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: CallOutcomeId,
    body: UpdateCallOutcome,
) -> Result<CallOutcome> {
    let changes = changes::of(&body);
    crud::update(db, select(scope), "id", "call_outcomes", id.get(), changes).await
}

/// Deletes a call outcome (records keep the name they were given).
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: CallOutcomeId) -> Result<CallOutcome> {
    crud::delete(db, select(scope), "id", "call_outcomes", id.get()).await
}
