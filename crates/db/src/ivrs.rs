//! IVRs of a tenant with their menus: the options, timeout and invalid paths live in the
//! shared destination lists (owner `ivr`; an option's digit in `type_src`).

use sea_query::{Expr, ExprTrait, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{IvrId, TenantId};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::destination::{Destination, DestinationInput};
use switchboard_domain::records::ivr::{CreateIvr, Ivr, IvrOption, IvrOptionInput, UpdateIvr};

use crate::backend::{Db, Reader, Tx};
use crate::changes;
use crate::crud;
use crate::destinations::{self, Owner};
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::scope;

/// The menu's options list.
const OPTIONS: &str = "options";
/// The path of a caller who presses nothing.
const TIMEOUT: &str = "timeout";
/// The path of a caller who keeps pressing unknown keys.
const INVALID: &str = "invalid";

fn select(scope: &Scope) -> SelectStatement {
    crud::select_stored::<Ivr>()
        .cond_where(scope::tenants(scope, Expr::col(("i", "tenant_id"))))
        .take()
}

/// The key order of a menu: `0`–`9`, then `*`, then `#`.
fn digit_rank(digit: &str) -> usize {
    switchboard_domain::records::ivr::MenuKey::rank(digit).unwrap_or(usize::MAX)
}

/// Attaches the menus of every IVR in `rows`, with one query.
async fn complete(db: Db, rows: Vec<Ivr>) -> Result<Vec<Ivr>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`: the IVRs are read from their rows, the menus attached.
async fn complete_on(reader: &mut impl Reader, mut rows: Vec<Ivr>) -> Result<Vec<Ivr>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut lists = destinations::load_on(reader, Owner::Ivr, &ids).await?;
    let mut take = |id: i64, list: &str| lists.remove(&(id, list.to_owned())).unwrap_or_default();
    for ivr in &mut rows {
        let id = ivr.id.get();
        let mut options: Vec<IvrOption> = take(id, OPTIONS)
            .into_iter()
            .filter_map(|mut destination: Destination| {
                let digit = destination.type_src.take()?;
                Some(IvrOption { digit, destination })
            })
            .collect();
        options.sort_by_key(|o| digit_rank(&o.digit));
        ivr.options = options;
        ivr.timeout_destination = take(id, TIMEOUT).into_iter().next();
        ivr.invalid_destination = take(id, INVALID).into_iter().next();
    }
    Ok(rows)
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Ivr>> {
    let row: Option<Ivr> = crud::find_on(tx, select(&Scope::Platform), "i.id", id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Lists the IVRs the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &TenantFilter,
    query: &ListQuery,
) -> Result<Listing<Ivr>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col(("i", "tenant_id")).eq(tenant.get()));
    }
    list::run_completed(db, select, Ivr::SPEC, query, complete).await
}

/// One IVR with its menu.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: IvrId) -> Result<Ivr> {
    let row: Ivr = crud::get(db, select(scope), "i.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

/// The options as destination list items, the digit kept in `typeSrc`.
fn option_items(options: &[IvrOptionInput]) -> Vec<DestinationInput> {
    options
        .iter()
        .enumerate()
        .map(|(index, option)| DestinationInput {
            order: i64::try_from(index).unwrap_or(i64::MAX - 1) + 1,
            type_src: Some(option.digit.as_str().to_owned()),
            ..option.destination.clone()
        })
        .collect()
}

/// Writes the menu lists that `options`, `timeout` and `invalid` name (each `None`: kept).
async fn write_menu(
    tx: &mut Tx,
    tenant: TenantId,
    id: i64,
    options: Option<&[IvrOptionInput]>,
    timeout: Option<Option<&DestinationInput>>,
    invalid: Option<Option<&DestinationInput>>,
) -> Result<()> {
    if let Some(options) = options {
        destinations::replace(tx, tenant, Owner::Ivr, id, OPTIONS, &option_items(options)).await?;
    }
    for (list, path) in [(TIMEOUT, timeout), (INVALID, invalid)] {
        if let Some(path) = path {
            let items: Vec<DestinationInput> = path.cloned().into_iter().collect();
            destinations::replace(tx, tenant, Owner::Ivr, id, list, &items).await?;
        }
    }
    Ok(())
}

/// Creates an IVR of `tenant` with its menu (references checked by the caller).
#[boxed]
pub async fn create(db: &Db, tenant: TenantId, body: CreateIvr) -> Result<Ivr> {
    let mut tx = db.begin().await?;
    let id = crud::insert_in(&mut tx, "ivrs", changes::with_tenant(tenant, &body)).await?;
    write_menu(
        &mut tx,
        tenant,
        id,
        Some(&body.options),
        Some(body.timeout_destination.as_ref()),
        Some(body.invalid_destination.as_ref()),
    )
    .await?;
    tx.commit().await?;
    get(db, &Scope::Platform, IvrId(id)).await
}

/// Changes an IVR; a sent `options` replaces the menu. Setting one kind of greeting
/// clears the other, so an IVR greets with one thing.
#[boxed]
pub async fn update(db: &Db, scope: &Scope, id: IvrId, body: UpdateIvr) -> Result<Ivr> {
    let current = get(db, scope, id).await?;
    let mut changes = changes::of(&body);
    let media = body.greeting_media_file_id.and_then(|g| g.get());
    let announcement = body.greeting_announcement_id.and_then(|g| g.get());
    if media.is_some() && body.greeting_announcement_id.is_none() {
        changes.push(("greeting_announcement_id", Option::<i64>::None.into()));
    }
    if announcement.is_some() && body.greeting_media_file_id.is_none() {
        changes.push(("greeting_media_file_id", Option::<i64>::None.into()));
    }
    let mut tx = db.begin().await?;
    crud::update_in(&mut tx, "ivrs", id.get(), changes).await?;
    write_menu(
        &mut tx,
        current.tenant_id,
        id.get(),
        body.options.as_deref(),
        body.timeout_destination.as_ref().map(Option::as_ref),
        body.invalid_destination.as_ref().map(Option::as_ref),
    )
    .await?;
    tx.commit().await?;
    get(db, scope, id).await
}

/// Deletes an IVR and its menu, unless another record routes to it or an announcement
/// is attached to it.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: IvrId) -> Result<Ivr> {
    let current = get(db, scope, id).await?;
    destinations::delete_owner(db, "ivrs", Owner::Ivr, id.get()).await?;
    Ok(current)
}
