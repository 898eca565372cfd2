//! What the phones themselves do: fetch their provisioning file (the device as the file
//! needs it, its Digest secrets opened, each Digest answer's nonce used once) and register
//! (what the engine saw of them). Observations, never administrative changes.

use sea_query::{Expr, ExprTrait, Query, TableRef};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::DeviceId;
use switchboard_domain::records::device::{Device, IngestRegistration};

use super::get;
use crate::backend::Db;
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::seal::{self, Sealer};

/// Notes that device `id` fetched its configuration file at `at`: an observation of
/// the phone, like its registration, not an administrative change (never audited, no
/// new configuration version).
#[boxed]
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
#[boxed]
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

#[derive(switchboard_domain::declare::FromRow)]
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

#[derive(switchboard_domain::declare::FromRow)]
struct SipRow {
    number: String,
    name: String,
    peer_name: Option<String>,
    peer_secret: Option<String>,
}

#[derive(switchboard_domain::declare::FromRow)]
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
#[boxed]
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
#[boxed]
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
#[boxed]
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
        device_id: DeviceId(row.id),
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
