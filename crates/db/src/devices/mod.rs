//! Desk phones with their ordered lines; their registration state; the configuration
//! version that grows, with a `DEVICE_CONFIG_CHANGED` event in the same transaction,
//! whenever what a phone's provisioning file renders changes.

mod config;
mod counters;
mod provisioning;
mod search;

pub use config::{
    CONFIG_CHANGED, REPROVISION_BATCH, Reprovision, config_changed, reprovision_batch,
    reprovision_later, showing_extension, sip_account_changed, using_layout, with_lines,
};
pub use provisioning::{
    Provisioned, fetched, first_digest_use, provisioned, prune_digest_uses, register,
};

use std::collections::HashMap;
use switchboard_declare::boxed;

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement, TableRef};
use switchboard_domain::Scope;
use switchboard_domain::ids::{BranchId, ButtonLayoutId, DeviceId, ExtensionId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::device::{
    CreateDevice, Device, DeviceBranch, DeviceFilter, DeviceLine, display_mac,
};

use crate::backend::{Db, Reader, Tx};
use crate::crud::{self, Changes};
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::scope;
use crate::seal::{self, Sealer};
use counters::sum_counters;
use search::mac_prefix;
use search::mac_search;
use search::name_search;

/// A device row before its lines are attached.
#[derive(switchboard_domain::declare::FromRow)]
pub struct Row {
    id: DeviceId,
    tenant_id: TenantId,
    branch_id: Option<i64>,
    branch_name: Option<String>,
    name: String,
    mac: String,
    model: String,
    button_layout_id: Option<i64>,
    description: String,
    registered: i64,
    last_registered_at: Option<String>,
    last_fetched_at: Option<String>,
    ip_address: Option<String>,
    user_agent: Option<String>,
    config_version: i64,
    provisioning_username: String,
}

/// Devices the caller reaches: its tenants', a branch admin's branch's, and for a user
/// (should one be granted `devices:read`) the phones its own extension is a line of.
fn select(scope: &Scope) -> SelectStatement {
    let own = match *scope {
        Scope::User(_, _, Some(ext)) => Condition::all().add(
            Expr::col(("d", "id")).in_subquery(
                Query::select()
                    .column("device_id")
                    .from("device_lines")
                    .and_where(Expr::col("extension_id").eq(ext.get()))
                    .take(),
            ),
        ),
        Scope::User(_, _, None) => Condition::all().add(Expr::cust("1 = 0")),
        _ => Condition::all(),
    };
    Query::select()
        .columns([
            ("d", "id"),
            ("d", "tenant_id"),
            ("d", "branch_id"),
            ("d", "name"),
            ("d", "mac"),
            ("d", "model"),
            ("d", "button_layout_id"),
            ("d", "description"),
            ("d", "registered"),
            ("d", "last_registered_at"),
            ("d", "last_fetched_at"),
            ("d", "ip_address"),
            ("d", "user_agent"),
            ("d", "config_version"),
            ("d", "provisioning_username"),
        ])
        .expr_as(Expr::col(("b", "name")), "branch_name")
        .from_as("devices", "d")
        .left_join(
            TableRef::from("branches").alias("b"),
            Expr::col(("b", "id")).equals(("d", "branch_id")),
        )
        .cond_where(scope::tenants(scope, Expr::col(("d", "tenant_id"))))
        .cond_where(scope::branch(scope, Expr::col(("d", "branch_id"))))
        .cond_where(own)
        .take()
}

#[derive(switchboard_domain::declare::FromRow)]
struct LineRow {
    device_id: DeviceId,
    id: ExtensionId,
    number: String,
    name: String,
}

/// The lines of `devices`, in order, with one query, read on `reader`.
async fn lines_on(
    reader: &mut impl Reader,
    devices: &[i64],
) -> Result<HashMap<DeviceId, Vec<DeviceLine>>> {
    let mut out: HashMap<DeviceId, Vec<DeviceLine>> = HashMap::new();
    if devices.is_empty() {
        return Ok(out);
    }
    let select = Query::select()
        .column(("l", "device_id"))
        .columns([("e", "id"), ("e", "number"), ("e", "name")])
        .from_as("device_lines", "l")
        .inner_join(
            TableRef::from("extensions").alias("e"),
            Expr::col(("e", "id")).equals(("l", "extension_id")),
        )
        .and_where(Expr::col(("l", "device_id")).is_in(devices.iter().copied()))
        .order_by(("l", "device_id"), sea_query::Order::Asc)
        .order_by(("l", "position"), sea_query::Order::Asc)
        .take();
    let rows: Vec<LineRow> = reader.read_all(&select).await?;
    for row in rows {
        out.entry(row.device_id).or_default().push(DeviceLine {
            id: row.id,
            number: row.number,
            name: row.name,
        });
    }
    Ok(out)
}

/// Attaches the lines of every device in `rows`.
async fn complete(db: Db, rows: Vec<Row>) -> Result<Vec<Device>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`.
async fn complete_on(reader: &mut impl Reader, rows: Vec<Row>) -> Result<Vec<Device>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut lines = lines_on(reader, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|row| Device {
            id: row.id,
            tenant_id: row.tenant_id,
            branch_id: row.branch_id.map(BranchId),
            branch: row
                .branch_id
                .zip(row.branch_name)
                .map(|(id, name)| DeviceBranch {
                    id: BranchId(id),
                    name,
                }),
            name: row.name,
            mac: display_mac(&row.mac),
            model: row.model,
            lines: lines.remove(&row.id).unwrap_or_default(),
            button_layout_id: row.button_layout_id.map(ButtonLayoutId),
            description: row.description,
            registered: row.registered != 0,
            last_registered_at: row.last_registered_at,
            last_fetched_at: row.last_fetched_at,
            ip_address: row.ip_address,
            user_agent: row.user_agent,
            config_version: row.config_version,
            provisioning_username: row.provisioning_username,
        })
        .collect())
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Device>> {
    let row: Option<Row> = crud::find_on(tx, select(&Scope::Platform), "d.id", id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Lists the devices the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &DeviceFilter,
    query: &ListQuery,
) -> Result<Listing<Device>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.place.tenant.tenant_id {
        select.and_where(Expr::col(("d", "tenant_id")).eq(tenant.get()));
    }
    if let Some(branch) = filter.place.branch_id {
        select.and_where(Expr::col(("d", "branch_id")).eq(branch.get()));
    }
    if let Some(model) = &filter.model {
        select.and_where(Expr::col(("d", "model")).eq(model.as_str()));
    }
    if let Some(registered) = filter.registered {
        select.and_where(Expr::col(("d", "registered")).eq(i64::from(registered)));
    }
    if let Some(extension) = filter.line_extension_id {
        select.and_where(
            Expr::col(("d", "id")).in_subquery(
                Query::select()
                    .column("device_id")
                    .from("device_lines")
                    .and_where(Expr::col("extension_id").eq(extension.get()))
                    .take(),
            ),
        );
    }
    let mut query = query.clone();
    // The counters know tenants, branches, models and registration; not a user's own
    // lines or a line filter.
    let countable =
        filter.line_extension_id.is_none() && !matches!(scope, Scope::User(..)) && query.paginated;
    let total = match query.search.take() {
        None if countable => Some(counted_total(db, scope, filter).await?),
        None => None,
        Some(text) => match switchboard_domain::records::device::mac_search(&text) {
            Some(hex) => {
                let search = mac_search(db, scope, filter, &text, &hex).await?;
                let mut total = None;
                if let Some(prefixed) = search.prefixed
                    && countable
                    && filter.model.is_none()
                    && filter.registered.is_none()
                {
                    // The prefix's phones from the counters, plus the few matching
                    // otherwise that are not among them.
                    let mut others = select.clone();
                    others
                        .and_where(Expr::col(("d", "id")).in_subquery(search.others))
                        .cond_where(mac_prefix(&hex).not());
                    let count = Query::select()
                        .expr(Expr::cust("COUNT(*)"))
                        .from_subquery(others, "others")
                        .take();
                    let others: i64 = db.conn().scalar(&count).await?;
                    total = Some(prefixed + others);
                }
                select.cond_where(search.condition);
                total
            }
            None => {
                select.cond_where(name_search(db, &text));
                None
            }
        },
    };
    list::run_completed_counted(db, select, Device::SPEC, &query, total, complete).await
}

/// The number of devices the caller reaches under `filter`, from `device_counts`.
async fn counted_total(db: &Db, scope: &Scope, filter: &DeviceFilter) -> Result<i64> {
    let mut condition = Condition::all();
    if let Some(model) = &filter.model {
        condition = condition.add(Expr::col(("c", "model")).eq(model.as_str()));
    }
    if let Some(registered) = filter.registered {
        condition = condition.add(Expr::col(("c", "registered")).eq(i64::from(registered)));
    }
    sum_counters(db, scope, filter, "device_counts", condition).await
}

/// One device with its lines.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: DeviceId) -> Result<Device> {
    let row: Row = crud::get(db, select(scope), "d.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

/// Replaces the lines of device `id` (checked by the caller to be the tenant's).
async fn replace_lines(tx: &mut Tx, id: i64, lines: &[i64]) -> Result<()> {
    let delete = Query::delete()
        .from_table("device_lines")
        .and_where(Expr::col("device_id").eq(id))
        .take();
    tx.execute(&delete).await?;
    for (position, extension) in lines.iter().enumerate() {
        let position = i64::try_from(position).unwrap_or(i64::MAX) + 1;
        crud::insert_in(
            tx,
            "device_lines",
            vec![
                ("device_id", id.into()),
                ("position", position.into()),
                ("extension_id", (*extension).into()),
            ],
        )
        .await?;
    }
    Ok(())
}

/// What a new device is stored with beyond its body: its provisioning credentials.
pub struct Credentials {
    /// The user name the phone fetches its file with.
    pub username: String,
    /// SHA-256 (hex) of the generated password.
    pub secret_hash: String,
    /// Its HTTP Digest secrets (RFC 7616 H(user:realm:password), hex): MD5 and SHA-256,
    /// sealed when written (bound to the device's row).
    pub digest_secrets: (String, String),
}

/// The sealed Digest secret columns of device `id`.
fn sealed_digest_secrets(sealer: &Sealer, id: i64, (md5, sha256): &(String, String)) -> Changes {
    vec![
        (
            "provisioning_digest_md5_secret",
            sealer
                .seal(seal::device_digest_md5(id), md5.as_bytes())
                .into(),
        ),
        (
            "provisioning_digest_sha256_secret",
            sealer
                .seal(seal::device_digest_sha256(id), sha256.as_bytes())
                .into(),
        ),
    ]
}

/// Refuses (409) a device of `model` on `layout` when the layout is no longer for that
/// model, checked with the layout locked against a concurrent change of its model (which
/// locks it too, see `button_layouts::update`): the caller's check ran before the
/// transaction.
async fn layout_fits(tx: &mut Tx, layout: Option<i64>, model: &str) -> Result<()> {
    let Some(layout) = layout else {
        return Ok(());
    };
    tx.lock_keys(&[&crate::locks::layout_key(layout)]).await?;
    let select = Query::select()
        .column("device_model")
        .from("button_layouts")
        .and_where(Expr::col("id").eq(layout))
        .take();
    match tx.fetch_optional::<(String,)>(&select).await? {
        Some((other,)) if other != model => Err(Error::Conflict(format!(
            "the button layout is now for {other}, not for the device's model {model}"
        ))),
        _ => Ok(()),
    }
}

/// Creates a device of `tenant` (branch, lines and layout already checked by the caller)
/// with its provisioning credentials, announcing its first configuration.
#[boxed]
pub async fn create(
    db: &Db,
    tenant: TenantId,
    branch: Option<BranchId>,
    body: CreateDevice,
    credentials: Credentials,
    sealer: &Sealer,
) -> Result<Device> {
    let mut tx = db.begin().await?;
    layout_fits(
        &mut tx,
        body.button_layout_id.map(ButtonLayoutId::get),
        &body.model,
    )
    .await?;
    let id = crud::insert_in(
        &mut tx,
        "devices",
        vec![
            ("tenant_id", tenant.get().into()),
            ("branch_id", branch.map(BranchId::get).into()),
            ("name", body.name.into()),
            ("mac", body.mac.into()),
            ("model", body.model.into()),
            (
                "button_layout_id",
                body.button_layout_id.map(ButtonLayoutId::get).into(),
            ),
            ("description", body.description.into()),
            ("config_version", 0i64.into()),
            ("provisioning_username", credentials.username.into()),
            ("provisioning_secret_hash", credentials.secret_hash.into()),
        ],
    )
    .await?;
    // The seal binds the row's id, known once inserted: the secrets are sealed and set
    // now, in the same transaction (the audit entry shows them as `********` either way).
    let update = Query::update()
        .table("devices")
        .values(sealed_digest_secrets(
            sealer,
            id,
            &credentials.digest_secrets,
        ))
        .and_where(Expr::col("id").eq(id))
        .take();
    tx.execute(&update).await?;
    replace_lines(&mut tx, id, &body.lines).await?;
    config_changed(&mut tx, &[id], "created").await?;
    tx.commit().await?;
    get(db, &Scope::Platform, DeviceId(id)).await
}

/// A device's changes, already checked by the caller (branch, lines, layout, model).
#[derive(Default)]
pub struct DeviceChanges {
    /// The branch (outer `None`: unchanged).
    pub branch_id: Option<Option<BranchId>>,
    /// The name.
    pub name: Option<String>,
    /// The MAC's 12 hex digits.
    pub mac: Option<String>,
    /// The model.
    pub model: Option<String>,
    /// The lines (replace the current ones).
    pub lines: Option<Vec<i64>>,
    /// The layout (outer `None`: unchanged).
    pub button_layout_id: Option<Option<ButtonLayoutId>>,
    /// The description.
    pub description: Option<String>,
}

/// Changes a device; anything its file renders grows its configuration version.
#[boxed]
pub async fn update(db: &Db, scope: &Scope, id: DeviceId, body: DeviceChanges) -> Result<Device> {
    let current = get(db, scope, id).await?;
    let layout_or_model = body.button_layout_id.is_some() || body.model.is_some();
    let mut changes: Changes = Vec::new();
    // The phone's file is rendered anew (its `configVersion` grows) only when something it
    // shows changes: a device sent back as it was read changes nothing (interface §2).
    let mut rendered = false;
    if let Some(branch) = body.branch_id {
        changes.push(("branch_id", branch.map(BranchId::get).into()));
    }
    if let Some(name) = body.name {
        rendered |= name != current.name;
        changes.push(("name", name.into()));
    }
    if let Some(mac) = body.mac {
        rendered |= display_mac(&mac) != current.mac;
        changes.push(("mac", mac.into()));
    }
    if let Some(model) = body.model {
        rendered |= model != current.model;
        changes.push(("model", model.into()));
    }
    if let Some(layout) = body.button_layout_id {
        rendered |= layout != current.button_layout_id;
        changes.push(("button_layout_id", layout.map(ButtonLayoutId::get).into()));
    }
    if let Some(description) = body.description {
        changes.push(("description", description.into()));
    }
    let mut tx = db.begin().await?;
    crud::update_in(&mut tx, "devices", id.get(), changes).await?;
    if layout_or_model {
        let read = Query::select()
            .columns(["button_layout_id", "model"])
            .from("devices")
            .and_where(Expr::col("id").eq(id.get()))
            .take();
        let (layout, model): (Option<i64>, String) = tx.fetch_one(&read).await?;
        layout_fits(&mut tx, layout, &model).await?;
    }
    if let Some(lines) = &body.lines {
        let kept: Vec<i64> = current.lines.iter().map(|line| line.id.get()).collect();
        if *lines != kept {
            replace_lines(&mut tx, id.get(), lines).await?;
            rendered = true;
        }
    }
    if rendered {
        config_changed(&mut tx, &[id.get()], "device").await?;
    }
    tx.commit().await?;
    get(db, scope, id).await
}

/// Replaces the provisioning password's hash of a device the caller reaches.
#[boxed]
pub async fn rotate_credentials(
    db: &Db,
    scope: &Scope,
    id: DeviceId,
    credentials: Credentials,
    sealer: &Sealer,
) -> Result<Device> {
    let device = get(db, scope, id).await?;
    let mut tx = db.begin().await?;
    let mut changes: Changes = vec![("provisioning_secret_hash", credentials.secret_hash.into())];
    changes.extend(sealed_digest_secrets(
        sealer,
        id.get(),
        &credentials.digest_secrets,
    ));
    crud::update_in(&mut tx, "devices", id.get(), changes).await?;
    tx.commit().await?;
    Ok(device)
}

/// Deletes a device with its lines, answering it as it was.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: DeviceId) -> Result<Device> {
    let device = get(db, scope, id).await?;
    let _: Row = crud::delete(db, select(scope), "d.id", "devices", id.get()).await?;
    Ok(device)
}

/// Whether device layout `layout` belongs to `tenant` and is for `model`: `None` when it
/// is not the tenant's, else whether the model matches.
#[boxed]
pub async fn layout_model(
    db: &Db,
    tenant: TenantId,
    layout: ButtonLayoutId,
) -> Result<Option<String>> {
    let select = Query::select()
        .column("device_model")
        .from("button_layouts")
        .and_where(Expr::col("id").eq(layout.get()))
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .take();
    Ok(db
        .conn()
        .fetch_optional::<(String,)>(&select)
        .await?
        .map(|(model,)| model))
}

/// The ids among `extensions` that are not extensions of `tenant`, with their positions.
#[boxed]
pub async fn foreign_extensions(
    db: &Db,
    tenant: TenantId,
    extensions: &[i64],
) -> Result<Vec<usize>> {
    if extensions.is_empty() {
        return Ok(Vec::new());
    }
    let select = Query::select()
        .column("id")
        .from("extensions")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("id").is_in(extensions.iter().copied()))
        .take();
    let found: Vec<(i64,)> = db.conn().fetch_all(&select).await?;
    Ok(extensions
        .iter()
        .enumerate()
        .filter(|(_, id)| !found.iter().any(|(f,)| f == *id))
        .map(|(n, _)| n)
        .collect())
}
