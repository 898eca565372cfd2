//! Partners: visible to platform admins, and to a partner admin its own.

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::partner::{CreatePartner, Partner, UpdatePartner};
use switchboard_domain::{Scope, ids::PartnerId};

use crate::backend::{Db, Tx};
use crate::changes;
use crate::crud;
use crate::error::Result;
use crate::list::{self, Listing};

fn select(scope: &Scope) -> SelectStatement {
    let visible = match *scope {
        Scope::Platform => Condition::all(),
        Scope::Partner(partner) => Condition::all().add(Expr::col("id").eq(partner.get())),
        _ => Condition::all().add(Expr::cust("1 = 0")),
    };
    Query::select()
        .columns(["id", "name"])
        .from("partners")
        .cond_where(visible)
        .take()
}

/// Lists the partners the caller reaches.
#[boxed]
pub async fn list(db: &Db, scope: &Scope, query: &ListQuery) -> Result<Listing<Partner>> {
    list::run(db, select(scope), Partner::SPEC, query).await
}

/// One partner.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: PartnerId) -> Result<Partner> {
    crud::get(db, select(scope), "id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Partner>> {
    crud::find_on(tx, select(&Scope::Platform), "id", id).await
}

/// Creates a partner.
#[boxed]
pub async fn create(db: &Db, body: CreatePartner) -> Result<Partner> {
    let id = crud::insert(db, "partners", changes::of(&body)).await?;
    get(db, &Scope::Platform, PartnerId(id)).await
}

/// Changes a partner.
#[boxed]
pub async fn update(db: &Db, scope: &Scope, id: PartnerId, body: UpdatePartner) -> Result<Partner> {
    let changes = changes::of(&body);
    crud::update(db, select(scope), "id", "partners", id.get(), changes).await
}

/// Deletes a partner that owns no tenants.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: PartnerId) -> Result<Partner> {
    crud::delete(db, select(scope), "id", "partners", id.get()).await
}
