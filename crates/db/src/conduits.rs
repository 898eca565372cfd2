//! Conduits of a tenant, their credentials sealed here bound to their row
//! (`crate::seal`) and never selected into an answer.

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{ConduitId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::conduit::{
    Conduit, ConduitDirection, ConduitFilter, ConduitKind, ConduitStatus, CreateConduit,
    UpdateConduit,
};

use crate::backend::{Db, Tx};
use crate::changes;
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;
use crate::seal::{Sealer, Seat};

/// A conduit as read: every column but the sealed credentials, which stay in the table.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct ConduitRow {
    /// Id.
    pub id: ConduitId,
    /// Tenant.
    pub tenant_id: TenantId,
    /// sip-trunk, carrier, pharmacy-system or crm.
    pub kind: ConduitKind,
    /// Name.
    pub name: String,
    /// inbound, outbound or both.
    pub direction: ConduitDirection,
    /// active, disabled or failing.
    pub status: ConduitStatus,
    /// SIP host or URL.
    pub address: String,
    /// 1 when a credential is stored.
    pub has_credentials: i64,
    /// Last check, Unix seconds.
    pub last_checked_at: Option<i64>,
    /// 1 when the last check passed, 0 when it failed.
    pub last_check_ok: Option<i64>,
    /// What the last check said.
    pub last_check_detail: String,
    /// Phone numbers routed through it.
    pub numbers_count: i64,
}

impl ConduitRow {
    /// The conduit as answered.
    pub fn into_conduit(self) -> Conduit {
        Conduit {
            id: self.id,
            tenant_id: self.tenant_id,
            kind: self.kind,
            name: self.name,
            direction: self.direction,
            status: self.status,
            address: self.address,
            has_credentials: self.has_credentials == 1,
            last_checked_at: crate::calls::iso_at(self.last_checked_at),
            last_check_ok: self.last_check_ok.map(|ok| ok == 1),
            last_check_detail: self.last_check_detail,
            numbers_count: self.numbers_count,
        }
    }
}

/// The seat of a conduit's user name.
fn username_seat(id: i64) -> Seat {
    Seat {
        table: "conduits",
        column: "username_sealed",
        id,
    }
}

/// The seat of a conduit's password or API key.
fn secret_seat(id: i64) -> Seat {
    Seat {
        table: "conduits",
        column: "secret_sealed",
        id,
    }
}

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns([
            "id",
            "tenant_id",
            "kind",
            "name",
            "direction",
            "status",
            "address",
            "last_checked_at",
            "last_check_ok",
            "last_check_detail",
        ])
        .expr_as(
            Expr::cust(
                "CAST(CASE WHEN username_sealed IS NULL AND secret_sealed IS NULL \
                 THEN 0 ELSE 1 END AS BIGINT)",
            ),
            "has_credentials",
        )
        .expr_as(
            Expr::cust("(SELECT COUNT(*) FROM phone_numbers n WHERE n.conduit_id = conduits.id)"),
            "numbers_count",
        )
        .from("conduits")
        .cond_where(scope::tenants(scope, Expr::col("tenant_id")))
        .take()
}

/// Lists the conduits the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &ConduitFilter,
    query: &ListQuery,
) -> Result<Listing<ConduitRow>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col("tenant_id").eq(tenant.get()));
    }
    if let Some(kind) = &filter.kind {
        select.and_where(Expr::col("kind").eq(kind.as_str()));
    }
    list::run(db, select, Conduit::SPEC, query).await
}

/// One conduit.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: ConduitId) -> Result<ConduitRow> {
    crud::get(db, select(scope), "id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Conduit>> {
    let row: Option<ConduitRow> = crud::find_on(tx, select(&Scope::Platform), "id", id).await?;
    Ok(row.map(ConduitRow::into_conduit))
}

/// The sealed credential columns to write for row `id`: `None` leaves one unchanged,
/// `Some(None)` removes it.
fn credentials(
    id: i64,
    sealer: &Sealer,
    username: Option<Option<String>>,
    secret: Option<Option<String>>,
) -> Changes {
    let mut changes: Changes = Vec::new();
    if let Some(username) = username {
        let sealed = username.map(|u| sealer.seal(username_seat(id), u.as_bytes()));
        changes.push(("username_sealed", sealed.into()));
    }
    if let Some(secret) = secret {
        let sealed = secret.map(|s| sealer.seal(secret_seat(id), s.as_bytes()));
        changes.push(("secret_sealed", sealed.into()));
    }
    changes
}

/// Creates a conduit of `tenant`, sealing its credentials bound to the new row.
#[boxed]
pub async fn create(
    db: &Db,
    tenant: TenantId,
    body: CreateConduit,
    sealer: &Sealer,
    now: i64,
) -> Result<ConduitRow> {
    // The seal binds the row's id, known once inserted: the row is written without its
    // credentials, then they are sealed and set, in the same transaction.
    let mut tx = db.begin().await?;
    let mut columns = changes::with_tenant(tenant, &body);
    columns.push(("created_at", now.into()));
    let id = crud::insert_in(&mut tx, "conduits", columns).await?;
    let sealed = credentials(id, sealer, Some(body.username), Some(body.secret));
    let update = Query::update()
        .table("conduits")
        .values(sealed)
        .and_where(Expr::col("id").eq(id))
        .take();
    tx.execute(&update).await?;
    tx.commit().await?;
    get(db, &Scope::Platform, ConduitId(id)).await
}

/// Changes a conduit, sealing new credentials.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: ConduitId,
    body: UpdateConduit,
    sealer: &Sealer,
) -> Result<ConduitRow> {
    let mut changes = changes::of(&body);
    changes.extend(credentials(id.get(), sealer, body.username, body.secret));
    crud::update(db, select(scope), "id", "conduits", id.get(), changes).await
}

/// Deletes a conduit (the numbers routed through it keep their settings, without it).
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: ConduitId) -> Result<ConduitRow> {
    crud::delete(db, select(scope), "id", "conduits", id.get()).await
}

/// The status a check moves a conduit in `status` to: a failed check makes an active
/// conduit failing, a passed one a failing conduit active; `disabled` (an administrator's
/// decision) never moves.
pub fn status_after_check(status: &str, ok: bool) -> &str {
    match (status, ok) {
        ("active", false) => "failing",
        ("failing", true) => "active",
        _ => status,
    }
}

/// What recording a check did.
#[derive(Clone, Debug)]
pub struct Checked {
    /// Whether it was recorded (not older than the last check known).
    pub recorded: bool,
    /// The status before it.
    pub previous_status: String,
    /// The status after it.
    pub status: String,
}

/// Records a health check of conduit `id` of `tenant` made at `at`: its time, outcome and
/// detail, and the status it moves the conduit to (see [`status_after_check`]), emitting
/// CONDUIT_STATUS_CHANGED when the status moves. A check older than the last one
/// recorded changes nothing (checks may arrive out of order). The row is locked for the
/// transaction, so concurrent checks apply one after the other. The status change is
/// audited when the caller runs this as an actor (the ingest endpoint: the system).
#[boxed]
pub async fn record_check(
    db: &Db,
    tenant: TenantId,
    id: ConduitId,
    (ok, at, detail): (bool, i64, &str),
    now: i64,
) -> Result<Checked> {
    let mut tx = db.begin().await?;
    let current = Query::select()
        .columns(["status", "last_checked_at"])
        .from("conduits")
        .and_where(Expr::col("id").eq(id.get()))
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .lock(sea_query::LockType::Update)
        .take();
    let (status, last): (String, Option<i64>) = tx.fetch_one(&current).await?;
    if last.is_some_and(|last| last > at) {
        return Ok(Checked {
            recorded: false,
            previous_status: status.clone(),
            status,
        });
    }
    // The check itself is the engine's observation, not an administrative change: not
    // audited (a check a minute would bury the trail); the status it moves is.
    let noted = Query::update()
        .table("conduits")
        .value("last_checked_at", at)
        .value("last_check_ok", i64::from(ok))
        .value("last_check_detail", detail)
        .and_where(Expr::col("id").eq(id.get()))
        .take();
    tx.execute(&noted).await?;
    let next = status_after_check(&status, ok).to_owned();
    if next != status {
        let moved = crud::update_if(
            &mut tx,
            "conduits",
            id.get(),
            Condition::all().add(Expr::col("status").eq(status.as_str())),
            vec![("status", next.clone().into())],
        )
        .await?;
        if moved {
            let data = serde_json::json!({
                "conduitId": id.get(),
                "tenantId": tenant.get(),
                "previousStatus": status,
                "status": next,
                "ok": ok,
                "detail": detail,
                "checkedAt": crate::calls::iso_at(Some(at)),
            });
            crate::events::emit(&mut tx, tenant, "CONDUIT_STATUS_CHANGED", data, now).await?;
        }
    }
    tx.commit().await?;
    Ok(Checked {
        recorded: true,
        previous_status: status,
        status: next,
    })
}
