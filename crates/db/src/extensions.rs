//! Extensions of a tenant; a branch admin reaches its branch's, a user only its own.

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{ExtensionId, TenantId};
use switchboard_domain::list::{BranchedFilter, ListQuery, Listed};
use switchboard_domain::records::extension::{CreateExtension, Extension, UpdateExtension};

use crate::backend::{Db, Tx};
use crate::changes;
use crate::crud;
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

fn select(scope: &Scope) -> SelectStatement {
    let own = match *scope {
        Scope::User(_, _, Some(ext)) => Condition::all().add(Expr::col("id").eq(ext.get())),
        Scope::User(_, _, None) => Condition::all().add(Expr::cust("1 = 0")),
        _ => Condition::all(),
    };
    Query::select()
        .columns(["id", "tenant_id", "branch_id", "number", "name"])
        .from("extensions")
        .cond_where(scope::tenants(scope, Expr::col("tenant_id")))
        .cond_where(scope::branch(scope, Expr::col("branch_id")))
        .cond_where(own)
        .take()
}

/// Lists the extensions the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &BranchedFilter,
    query: &ListQuery,
) -> Result<Listing<Extension>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant.tenant_id {
        select.and_where(Expr::col("tenant_id").eq(tenant.get()));
    }
    if let Some(branch) = filter.branch_id {
        select.and_where(Expr::col("branch_id").eq(branch.get()));
    }
    list::run(db, select, Extension::SPEC, query).await
}

/// An extension's read, rendered once per kind of scope.
static READ: crud::ScopedRead = crud::ScopedRead::new(select, "id");

/// One extension.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: ExtensionId) -> Result<Extension> {
    READ.get(db, scope, id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Extension>> {
    READ.find_on(tx, &Scope::Platform, id).await
}

/// Whether extension `id` belongs to `tenant`.
#[boxed]
pub async fn of_tenant(db: &Db, tenant: TenantId, id: ExtensionId) -> Result<bool> {
    crud::exists(
        db,
        "extensions",
        id.get(),
        Expr::col("tenant_id").eq(tenant.get()).into(),
    )
    .await
}

/// Creates an extension of `tenant` (its branch already checked to be of that tenant).
#[boxed]
pub async fn create(db: &Db, tenant: TenantId, body: CreateExtension) -> Result<Extension> {
    let id = crud::insert(db, "extensions", changes::with_tenant(tenant, &body)).await?;
    get(db, &Scope::Platform, ExtensionId(id)).await
}

/// Changes an extension.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: ExtensionId,
    body: UpdateExtension,
) -> Result<Extension> {
    let changes = changes::of(&body);
    let mut tx = db.begin().await?;
    let mut visible = select(scope);
    visible.and_where(Expr::col("id").eq(id.get()));
    tx.fetch_one::<Extension>(&visible).await?;
    let rendered = !changes.is_empty();
    crud::update_in(&mut tx, "extensions", id.get(), changes).await?;
    if rendered {
        // Phones show the extension (a line, a BLF key): their files change with it.
        let devices = crate::devices::showing_extension(&mut tx, id).await?;
        crate::devices::config_changed(&mut tx, &devices, "extension").await?;
    }
    let extension = tx.fetch_one(&visible).await?;
    tx.commit().await?;
    Ok(extension)
}

/// Deletes an extension that no destination list routes to (409 naming the users
/// otherwise); users that had it as their own keep no extension.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: ExtensionId) -> Result<Extension> {
    crud::delete(db, select(scope), "id", "extensions", id.get()).await
}
