//! Custom voices of a tenant.

use sea_query::{Expr, ExprTrait, Query, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{CustomVoiceId, TenantId};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::custom_voice::{
    CreateCustomVoice, CustomVoice, UpdateCustomVoice,
};

use crate::backend::{Db, Tx};
use crate::changes;
use crate::crud;
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns([
            "id",
            "tenant_id",
            "name",
            "base_voice_id",
            "rate",
            "pitch",
            "volume",
            "language",
        ])
        // The same text on both backends: `||` turns the id into text on each.
        .expr_as(Expr::cust("'custom-' || id"), "voice_id")
        .from("custom_voices")
        .cond_where(scope::tenants(scope, Expr::col("tenant_id")))
        .take()
}

/// Lists the custom voices the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &TenantFilter,
    query: &ListQuery,
) -> Result<Listing<CustomVoice>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col("tenant_id").eq(tenant.get()));
    }
    list::run(db, select, CustomVoice::SPEC, query).await
}

/// The custom voices of `tenant` the caller reaches, by id, at most `limit`.
#[boxed]
pub async fn of_tenant(
    db: &Db,
    scope: &Scope,
    tenant: TenantId,
    limit: u64,
) -> Result<Vec<CustomVoice>> {
    let select = select(scope)
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .order_by("id", sea_query::Order::Asc)
        .limit(limit)
        .take();
    db.conn().fetch_all(&select).await
}

/// One custom voice.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: CustomVoiceId) -> Result<CustomVoice> {
    crud::get(db, select(scope), "id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<CustomVoice>> {
    crud::find_on(tx, select(&Scope::Platform), "id", id).await
}

/// Creates a custom voice of `tenant` (its base voice and language already checked
/// against the engine's catalogue).
#[boxed]
pub async fn create(db: &Db, tenant: TenantId, body: CreateCustomVoice) -> Result<CustomVoice> {
    let id = crud::insert(db, "custom_voices", changes::with_tenant(tenant, &body)).await?;
    get(db, &Scope::Platform, CustomVoiceId(id)).await
}

/// Changes a custom voice.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: CustomVoiceId,
    body: UpdateCustomVoice,
) -> Result<CustomVoice> {
    let changes = changes::of(&body);
    crud::update(db, select(scope), "id", "custom_voices", id.get(), changes).await
}

/// Deletes a custom voice.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: CustomVoiceId) -> Result<CustomVoice> {
    crud::delete(db, select(scope), "id", "custom_voices", id.get()).await
}
