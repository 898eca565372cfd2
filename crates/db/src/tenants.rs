//! Tenants: a partner admin reaches its partner's, everyone below a tenant only its own.

use sea_query::{Expr, ExprTrait, Query, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{PartnerId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::tenant::{CreateTenant, PartnerFilter, Tenant, UpdateTenant};

use crate::backend::{Db, Tx};
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns(["id", "partner_id", "name", "timezone", "default_country"])
        .from("tenants")
        .cond_where(scope::tenants(scope, Expr::col("id")))
        .take()
}

/// Lists the tenants the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &PartnerFilter,
    query: &ListQuery,
) -> Result<Listing<Tenant>> {
    let mut select = select(scope);
    if let Some(partner) = filter.partner_id {
        select.and_where(Expr::col("partner_id").eq(partner.get()));
    }
    list::run(db, select, Tenant::SPEC, query).await
}

/// One tenant.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: TenantId) -> Result<Tenant> {
    crud::get(db, select(scope), "id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Tenant>> {
    crud::find_on(tx, select(&Scope::Platform), "id", id).await
}

/// Whether the caller's scope reaches tenant `id` (which must exist).
#[boxed]
pub async fn in_scope(db: &Db, scope: &Scope, id: TenantId) -> Result<bool> {
    crud::exists(
        db,
        "tenants",
        id.get(),
        scope::tenants(scope, Expr::col("id")),
    )
    .await
}

/// Creates a tenant of `partner`.
#[boxed]
pub async fn create(db: &Db, partner: PartnerId, body: CreateTenant) -> Result<Tenant> {
    let id = crud::insert(
        db,
        "tenants",
        vec![
            ("partner_id", partner.get().into()),
            ("name", body.name.into()),
        ],
    )
    .await?;
    get(db, &Scope::Platform, TenantId(id)).await
}

/// Changes a tenant.
#[boxed]
pub async fn update(db: &Db, scope: &Scope, id: TenantId, body: UpdateTenant) -> Result<Tenant> {
    let mut changes: Changes = Vec::new();
    if let Some(name) = body.name {
        changes.push(("name", name.into()));
    }
    if let Some(country) = body.default_country {
        changes.push(("default_country", country.into()));
    }
    let Some(timezone) = body.timezone else {
        return crud::update(db, select(scope), "id", "tenants", id.get(), changes).await;
    };
    changes.push(("timezone", timezone.into()));
    let mut tx = db.begin().await?;
    let mut visible = select(scope);
    visible.and_where(Expr::col("id").eq(id.get()));
    tx.fetch_one::<Tenant>(&visible).await?;
    crud::update_in(&mut tx, "tenants", id.get(), changes).await?;
    // The tenant's desk phones show its time zone: their files change with it at once,
    // and a job announces it to them in bounded batches (a tenant may have 100,000).
    crate::devices::reprovision_later(&mut tx, id, "tenant-timezone").await?;
    let tenant = tx.fetch_one(&visible).await?;
    tx.commit().await?;
    Ok(tenant)
}

/// Deletes a tenant that has no branches, extensions or users left.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: TenantId) -> Result<Tenant> {
    crud::delete(db, select(scope), "id", "tenants", id.get()).await
}
