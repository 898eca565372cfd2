//! Desk phones with their ordered lines; their registration state; the configuration
//! version that grows, with a `DEVICE_CONFIG_CHANGED` event in the same transaction,
//! whenever what a phone's provisioning file renders changes.

use std::collections::HashMap;

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement, TableRef};
use serde_json::json;
use switchboard_domain::Scope;
use switchboard_domain::ids::{BranchId, ButtonLayoutId, DeviceId, ExtensionId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::device::{
    CreateDevice, Device, DeviceBranch, DeviceFilter, DeviceLine, IngestRegistration, display_mac,
};
use switchboard_domain::serde::{Deserialize, Serialize};

use crate::backend::{Db, Reader, Tx};
use crate::crud::{self, Changes};
use crate::error::{Error, Result};
use crate::events;
use crate::jobs::JobKind;
use crate::list::{self, Listing};
use crate::scope;
use crate::seal::{self, Sealer};

/// The event a changed provisioning file emits.
pub const CONFIG_CHANGED: &str = switchboard_domain::records::webhook::DEVICE_CONFIG_CHANGED;

/// A device row before its lines are attached.
#[derive(sqlx::FromRow)]
pub struct Row {
    id: i64,
    tenant_id: i64,
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

#[derive(sqlx::FromRow)]
struct LineRow {
    device_id: i64,
    id: i64,
    number: String,
    name: String,
}

/// The lines of `devices`, in order, with one query, read on `reader`.
async fn lines_on(
    reader: &mut impl Reader,
    devices: &[i64],
) -> Result<HashMap<i64, Vec<DeviceLine>>> {
    let mut out: HashMap<i64, Vec<DeviceLine>> = HashMap::new();
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
            id: ExtensionId(row.id),
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
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut lines = lines_on(reader, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|row| Device {
            id: DeviceId(row.id),
            tenant_id: TenantId(row.tenant_id),
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

/// The `query` of the device list when it is not (part of) a MAC: the name as a
/// case-insensitive substring, served by the trigram indexes (SQLite FTS5, PostgreSQL
/// pg_trgm) for texts of three characters or more.
fn name_search(db: &Db, text: &str) -> Condition {
    if db.keeps_search_tables() && text.chars().count() >= 3 {
        return Condition::all().add(Expr::col(("d", "id")).in_subquery(name_matches(db, text)));
    }
    Condition::all().add(list::contains("d.name", text))
}

/// The ids of the devices whose name holds `text`, case-insensitively.
fn name_matches(db: &Db, text: &str) -> SelectStatement {
    if db.keeps_search_tables() && text.chars().count() >= 3 {
        return Query::select()
            .column("rowid")
            .from("devices_search")
            .and_where(Expr::cust_with_values(
                "devices_search MATCH ?",
                [format!("name : \"{}\"", text.replace('"', "\"\""))],
            ))
            .take();
    }
    Query::select()
        .column(("n", "id"))
        .from_as("devices", "n")
        .and_where(list::contains("n.name", text))
        .take()
}

/// The devices whose MAC starts with `hex`: a range of the MAC index (stored MACs are
/// lowercase hex digits, all below `g`).
fn mac_prefix(hex: &str) -> Condition {
    Condition::all()
        .add(Expr::col(("d", "mac")).gte(hex))
        .add(Expr::col(("d", "mac")).lt(format!("{hex}g")))
}

/// Above this many phones under a MAC prefix, its search walks the list's own index
/// (one phone in a few matches, so a page is found within a few pages' rows) instead of
/// gathering every match first.
const DENSE_PREFIX: i64 = 1_000;

/// A search for (part of) a MAC of 6 to 12 hex digits, `hex`, typed as `text`.
struct MacSearch {
    /// What the list's rows must meet.
    condition: Condition,
    /// The ids matching otherwise than by prefix (name, or the digits further in).
    others: SelectStatement,
    /// The phones under the prefix the caller reaches, from the counters (`None` for a
    /// whole MAC, which names one phone at most).
    prefixed: Option<i64>,
}

/// The `query` of the device list when it is (part of) a MAC in any notation: its hex
/// digits anywhere in the stored MAC, or the text in the name. A prefix (a vendor's
/// phones) is a range of the MAC index counted by `device_prefix_counts`; the digits
/// further in are found through `device_mac_windows` (migration 0018); the name through
/// its trigram index.
async fn mac_search(
    db: &Db,
    scope: &Scope,
    filter: &DeviceFilter,
    text: &str,
    hex: &str,
) -> Result<MacSearch> {
    let inside = Query::select()
        .column(("w", "device_id"))
        .from_as("device_mac_windows", "w")
        .inner_join(
            TableRef::from("devices").alias("x"),
            Expr::col(("x", "id")).equals(("w", "device_id")),
        )
        .and_where(Expr::col(("w", "win")).eq(&hex[..6]))
        .and_where(Expr::cust("substr(x.mac, 2)").like(format!("%{hex}%")))
        .take();
    let mut others = name_matches(db, text);
    others.union(sea_query::UnionType::All, inside);
    let prefixed = if hex.len() < 12 {
        let sum = sum_counters(
            db,
            scope,
            filter,
            "device_prefix_counts",
            Condition::all().add(Expr::col(("c", "prefix")).eq(hex)),
        );
        Some(sum.await?)
    } else {
        None
    };
    let condition = if prefixed.unwrap_or(0) > DENSE_PREFIX {
        Condition::any()
            .add(mac_prefix(hex))
            .add(Expr::col(("d", "id")).in_subquery(others.clone()))
    } else {
        let mut all = Query::select()
            .column(("d", "id"))
            .from_as("devices", "d")
            .cond_where(mac_prefix(hex))
            .take();
        all.union(sea_query::UnionType::All, others.clone());
        Condition::all().add(Expr::col(("d", "id")).in_subquery(all))
    };
    Ok(MacSearch {
        condition,
        others,
        prefixed,
    })
}

/// Lists the devices the caller reaches.
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

/// The sum of the `devices` counters of `table` (kept per tenant and branch, 0 for
/// none) the caller reaches under the filter's tenant and branch and `condition`.
async fn sum_counters(
    db: &Db,
    scope: &Scope,
    filter: &DeviceFilter,
    table: &'static str,
    condition: Condition,
) -> Result<i64> {
    let mut select = Query::select()
        .expr(Expr::cust("CAST(COALESCE(SUM(c.devices), 0) AS BIGINT)"))
        .from_as(table, "c")
        .cond_where(scope::tenants(scope, Expr::col(("c", "tenant_id"))))
        .cond_where(scope::branch(scope, Expr::col(("c", "branch_id"))))
        .cond_where(condition)
        .take();
    if let Some(tenant) = filter.place.tenant.tenant_id {
        select.and_where(Expr::col(("c", "tenant_id")).eq(tenant.get()));
    }
    if let Some(branch) = filter.place.branch_id {
        select.and_where(Expr::col(("c", "branch_id")).eq(branch.get()));
    }
    db.conn().scalar(&select).await
}

/// One device with its lines.
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

#[derive(sqlx::FromRow)]
struct Changed {
    id: i64,
    tenant_id: i64,
    mac: String,
    config_version: i64,
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Grows the configuration version of `devices` and emits `DEVICE_CONFIG_CHANGED` for
/// each, inside `tx` (the transaction of the change that caused it).
pub async fn config_changed(tx: &mut Tx, devices: &[i64], reason: &str) -> Result<()> {
    for id in devices {
        crud::update_in(
            tx,
            "devices",
            *id,
            vec![("config_version", Expr::cust("config_version + 1"))],
        )
        .await?;
        let read = Query::select()
            .columns(["id", "tenant_id", "mac", "config_version"])
            .from("devices")
            .and_where(Expr::col("id").eq(*id))
            .take();
        let Some(changed) = tx.fetch_optional::<Changed>(&read).await? else {
            continue;
        };
        let data = json!({
            "deviceId": changed.id,
            "mac": display_mac(&changed.mac),
            "configVersion": changed.config_version,
            "reason": reason,
        });
        events::emit(tx, TenantId(changed.tenant_id), CONFIG_CHANGED, data, now()).await?;
    }
    Ok(())
}

/// The job announcing a change to every phone of a tenant, a batch at a time: the
/// tenant's phones after device `after` (`{"tenantId": …, "after": …, "reason": …}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "switchboard_domain::serde", rename_all = "camelCase")]
pub struct Reprovision {
    /// The tenant whose phones are announced.
    pub tenant_id: TenantId,
    /// The last device announced by the batches before (0 to start).
    #[serde(default)]
    pub after: i64,
    /// Why, as each phone's DEVICE_CONFIG_CHANGED event says.
    #[serde(default = "Reprovision::default_reason")]
    pub reason: String,
}

impl Reprovision {
    /// The reason a job queued before reasons were kept gives.
    fn default_reason() -> String {
        "tenant".to_owned()
    }
}

impl JobKind for Reprovision {
    const KIND: &'static str = "devices.reprovision";
}

/// Phones announced per transaction of a [`Reprovision`] job: a short transaction each,
/// however many phones the tenant has.
pub const REPROVISION_BATCH: u64 = 500;

/// Queues, in `tx`, the announcement of a change to every phone of `tenant`.
pub async fn reprovision_later(tx: &mut Tx, tenant: TenantId, reason: &str) -> Result<()> {
    let job = Reprovision {
        tenant_id: tenant,
        after: 0,
        reason: reason.to_owned(),
    };
    crate::jobs::enqueue(tx, &job, now()).await
}

/// One batch of a [`Reprovision`] job: the configuration version of the next
/// [`REPROVISION_BATCH`] phones of its tenant after its device `after` grows, with an
/// event each, and the job for the rest is queued in the same transaction (a crash
/// between batches loses nothing; a batch run twice announces its phones twice,
/// harmlessly).
pub async fn reprovision_batch(db: &Db, job: &Reprovision) -> Result<()> {
    let mut tx = db.begin().await?;
    let select = Query::select()
        .column("id")
        .from("devices")
        .and_where(Expr::col("tenant_id").eq(job.tenant_id.get()))
        .and_where(Expr::col("id").gt(job.after))
        .order_by("id", sea_query::Order::Asc)
        .limit(REPROVISION_BATCH)
        .take();
    let rows: Vec<(i64,)> = tx.fetch_all(&select).await?;
    let phones: Vec<i64> = rows.into_iter().map(|(id,)| id).collect();
    config_changed(&mut tx, &phones, &job.reason).await?;
    if let Some(&last) = phones.last()
        && phones.len() as u64 == REPROVISION_BATCH
    {
        let rest = Reprovision {
            after: last,
            ..job.clone()
        };
        crate::jobs::enqueue(&mut tx, &rest, now()).await?;
    }
    tx.commit().await
}

/// The devices whose provisioning file shows extension `id`: those it is a line of, and
/// those whose layout has a key watching it.
pub async fn showing_extension(tx: &mut Tx, id: ExtensionId) -> Result<Vec<i64>> {
    let select = Query::select()
        .column("id")
        .from("devices")
        .cond_where(
            Condition::any()
                .add(
                    Expr::col("id").in_subquery(
                        Query::select()
                            .column("device_id")
                            .from("device_lines")
                            .and_where(Expr::col("extension_id").eq(id.get()))
                            .take(),
                    ),
                )
                .add(
                    Expr::col("button_layout_id").in_subquery(
                        Query::select()
                            .column("layout_id")
                            .from("button_layout_keys")
                            .and_where(Expr::col("extension_id").eq(id.get()))
                            .take(),
                    ),
                ),
        )
        .order_by("id", sea_query::Order::Asc)
        .take();
    let rows: Vec<(i64,)> = tx.fetch_all(&select).await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// The devices registering as one of `extensions` (a line of theirs): the ones whose
/// file carries the SIP account of the extension's user.
pub async fn with_lines(tx: &mut Tx, extensions: &[i64]) -> Result<Vec<i64>> {
    if extensions.is_empty() {
        return Ok(Vec::new());
    }
    let select = Query::select()
        .distinct()
        .column("device_id")
        .from("device_lines")
        .and_where(Expr::col("extension_id").is_in(extensions.iter().copied()))
        .order_by("device_id", sea_query::Order::Asc)
        .take();
    let rows: Vec<(i64,)> = tx.fetch_all(&select).await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// After a user's SIP account (peer name or secret) or extension changed inside `tx`:
/// every phone registering as its old or new extension renders another account.
pub async fn sip_account_changed(tx: &mut Tx, extensions: &[i64]) -> Result<()> {
    let phones = with_lines(tx, extensions).await?;
    config_changed(tx, &phones, "sip-account").await
}

/// The devices using layout `id`.
pub async fn using_layout(tx: &mut Tx, id: ButtonLayoutId) -> Result<Vec<i64>> {
    let select = Query::select()
        .column("id")
        .from("devices")
        .and_where(Expr::col("button_layout_id").eq(id.get()))
        .order_by("id", sea_query::Order::Asc)
        .take();
    let rows: Vec<(i64,)> = tx.fetch_all(&select).await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
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
pub async fn delete(db: &Db, scope: &Scope, id: DeviceId) -> Result<Device> {
    let device = get(db, scope, id).await?;
    let _: Row = crud::delete(db, select(scope), "d.id", "devices", id.get()).await?;
    Ok(device)
}

/// Notes that device `id` fetched its configuration file at `at`: an observation of
/// the phone, like its registration, not an administrative change (never audited, no
/// new configuration version).
pub async fn fetched(db: &Db, id: i64, at: chrono::DateTime<chrono::Utc>) -> Result<()> {
    let update = Query::update()
        .table("devices")
        .value("last_fetched_at", switchboard_domain::validation::iso(at))
        .and_where(Expr::col("id").eq(id))
        .take();
    db.conn().execute(&update).await?;
    Ok(())
}

/// Records what the engine saw of the phone with MAC `body.mac` (12 hex digits);
/// `NotFound` for a MAC no tenant has.
pub async fn register(db: &Db, body: IngestRegistration) -> Result<Device> {
    let find = Query::select()
        .column("id")
        .from("devices")
        .and_where(Expr::col("mac").eq(body.mac.as_str()))
        .take();
    let (id,): (i64,) = db.conn().fetch_one(&find).await?;
    let mut changes: Changes = vec![("registered", i64::from(body.registered).into())];
    if body.registered {
        let at = body.at.unwrap_or_else(chrono::Utc::now);
        changes.push((
            "last_registered_at",
            switchboard_domain::validation::iso(at).into(),
        ));
    }
    if let Some(address) = body.ip_address {
        changes.push(("ip_address", address.into()));
    }
    if let Some(agent) = body.user_agent {
        changes.push(("user_agent", agent.into()));
    }
    let mut tx = db.begin().await?;
    crud::update_in(&mut tx, "devices", id, changes).await?;
    tx.commit().await?;
    get(db, &Scope::Platform, DeviceId(id)).await
}

/// Whether device layout `layout` belongs to `tenant` and is for `model`: `None` when it
/// is not the tenant's, else whether the model matches.
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

/// A device as its provisioning file needs it, with the hash its fetch is checked
/// against.
pub struct Provisioned {
    /// The device's id.
    pub id: i64,
    /// Its model.
    pub model: String,
    /// The user name of its fetches.
    pub username: String,
    /// SHA-256 (hex) of its provisioning password.
    pub secret_hash: String,
    /// Its Digest secrets (MD5, SHA-256), `None` for a device whose password was made
    /// before Digest (Basic only until it is rotated).
    pub digest_secrets: Option<(String, String)>,
    /// What the file shows, but the registrar (the caller's setting).
    pub config: switchboard_domain::provisioning::PhoneConfig,
}

#[derive(sqlx::FromRow)]
struct ProvisionedRow {
    id: i64,
    name: String,
    mac: String,
    model: String,
    button_layout_id: Option<i64>,
    config_version: i64,
    provisioning_username: String,
    provisioning_secret_hash: String,
    provisioning_digest_md5_secret: Option<String>,
    provisioning_digest_sha256_secret: Option<String>,
    timezone: String,
}

#[derive(sqlx::FromRow)]
struct SipRow {
    number: String,
    name: String,
    peer_name: Option<String>,
    peer_secret: Option<String>,
}

#[derive(sqlx::FromRow)]
struct RenderedKeyRow {
    key_index: i64,
    kind: String,
    value: Option<String>,
    label: Option<String>,
    target_number: Option<String>,
    target_name: Option<String>,
}

/// A device's Digest secrets opened from their seals; `None` when it has none (made
/// before Digest) or one does not open (sealed for another row or under another key:
/// logged, and the phone is left to Basic).
fn open_digest_secrets(
    sealer: &Sealer,
    id: i64,
    md5: Option<String>,
    sha256: Option<String>,
) -> Option<(String, String)> {
    let (md5, sha256) = md5.zip(sha256)?;
    let open = |seat, sealed: &str| {
        sealer
            .open(seat, sealed)
            .and_then(|plain| String::from_utf8(plain).ok())
    };
    let opened =
        open(seal::device_digest_md5(id), &md5).zip(open(seal::device_digest_sha256(id), &sha256));
    if opened.is_none() {
        tracing::warn!(device = id, "a device's Digest secrets do not open");
    }
    opened
}

/// Notes that a provisioning Digest answer with `nonce` and `nc` was accepted, answering
/// whether it is the first (a replay of a captured answer is not): one row per pair,
/// kept until `expires_at` (unix seconds, the nonce's expiry), shared by every process.
pub async fn first_digest_use(db: &Db, nonce: &str, nc: &str, expires_at: i64) -> Result<bool> {
    let insert = Query::insert()
        .into_table("provisioning_digest_uses")
        .columns(["nonce", "nc", "expires_at"])
        .values_panic([nonce.into(), nc.into(), expires_at.into()])
        .on_conflict(
            sea_query::OnConflict::columns(["nonce", "nc"])
                .do_nothing()
                .to_owned(),
        )
        .take();
    Ok(db.conn().execute(&insert).await? == 1)
}

/// Deletes the Digest uses of nonces expired before `now` (unix seconds), answering how
/// many: their answers are refused as stale anyway.
pub async fn prune_digest_uses(db: &Db, now: i64) -> Result<u64> {
    let delete = Query::delete()
        .from_table("provisioning_digest_uses")
        .and_where(Expr::col("expires_at").lt(now))
        .take();
    db.conn().execute(&delete).await
}

/// The device with MAC `mac` (12 hex digits) as its file shows it, its Digest secrets
/// opened; `None` for a MAC no tenant has. The SIP account of each line is the
/// extension's number with the peer name and secret of the first user (by id) the
/// extension belongs to.
pub async fn provisioned(db: &Db, mac: &str, sealer: &Sealer) -> Result<Option<Provisioned>> {
    use switchboard_domain::provisioning::{PhoneConfig, RenderedKey, SipLine};
    let select = Query::select()
        .columns([
            ("d", "id"),
            ("d", "name"),
            ("d", "mac"),
            ("d", "model"),
            ("d", "button_layout_id"),
            ("d", "config_version"),
            ("d", "provisioning_username"),
            ("d", "provisioning_secret_hash"),
            ("d", "provisioning_digest_md5_secret"),
            ("d", "provisioning_digest_sha256_secret"),
        ])
        .column(("t", "timezone"))
        .from_as("devices", "d")
        .inner_join(
            TableRef::from("tenants").alias("t"),
            Expr::col(("t", "id")).equals(("d", "tenant_id")),
        )
        .and_where(Expr::col(("d", "mac")).eq(mac))
        .take();
    let Some(row) = db.conn().fetch_optional::<ProvisionedRow>(&select).await? else {
        return Ok(None);
    };
    let first_user = |column: &str| {
        Expr::cust(format!(
            "(SELECT u.{column} FROM users u WHERE u.ext_id = e.id ORDER BY u.id LIMIT 1)"
        ))
    };
    let lines = Query::select()
        .columns([("e", "number"), ("e", "name")])
        .expr_as(first_user("peer_name"), "peer_name")
        .expr_as(first_user("peer_secret"), "peer_secret")
        .from_as("device_lines", "l")
        .inner_join(
            TableRef::from("extensions").alias("e"),
            Expr::col(("e", "id")).equals(("l", "extension_id")),
        )
        .and_where(Expr::col(("l", "device_id")).eq(row.id))
        .order_by(("l", "position"), sea_query::Order::Asc)
        .take();
    let lines: Vec<SipRow> = db.conn().fetch_all(&lines).await?;
    let keys = match row.button_layout_id {
        None => None,
        Some(layout) => {
            let select = Query::select()
                .columns([
                    ("k", "key_index"),
                    ("k", "kind"),
                    ("k", "value"),
                    ("k", "label"),
                ])
                .expr_as(Expr::cust("COALESCE(e.number, g.number)"), "target_number")
                .expr_as(Expr::cust("COALESCE(e.name, g.name)"), "target_name")
                .from_as("button_layout_keys", "k")
                .left_join(
                    TableRef::from("extensions").alias("e"),
                    Expr::col(("e", "id")).equals(("k", "extension_id")),
                )
                .left_join(
                    TableRef::from("paging_groups").alias("g"),
                    Expr::col(("g", "id")).equals(("k", "paging_group_id")),
                )
                .and_where(Expr::col(("k", "layout_id")).eq(layout))
                .order_by(("k", "key_index"), sea_query::Order::Asc)
                .take();
            let rows: Vec<RenderedKeyRow> = db.conn().fetch_all(&select).await?;
            Some(
                rows.into_iter()
                    .map(|k| RenderedKey {
                        index: k.key_index,
                        kind: k.kind,
                        value: k.target_number.or(k.value),
                        label: k.label.or(k.target_name),
                    })
                    .collect(),
            )
        }
    };
    let config = PhoneConfig {
        device_id: row.id,
        name: row.name,
        mac: row.mac,
        config_version: row.config_version,
        timezone: row.timezone,
        sip_server: String::new(),
        sip_port: 5060,
        lines: lines
            .into_iter()
            .map(|l| SipLine {
                auth_name: l
                    .peer_name
                    .filter(|p| !p.is_empty())
                    .unwrap_or_else(|| l.number.clone()),
                password: l.peer_secret.unwrap_or_default(),
                number: l.number,
                name: l.name,
            })
            .collect(),
        keys,
    };
    Ok(Some(Provisioned {
        id: row.id,
        model: row.model,
        username: row.provisioning_username,
        secret_hash: row.provisioning_secret_hash,
        digest_secrets: open_digest_secrets(
            sealer,
            row.id,
            row.provisioning_digest_md5_secret,
            row.provisioning_digest_sha256_secret,
        ),
        config,
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod reprovision_tests {
    use super::*;

    #[test]
    fn a_reprovision_job_queued_the_old_way_is_read() {
        // As `json!` wrote them before the payload was a struct: keys sorted, and the
        // first announcements without `after` or `reason`.
        let written = r#"{"after":500,"reason":"tenant-timezone","tenantId":7}"#;
        assert_eq!(
            Reprovision::from_payload(written).unwrap(),
            Reprovision {
                tenant_id: TenantId(7),
                after: 500,
                reason: "tenant-timezone".into(),
            }
        );
        let oldest = Reprovision::from_payload(r#"{"tenantId":7}"#).unwrap();
        assert_eq!((oldest.after, oldest.reason.as_str()), (0, "tenant"));
        assert!(Reprovision::from_payload(r#"{"after":1}"#).is_err());
        let again = Reprovision::from_payload(&oldest.to_payload().unwrap()).unwrap();
        assert_eq!(again, oldest);
    }
}
