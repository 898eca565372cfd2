//! Button layouts with their keys; a change re-provisions every phone using the layout.

use std::collections::HashMap;
use switchboard_declare::boxed;

use sea_query::{Expr, ExprTrait, Query, SelectStatement};
use switchboard_domain::Scope;
use switchboard_domain::ids::{ButtonLayoutId, TenantId};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::button_layout::{
    ButtonLayout, CreateButtonLayout, KeyInput, LayoutKey, UpdateButtonLayout,
};
use switchboard_domain::records::device_model::KeyType;

use crate::backend::{Db, Reader, Tx};
use crate::changes;
use crate::crud;
use crate::devices;
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::locks::layout_key;
use crate::scope;

/// A layout row before its keys are attached.
#[derive(switchboard_domain::declare::FromRow)]
pub struct Row {
    id: ButtonLayoutId,
    tenant_id: TenantId,
    name: String,
    device_model: String,
}

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns([
            ("l", "id"),
            ("l", "tenant_id"),
            ("l", "name"),
            ("l", "device_model"),
        ])
        .from_as("button_layouts", "l")
        .cond_where(scope::tenants(scope, Expr::col(("l", "tenant_id"))))
        .take()
}

#[derive(switchboard_domain::declare::FromRow)]
struct KeyRow {
    layout_id: ButtonLayoutId,
    key_index: i64,
    kind: KeyType,
    value: Option<String>,
    label: Option<String>,
}

/// Attaches the keys of every layout in `rows`, with one query.
async fn complete(db: Db, rows: Vec<Row>) -> Result<Vec<ButtonLayout>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`.
async fn complete_on(reader: &mut impl Reader, rows: Vec<Row>) -> Result<Vec<ButtonLayout>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut keys: HashMap<ButtonLayoutId, Vec<LayoutKey>> = HashMap::new();
    if !ids.is_empty() {
        let select = Query::select()
            .columns(["layout_id", "key_index", "kind", "value", "label"])
            .from("button_layout_keys")
            .and_where(Expr::col("layout_id").is_in(ids))
            .order_by("layout_id", sea_query::Order::Asc)
            .order_by("key_index", sea_query::Order::Asc)
            .take();
        let rows: Vec<KeyRow> = reader.read_all(&select).await?;
        for row in rows {
            keys.entry(row.layout_id).or_default().push(LayoutKey {
                index: row.key_index,
                kind: row.kind,
                value: row.value,
                label: row.label,
            });
        }
    }
    Ok(rows
        .into_iter()
        .map(|row| ButtonLayout {
            id: row.id,
            tenant_id: row.tenant_id,
            name: row.name,
            device_model: row.device_model,
            keys: keys.remove(&row.id).unwrap_or_default(),
        })
        .collect())
}

/// Lists the layouts the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &TenantFilter,
    query: &ListQuery,
) -> Result<Listing<ButtonLayout>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col(("l", "tenant_id")).eq(tenant.get()));
    }
    list::run_completed(db, select, ButtonLayout::SPEC, query, complete).await
}

/// One layout with its keys.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: ButtonLayoutId) -> Result<ButtonLayout> {
    let row: Row = crud::get(db, select(scope), "l.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<ButtonLayout>> {
    let row: Option<Row> = crud::find_on(tx, select(&Scope::Platform), "l.id", id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Replaces the keys of layout `id` (their targets checked by the caller to be the
/// tenant's records).
async fn replace_keys(tx: &mut Tx, id: i64, keys: &[KeyInput]) -> Result<()> {
    let delete = Query::delete()
        .from_table("button_layout_keys")
        .and_where(Expr::col("layout_id").eq(id))
        .take();
    tx.execute(&delete).await?;
    for key in keys {
        let value = key.value.clone().filter(|v| !v.is_empty());
        let target = |kind: KeyType| {
            (key.kind == kind)
                .then(|| value.as_deref().and_then(|v| v.parse::<i64>().ok()))
                .flatten()
        };
        crud::insert_in(
            tx,
            "button_layout_keys",
            vec![
                ("layout_id", id.into()),
                ("key_index", key.index.into()),
                ("kind", key.kind.as_str().into()),
                ("extension_id", target(KeyType::Blf).into()),
                ("paging_group_id", target(KeyType::PagingGroup).into()),
                ("value", value.into()),
                ("label", key.label.clone().filter(|l| !l.is_empty()).into()),
            ],
        )
        .await?;
    }
    Ok(())
}

/// Creates a layout of `tenant` with its keys.
#[boxed]
pub async fn create(db: &Db, tenant: TenantId, body: &CreateButtonLayout) -> Result<ButtonLayout> {
    let mut tx = db.begin().await?;
    let id = crud::insert_in(
        &mut tx,
        "button_layouts",
        changes::with_tenant(tenant, body),
    )
    .await?;
    replace_keys(&mut tx, id, &body.keys).await?;
    tx.commit().await?;
    get(db, &Scope::Platform, ButtonLayoutId(id)).await
}

/// Changes a layout; a sent key list replaces the keys, and every phone using the layout
/// is re-provisioned (its configuration version grows, with an event) in the same
/// transaction.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: ButtonLayoutId,
    body: &UpdateButtonLayout,
) -> Result<ButtonLayout> {
    get(db, scope, id).await?;
    let rendered = body.device_model.is_some() || body.keys.is_some();
    let mut tx = db.begin().await?;
    if let Some(model) = &body.device_model {
        // Checked with the layout locked against device writes (see
        // `devices::layout_fits`), so no phone of the old model can be assigned meanwhile.
        tx.lock_keys(&[&layout_key(id.get())]).await?;
        let current = Query::select()
            .column("device_model")
            .from("button_layouts")
            .and_where(Expr::col("id").eq(id.get()))
            .take();
        let (before,): (String,) = tx.fetch_one(&current).await?;
        if before != *model {
            let (total, names) = used_by_in(&mut tx, id).await?;
            if total > 0 {
                return Err(Error::InUse(format!(
                    "the button layout's model cannot change while {total} device(s) of \
                     {before} use it ({}); move them to another layout first",
                    names.join(", ")
                )));
            }
        }
    }
    crud::update_in(&mut tx, "button_layouts", id.get(), changes::of(body)).await?;
    if let Some(keys) = &body.keys {
        replace_keys(&mut tx, id.get(), keys).await?;
    }
    if rendered {
        let using = devices::using_layout(&mut tx, id).await?;
        devices::config_changed(&mut tx, &using, "button-layout").await?;
    }
    tx.commit().await?;
    get(db, scope, id).await
}

/// The devices using layout `id` (up to five, named as refusals name holders), and how
/// many there are, inside `tx`.
async fn used_by_in(tx: &mut Tx, id: ButtonLayoutId) -> Result<(i64, Vec<String>)> {
    let count = Query::select()
        .expr(Expr::cust("COUNT(*)"))
        .from("devices")
        .and_where(Expr::col("button_layout_id").eq(id.get()))
        .take();
    let total: i64 = tx.scalar(&count).await?;
    let names = Query::select()
        .columns(["id", "name"])
        .from("devices")
        .and_where(Expr::col("button_layout_id").eq(id.get()))
        .order_by("id", sea_query::Order::Asc)
        .limit(5)
        .take();
    let rows: Vec<(i64, String)> = tx.fetch_all(&names).await?;
    Ok((
        total,
        rows.into_iter()
            .map(|(id, name)| crate::in_use::holder("device", &name, id))
            .collect(),
    ))
}

/// The devices using layout `id` (up to five, named as refusals name holders), and how
/// many there are.
#[boxed]
pub async fn used_by(db: &Db, id: ButtonLayoutId) -> Result<(i64, Vec<String>)> {
    let mut tx = db.begin().await?;
    used_by_in(&mut tx, id).await
}

/// Deletes a layout no device uses (409 naming them otherwise: `in_use::IN_USE`, checked
/// with the layout locked in the delete's transaction), answering it as it was.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: ButtonLayoutId) -> Result<ButtonLayout> {
    let layout = get(db, scope, id).await?;
    // The keys go with the layout (ON DELETE CASCADE).
    let _: Row = crud::delete(db, select(scope), "l.id", "button_layouts", id.get()).await?;
    Ok(layout)
}
