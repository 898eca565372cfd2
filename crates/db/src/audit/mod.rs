//! Writing and reading the audit trail.
//!
//! Every create, update and delete of an audited table (see [`AUDITED`]) made through
//! [`crate::crud`] while an actor is known writes an entry in the same transaction as the
//! change (when it commits, so the lists a record owns are final): entity, id, action,
//! who, the tenant, the client address, and the changed fields before and after, named
//! and shaped as the API answers the record (see `snapshot`). The actor is ambient: the HTTP layer runs each request
//! inside [`acting`] and names the authenticated user with [`identify`], so no handler
//! or repository passes it along and none can forget it.

use sea_query::{Expr, ExprTrait, Query, SelectStatement, TableRef};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{AuditEntryId, TenantId, UserId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::audit::{AuditEntry, AuditFilter};

use self::actor::current;
pub use self::actor::{Actor, acting, acting_as, identify};
pub use self::pending::Snapshot;
use self::pending::{Pending, Shot};
use crate::backend::{Db, Tx};
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

pub(crate) mod actor;
pub(crate) mod pending;

/// An entry to record.
#[derive(Clone, Debug, Default)]
pub struct NewEntry {
    /// What happened.
    pub action: &'static str,
    /// The kind of record concerned.
    pub entity: &'static str,
    /// The record's id.
    pub entity_id: Option<String>,
    /// The tenant concerned.
    pub tenant_id: Option<TenantId>,
    /// The user concerned.
    pub user_id: Option<UserId>,
    /// That user's e-mail address.
    pub user_email: String,
    /// The client address.
    pub client_address: String,
    /// Further facts.
    pub details: serde_json::Value,
}

/// The audited tables and the entity name their entries carry. A new resource is
/// audited by adding its table here (its writes going through [`crate::crud`]).
pub const AUDITED: &[(&str, &str)] = &[
    ("partners", "partner"),
    ("tenants", "tenant"),
    ("branches", "branch"),
    ("users", "user"),
    ("extensions", "extension"),
    ("ivrs", "ivr"),
    ("paging_groups", "paging-group"),
    ("business_hours", "business-hours"),
    ("holidays", "holiday"),
    ("announcements", "announcement"),
    ("media_files", "media-file"),
    ("phone_numbers", "phone-number"),
    ("webhooks", "webhook"),
    ("voicemail_messages", "voicemail-message"),
    ("calls", "call-recording"),
    ("devices", "device"),
    ("button_layouts", "button-layout"),
    ("custom_voices", "custom-voice"),
    ("mms_media", "mms-media"),
    ("queues", "queue"),
    ("conduits", "conduit"),
    ("music_on_hold", "music-on-hold"),
    ("faxes", "fax"),
    ("call_campaigns", "call-campaign"),
    ("campaign_records", "call-campaign-record"),
    ("opt_outs", "opt-out"),
    ("call_outcomes", "call-outcome"),
    ("pharmacy_agents", "pharmacy-agent"),
];

/// Whether a column holds a secret (a password, a sealed credential, a token, a TOTP or
/// recovery code): never read into the trail; a change to one is noted as `********`.
pub fn is_secret(column: &str) -> bool {
    ["password", "secret", "token", "totp", "recovery", "sealed"]
        .iter()
        .any(|word| column.contains(word))
}

/// The audited entity name of `table`.
pub(crate) fn entity_of(table: &str) -> Option<&'static str> {
    AUDITED
        .iter()
        .find(|(name, _)| *name == table)
        .map(|(_, entity)| *entity)
}

/// Row `id` of `table` as the trail shows it, and the tenant whose trail it is in:
/// the record as the API answers it (one serialiser for both, so an entry can be diffed
/// against what a client read), less what an answer makes for its one reader (signed
/// links, which expire: see [`READ_TIME`]); `None` when there is no such row. A call is
/// shown as its recording is answered (its audited change is the recording's
/// deletion). A table the API answers no record of keeps its columns (secrets left out)
/// in the API's camelCase. A table whose record owns lists in other
/// tables (a queue's members, a paging group's destinations) is read here as a whole:
/// its writers need nothing more, as long as the owner's own write (`crud::insert_in`,
/// `update_in` — even with no column changed — or `delete_in`) comes first in the
/// transaction, which snapshots the owner with its lists as they were.
async fn snapshot(tx: &mut Tx, table: &'static str, id: i64) -> Result<Option<Shot>> {
    // The presenters are given by the layer above every store module (see
    // `crate::presented`): the transaction carries them.
    let present = tx
        .audit
        .present
        .iter()
        .find(|(name, _)| *name == table)
        .map(|(_, present)| *present);
    let fields = match present {
        Some(present) => present(tx, id).await,
        None => Ok(tx.row_json(table, id, keep).await?),
    }?;
    let Some(mut fields) = fields else {
        return Ok(None);
    };
    for (shaped, made) in READ_TIME {
        if *shaped == table {
            for field in *made {
                fields.remove(*field);
            }
        }
    }
    let tenant = match tenant_in(table, id, &fields) {
        Some(tenant) => Some(tenant),
        // A record the API answers without its tenant (a holiday, a campaign's record).
        None => tx
            .row_json(table, id, |column| column == "tenant_id")
            .await?
            .and_then(|row| tenant_in(table, id, &row)),
    };
    Ok(Some(Shot { fields, tenant }))
}

/// What an answer makes for its one reader and the trail leaves out, by table: links
/// signed for that reader, which expire, and a fax's attempts (the engine's reports, not
/// the fax's fields; an entry would grow with each).
pub const READ_TIME: &[(&str, &[&str])] = &[
    ("calls", &["mediaURL"]),
    ("faxes", &["documentUrl", "attempts"]),
    ("media_files", &["url", "renditionUrl", "urlExpiresAt"]),
    ("mms_media", &["url"]),
    ("voicemail_messages", &["mediaURL"]),
];

/// A record as the API serialises it (`null`: there is none), as a snapshot.
pub(crate) fn object(record: serde_json::Result<serde_json::Value>) -> Result<Option<Snapshot>> {
    match record {
        Ok(serde_json::Value::Object(map)) => Ok(Some(map)),
        Ok(_) => Ok(None),
        Err(error) => Err(crate::Error::Presenting(format!(
            "a record could not be written to the audit trail: {error}"
        ))),
    }
}

/// Records as the API serialises them, as snapshots.
pub(crate) fn objects<T: switchboard_domain::serde::Serialize>(
    records: Vec<T>,
) -> Result<Vec<Snapshot>> {
    records
        .into_iter()
        .map(|record| object(serde_json::to_value(record)).map(Option::unwrap_or_default))
        .collect()
}

/// Starts auditing a write of row `id` of `table` (reads the row as it is), or `None`
/// when the table is not audited, no actor is known, or the row's write is audited
/// already in this transaction (its first snapshot is the before).
pub(crate) async fn begin(
    tx: &mut Tx,
    table: &'static str,
    id: Option<i64>,
) -> Result<Option<Pending>> {
    let (Some(entity), Some(actor)) = (entity_of(table), current()) else {
        return Ok(None);
    };
    if let Some(id) = id
        && tx.audits.iter().any(|p| p.table == table && p.id == id)
    {
        return Ok(None);
    }
    let before = match id {
        Some(id) => snapshot(tx, table, id).await?,
        None => None,
    };
    Ok(Some(Pending {
        table,
        entity,
        actor,
        id: id.unwrap_or(0),
        before,
        secrets: Vec::new(),
    }))
}

/// Keeps `pending`, the write of row `id` of `table` that set the secret columns
/// `secrets`, to be written to the trail when the transaction commits; a further write
/// of a row audited already adds its secrets to the first one's entry.
pub(crate) fn defer(
    tx: &mut Tx,
    table: &'static str,
    pending: Option<Pending>,
    id: i64,
    secrets: &[&'static str],
) {
    if let Some(mut pending) = pending {
        if pending.id == 0 {
            pending.id = id;
        }
        tx.audits.push(pending);
    }
    if let Some(pending) = tx
        .audits
        .iter_mut()
        .find(|p| p.table == table && p.id == id)
    {
        for secret in secrets {
            if !pending.secrets.contains(secret) {
                pending.secrets.push(secret);
            }
        }
    }
}

/// Writes the entries of the transaction's audited writes, each comparing the row (and
/// its child lists) as it was before its first write with how it is now.
pub(crate) async fn flush(tx: &mut Tx) -> Result<()> {
    for pending in std::mem::take(&mut tx.audits) {
        pending.finish(tx).await?;
    }
    Ok(())
}

fn keep(column: &str) -> bool {
    !is_secret(column)
}

/// `snake_case` column names as the API spells fields.
fn camel(column: &str) -> String {
    let mut out = String::with_capacity(column.len());
    let mut upper = false;
    for c in column.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn camel_map(map: Snapshot) -> serde_json::Value {
    serde_json::Value::Object(map.into_iter().map(|(k, v)| (camel(&k), v)).collect())
}

fn tenant_in(table: &str, id: i64, row: &Snapshot) -> Option<TenantId> {
    if table == "tenants" {
        return Some(TenantId(id));
    }
    row.get("tenant_id")
        .or_else(|| row.get("tenantId"))
        .and_then(serde_json::Value::as_i64)
        .filter(|t| *t > 0)
        .map(TenantId)
}

impl Pending {
    /// Writes the entry of the finished write in `tx`. An update that changed nothing
    /// writes nothing; a deleted row (`after` gone) is a delete. A secret the write set
    /// shows as `********` under the field the API's body names it by.
    async fn finish(self, tx: &mut Tx) -> Result<()> {
        let after = snapshot(tx, self.table, self.id).await?;
        // The tenant comes from the row, changed or not, so the entry is in scope.
        let tenant = after
            .as_ref()
            .or(self.before.as_ref())
            .and_then(|shot| shot.tenant);
        let masked = |mut fields: Snapshot| {
            for secret in &self.secrets {
                fields.insert(secret_field(secret), MASKED.into());
            }
            fields
        };
        let (action, before, after) = match (self.before, after) {
            (None, Some(after)) => ("create", None, Some(masked(after.fields))),
            (Some(before), None) => ("delete", Some(before.fields), None),
            (Some(before), Some(after)) => {
                let (was, now) = difference(&before.fields, &after.fields);
                let (was, now) = (masked(was), masked(now));
                if now.is_empty() {
                    return Ok(());
                }
                ("update", Some(was), Some(now))
            }
            (None, None) => return Ok(()),
        };
        write(
            tx,
            self.entity,
            action,
            self.id,
            tenant,
            &self.actor,
            before,
            after,
        )
        .await
    }
}

/// How a changed secret shows in the trail.
const MASKED: &str = "********";

/// The field of the API's body a secret column holds: `password_hash` and
/// `password_sealed` are `password`, `signing_secret_sealed` is `signingSecret`.
fn secret_field(column: &str) -> String {
    let field = column
        .strip_suffix("_sealed")
        .or_else(|| column.strip_suffix("_hash"))
        .unwrap_or(column);
    camel(field)
}

/// The fields of `after` whose values differ from `before`'s: as they were, as they are.
fn difference(before: &Snapshot, after: &Snapshot) -> (Snapshot, Snapshot) {
    let mut was = Snapshot::new();
    let mut now = Snapshot::new();
    for (field, value) in after {
        if before.get(field) != Some(value) {
            was.insert(
                field.clone(),
                before.get(field).cloned().unwrap_or_default(),
            );
            now.insert(field.clone(), value.clone());
        }
    }
    (was, now)
}

/// Audits rows `ids` of `table`, just created in `tx` by one bulk insert (an import),
/// when the table is audited and an actor is known: one `create` entry per row, as a
/// create through [`crate::crud`] writes it (the record as the API answers it), read and
/// written with one statement each (what keeps a 10,000-row import fast). The rows must
/// not own child lists; `tenant` is theirs when their records do not name it (a
/// campaign's records).
pub(crate) async fn created_many(
    tx: &mut Tx,
    table: &'static str,
    ids: &[i64],
    tenant: Option<TenantId>,
) -> Result<()> {
    let (Some(entity), Some(actor)) = (entity_of(table), current()) else {
        return Ok(());
    };
    if ids.is_empty() {
        return Ok(());
    }
    let present = tx
        .audit
        .present_many
        .iter()
        .find(|(name, _)| *name == table)
        .map(|(_, present)| *present);
    let rows: Vec<Snapshot> = match present {
        Some(present) => present(tx, ids).await?,
        // An import of another table must say how its records are answered first.
        None => {
            return Err(crate::Error::Presenting(format!(
                "the imported rows of {table} have no presenter"
            )));
        }
    };
    let mut insert = insert_columns();
    for row in rows {
        let id = row
            .get("id")
            .and_then(serde_json::Value::as_i64)
            .unwrap_or(0);
        let tenant = tenant_in(table, id, &row).or(tenant);
        let details = serde_json::json!({"before": null, "after": camel_map(row)});
        insert.values_panic(entry_values(NewEntry {
            action: "create",
            entity,
            entity_id: Some(id.to_string()),
            tenant_id: tenant,
            user_id: actor.user_id,
            user_email: actor.user_email.clone(),
            client_address: actor.client_address.clone(),
            details,
        }));
    }
    tx.execute(&insert).await?;
    Ok(())
}

/// Audits a change of a record kept outside the `id`-keyed tables (a tenant's fax retry
/// policy, keyed by its tenant) in `tx`, when an actor is known: `before` and `after`
/// are its fields (`snake_case`; `None`: it did not exist / no longer does). An update
/// shows the changed fields only, and one that changed nothing writes nothing.
#[boxed]
pub async fn change_in(
    tx: &mut Tx,
    entity: &'static str,
    id: i64,
    tenant: Option<TenantId>,
    before: Option<Snapshot>,
    after: Option<Snapshot>,
) -> Result<()> {
    let Some(actor) = current() else {
        return Ok(());
    };
    let (action, before, after) = match (before, after) {
        (None, Some(after)) => ("create", None, Some(after)),
        (Some(before), None) => ("delete", Some(before), None),
        (Some(before), Some(after)) => {
            let (was, now) = difference(&before, &after);
            if now.is_empty() {
                return Ok(());
            }
            ("update", Some(was), Some(now))
        }
        (None, None) => return Ok(()),
    };
    write(tx, entity, action, id, tenant, &actor, before, after).await
}

#[allow(clippy::too_many_arguments)]
async fn write(
    tx: &mut Tx,
    entity: &'static str,
    action: &'static str,
    id: i64,
    tenant: Option<TenantId>,
    actor: &Actor,
    before: Option<Snapshot>,
    after: Option<Snapshot>,
) -> Result<()> {
    let details = serde_json::json!({
        "before": before.map(camel_map),
        "after": after.map(camel_map),
    });
    let entry = NewEntry {
        action,
        entity,
        entity_id: Some(id.to_string()),
        tenant_id: tenant,
        user_id: actor.user_id,
        user_email: actor.user_email.clone(),
        client_address: actor.client_address.clone(),
        details,
    };
    tx.execute(&insert(entry)).await?;
    Ok(())
}

/// Records an entry on its own (login events: nothing else is written with them).
#[boxed]
pub async fn record(db: &Db, entry: NewEntry) -> Result<()> {
    db.conn().execute(&insert(entry)).await?;
    Ok(())
}

/// Records a sign-in refused by a lock ending at `locked_until` (Unix seconds): the
/// first refusal of that lock for the entry's account and address writes the entry
/// (its details gain `lockedUntil`, `refusals: 1`), each later one counts in it
/// (`refusals`, `lastAt`), so a flood at a locked account adds one row per lock, not
/// one per attempt.
#[boxed]
pub async fn record_refusal(db: &Db, mut entry: NewEntry, locked_until: i64) -> Result<()> {
    #[derive(switchboard_domain::declare::FromRow)]
    struct Latest {
        id: AuditEntryId,
        details: String,
    }
    let mut tx = db.begin().await?;
    let key = format!(
        "audit:{}:{}:{}",
        entry.action, entry.user_email, entry.client_address
    );
    tx.lock_keys(&[&key]).await?;
    let latest = Query::select()
        .columns(["id", "details"])
        .from("audit_log")
        .and_where(Expr::col("action").eq(entry.action))
        .and_where(Expr::col("user_email").eq(entry.user_email.as_str()))
        .and_where(Expr::col("client_address").eq(entry.client_address.as_str()))
        .order_by("id", sea_query::Order::Desc)
        .limit(1)
        .take();
    let latest: Option<Latest> = tx.fetch_optional(&latest).await?;
    let same_lock = latest.and_then(|row| {
        let details: serde_json::Value = serde_json::from_str(&row.details).ok()?;
        (details.get("lockedUntil")?.as_i64()? == locked_until).then_some((row.id, details))
    });
    if let Some((id, mut details)) = same_lock {
        let refusals = details.get("refusals").and_then(serde_json::Value::as_i64);
        details["refusals"] = (refusals.unwrap_or(1) + 1).into();
        details["lastAt"] = chrono::Utc::now().timestamp().into();
        let update = Query::update()
            .table("audit_log")
            .value("details", details.to_string())
            .and_where(Expr::col("id").eq(id.get()))
            .take();
        tx.execute(&update).await?;
    } else {
        if !entry.details.is_object() {
            entry.details = serde_json::json!({});
        }
        entry.details["lockedUntil"] = locked_until.into();
        entry.details["refusals"] = 1.into();
        tx.execute(&insert(entry)).await?;
    }
    tx.commit().await
}

fn insert(entry: NewEntry) -> sea_query::InsertStatement {
    let mut insert = insert_columns();
    insert.values_panic(entry_values(entry));
    insert
}

/// An insert into the trail, its values to add.
fn insert_columns() -> sea_query::InsertStatement {
    Query::insert()
        .into_table("audit_log")
        .columns([
            "at_ms",
            "tenant_id",
            "user_id",
            "user_email",
            "action",
            "entity",
            "entity_id",
            "client_address",
            "details",
        ])
        .take()
}

/// The values of `entry`, in [`insert_columns`]' order.
fn entry_values(entry: NewEntry) -> [Expr; 9] {
    let at_ms = chrono::Utc::now().timestamp_millis();
    let details = if serde_json::Value::is_null(&entry.details) {
        "{}".to_owned()
    } else {
        entry.details.to_string()
    };
    [
        at_ms.into(),
        entry.tenant_id.map(TenantId::get).into(),
        entry.user_id.map(UserId::get).into(),
        entry.user_email.into(),
        entry.action.into(),
        entry.entity.into(),
        entry.entity_id.into(),
        entry.client_address.into(),
        details.into(),
    ]
}

fn select(scope: &Scope, viewer: UserId) -> SelectStatement {
    let mut select = Query::select();
    select
        .columns([
            ("l", "id"),
            ("l", "at_ms"),
            ("l", "tenant_id"),
            ("l", "user_id"),
            ("l", "user_email"),
            ("l", "action"),
            ("l", "entity"),
            ("l", "entity_id"),
            ("l", "client_address"),
            ("l", "details"),
        ])
        .expr_as(Expr::col(("t", "name")), "tenant_name")
        .from_as("audit_log", "l")
        .left_join(
            TableRef::from("tenants").alias("t"),
            Expr::col(("t", "id")).equals(("l", "tenant_id")),
        );
    if *scope != Scope::Platform {
        // Entries without a tenant (platform operations) are the platform's alone.
        select.cond_where(scope::tenants(scope, Expr::col(("l", "tenant_id"))));
    }
    // The trail is the tenant's: a branch admin or a user granted `audit-log:read` sees
    // what it did itself, not the before/after of the other branches' records.
    if let Scope::Branch(..) | Scope::User(..) = scope {
        select.and_where(Expr::col(("l", "user_id")).eq(viewer.get()));
    }
    select
}

/// The entries `viewer`, reaching `scope`, may read.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    viewer: UserId,
    filter: &AuditFilter,
    query: &ListQuery,
) -> Result<Listing<AuditEntry>> {
    let mut select = select(scope, viewer);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col(("l", "tenant_id")).eq(tenant.get()));
    }
    if let Some(tenants) = &filter.tenant_ids {
        select.and_where(Expr::col(("l", "tenant_id")).is_in(tenants.iter().copied()));
    }
    if let Some(entities) = &filter.entities {
        select.and_where(Expr::col(("l", "entity")).is_in(entities.iter().map(|e| e.as_str())));
    }
    if let Some(action) = &filter.action {
        select.and_where(Expr::col(("l", "action")).eq(action.as_str()));
    }
    if let Some(id) = &filter.entity_id {
        select.and_where(Expr::col(("l", "entity_id")).eq(id.as_str()));
    }
    let listing = list::run(db, select, AuditEntry::SPEC, query).await?;
    Ok(match listing {
        Listing::Page(mut page) => {
            page.records.iter_mut().for_each(fill_time);
            Listing::Page(page)
        }
        Listing::Stream(rows) => {
            use futures::StreamExt;
            Listing::Stream(
                rows.map(|row| {
                    row.map(|mut entry| {
                        fill_time(&mut entry);
                        entry
                    })
                })
                .boxed(),
            )
        }
    })
}

/// Fills the answer's fields from the stored ones.
fn fill_time(entry: &mut AuditEntry) {
    let mut details: serde_json::Value =
        serde_json::from_str(&entry.details_text).unwrap_or_else(|_| serde_json::json!({}));
    // A change's before and after are stored with its facts and answered beside them.
    if let Some(facts) = details.as_object_mut() {
        entry.before = facts.remove("before").unwrap_or_default();
        entry.after = facts.remove("after").unwrap_or_default();
    }
    entry.details = details;
    entry.at = chrono::DateTime::from_timestamp_millis(entry.at_ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_audited_entity_is_a_filterable_one() {
        use switchboard_domain::records::audit::AuditEntity;
        for (table, entity) in AUDITED {
            assert!(
                entity.parse::<AuditEntity>().is_ok(),
                "{table}: {entity} is not an AuditEntity"
            );
        }
    }

    #[test]
    fn secrets_are_recognised_and_names_spelled_as_the_api() {
        for secret in [
            "password_hash",
            "peer_secret",
            "signing_secret_sealed",
            "authtoken_sealed",
            "totp_secret",
        ] {
            assert!(is_secret(secret), "{secret}");
        }
        for plain in ["name", "number", "tenant_id", "email", "object_key"] {
            assert!(!is_secret(plain), "{plain}");
        }
        assert_eq!(camel("intro_media_file_id"), "introMediaFileId");
        assert_eq!(camel("name"), "name");
    }
}
