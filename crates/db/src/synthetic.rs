//! Synthetic data at scale, for benchmarks and capacity tests: a tenant's voicemail,
//! phone numbers, desk phones and calls written in large multi-row inserts, and copies of
//! its routing records (no events: nothing happened). The
//! values are spread like a real tenant's (a thousand mailboxes, mostly filed messages,
//! callers from a large pool) and derived from the row number, so runs repeat exactly.

use sea_query::{Expr, Query};
use switchboard_declare::boxed;
use switchboard_domain::ids::TenantId;

use crate::backend::{Backend, Db, Tx};
use crate::error::Result;
use crate::owner::Owner;

/// Rows per INSERT statement: under SQLite's and PostgreSQL's bind-parameter limits.
const ROWS_PER_STATEMENT: usize = 500;
/// Statements per transaction.
const STATEMENTS_PER_TRANSACTION: usize = 20;

/// A well-mixed 64-bit value of `n` (SplitMix64's finaliser).
fn mix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const NAMES: &[&str] = &[
    "ACME Corp",
    "Alice Smith",
    "Bob Jones",
    "Carol White",
    "Dave Brown",
    "Erin Green",
    "Frank Black",
    "Grace Hall",
    "Heidi Young",
    "Ivan King",
    "Judy Wright",
    "WIRELESS CALLER",
];

/// Inserts `count` voicemail messages into `tenant`, over `mailboxes` mailboxes numbered
/// from 1000; answers when every row is written.
#[boxed]
pub async fn voicemail(db: &Db, tenant: TenantId, count: usize, mailboxes: usize) -> Result<()> {
    let columns = [
        "tenant_id",
        "mailbox_context",
        "mailbox_user",
        "msg_id",
        "message_number",
        "dir",
        "is_read",
        "caller_id",
        "date",
        "date_unix",
        "duration",
        "ext_num",
        "transcript",
        "created_at",
    ];
    let start = 1_735_689_600i64; // 2025-01-01
    let mut written = 0;
    while written < count {
        let mut tx = db.begin().await?;
        for _ in 0..STATEMENTS_PER_TRANSACTION {
            if written >= count {
                break;
            }
            let mut insert = Query::insert();
            insert.into_table("voicemail_messages").columns(columns);
            let end = (written + ROWS_PER_STATEMENT).min(count);
            for i in written..end {
                let r = mix(i as u64);
                let mailbox = 1000 + (r % mailboxes.max(1) as u64);
                let dir = match (r >> 16) % 20 {
                    0..=5 => "INBOX",
                    6 => "Urgent",
                    7 => "Work",
                    _ => "Old",
                };
                let read = i64::from(dir != "INBOX" && dir != "Urgent");
                let unix = start + (i as i64) * 31;
                let number = 2_000_000_000 + (r >> 20) % 7_999_999_999;
                let name = NAMES[((r >> 40) % NAMES.len() as u64) as usize];
                let date = chrono::DateTime::from_timestamp(unix, 0)
                    .map(|t| t.format("%a %b %e %I:%M:%S %p UTC %Y").to_string())
                    .unwrap_or_default();
                insert.values_panic([
                    Expr::val(tenant.get()),
                    Expr::val("default"),
                    Expr::val(mailbox.to_string()),
                    Expr::val(format!("{unix}-{i:08}")),
                    Expr::val(((r >> 8) % 100) as i64),
                    Expr::val(dir),
                    Expr::val(read),
                    Expr::val(format!("\"{name}\" <{number}>")),
                    Expr::val(date),
                    Expr::val(unix),
                    Expr::val(1 + ((r >> 24) % 300) as i64),
                    Expr::val(mailbox.to_string()),
                    Expr::val(""),
                    Expr::val(unix),
                ]);
            }
            tx.execute(&insert).await?;
            written = end;
        }
        tx.commit().await?;
    }
    Ok(())
}

/// Inserts `count` phone numbers into `tenant`, numbered `1` + the tenant id (3 digits)
/// + a 7-digit sequence, so several tenants' numbers never collide.
#[boxed]
pub async fn phone_numbers(db: &Db, tenant: TenantId, count: usize) -> Result<()> {
    let columns = [
        "tenant_id",
        "number",
        "in_use",
        "registered_cnam",
        "di_comment_name",
        "fax",
        "created_at",
    ];
    let mut written = 0;
    while written < count {
        let mut tx = db.begin().await?;
        for _ in 0..STATEMENTS_PER_TRANSACTION {
            if written >= count {
                break;
            }
            let mut insert = Query::insert();
            insert.into_table("phone_numbers").columns(columns);
            let end = (written + ROWS_PER_STATEMENT).min(count);
            for i in written..end {
                let r = mix(i as u64 ^ 0x5eed);
                let name = NAMES[(r % NAMES.len() as u64) as usize];
                insert.values_panic([
                    Expr::val(tenant.get()),
                    Expr::val(format!("1{:03}{:07}", tenant.get() % 1000, i)),
                    Expr::val(((r >> 8) % 2) as i64),
                    Expr::val(name.chars().take(15).collect::<String>()),
                    Expr::val(format!("{name} line {i}")),
                    Expr::val(if (r >> 16).is_multiple_of(10) {
                        "yes"
                    } else {
                        "no"
                    }),
                    Expr::val(0i64),
                ]);
            }
            tx.execute(&insert).await?;
            written = end;
        }
        tx.commit().await?;
    }
    Ok(())
}

/// Vendors' MAC prefixes (OUIs) and a model of each, for synthetic desk phones.
const PHONES: &[(&str, &str)] = &[
    ("805ec0", "yealink-t54w"),
    ("64167f", "poly-vvx450"),
    ("c074ad", "grandstream-grp2614"),
    ("0014bf", "cisco-spa504g"),
];

/// The MAC (12 hex digits) of synthetic device `i` of `tenant`: the vendor's prefix, then
/// the tenant (mod 16) and the device's number among that vendor's, so the devices of up
/// to 16 tenants of up to four million phones each never collide.
pub fn device_mac(tenant: TenantId, i: usize) -> String {
    let (oui, _) = PHONES[i % PHONES.len()];
    let low = ((tenant.get().rem_euclid(16) as u64) << 20) | (i / PHONES.len()) as u64;
    format!("{oui}{low:06x}")
}

/// Inserts `count` desk phones into `tenant` (a quarter of each vendor, a third
/// registered), named `Phone NNNNN <name>`; their provisioning password is unusable (its
/// hash is of nothing a password can be).
#[boxed]
pub async fn devices(db: &Db, tenant: TenantId, count: usize) -> Result<()> {
    let columns = [
        "tenant_id",
        "name",
        "mac",
        "model",
        "description",
        "registered",
        "config_version",
        "provisioning_username",
        "provisioning_secret_hash",
    ];
    let mut written = 0;
    while written < count {
        let mut tx = db.begin().await?;
        for _ in 0..STATEMENTS_PER_TRANSACTION {
            if written >= count {
                break;
            }
            let mut insert = Query::insert();
            insert.into_table("devices").columns(columns);
            let end = (written + ROWS_PER_STATEMENT).min(count);
            for i in written..end {
                let r = mix(i as u64 ^ 0xde71ce);
                let name = NAMES[(r % NAMES.len() as u64) as usize];
                let mac = device_mac(tenant, i);
                insert.values_panic([
                    Expr::val(tenant.get()),
                    Expr::val(format!("Phone {i:05} {name}")),
                    Expr::val(mac.clone()),
                    Expr::val(PHONES[i % PHONES.len()].1),
                    Expr::val(""),
                    Expr::val(i64::from((r >> 8).is_multiple_of(3))),
                    Expr::val(1i64),
                    Expr::val(mac),
                    Expr::val("-"),
                ]);
            }
            tx.execute(&insert).await?;
            written = end;
        }
        tx.commit().await?;
    }
    Ok(())
}

/// The instant synthetic calls end at: 2026-11-01T00:00:00Z.
pub const CALLS_END: i64 = 1_793_491_200;

/// Every this many calls one passes through the synthetic queue.
const QUEUED_EVERY: usize = 4;

/// Inserts `count` calls into `tenant`, one every 86.4 seconds (a thousand a day) going
/// back from [`CALLS_END`], so the last days hold the same calls whatever the count: a
/// report of them costs the same in a tenant of ten thousand calls as of a million. Four
/// in five are answered (waiting 1–60 s, talking 10–600 s), the rest missed. With any
/// calls, one queue is created and every fourth call passed through it (the report's
/// queue filter has calls to find); answers that queue's id.
#[boxed]
pub async fn calls(db: &Db, tenant: TenantId, count: usize) -> Result<Option<i64>> {
    if count == 0 {
        return Ok(None);
    }
    let queue = Query::insert()
        .into_table("queues")
        .columns(["tenant_id", "name", "number"])
        .values_panic([
            Expr::val(tenant.get()),
            Expr::val("Synthetic queue"),
            Expr::val("8990"),
        ])
        .returning_col("id")
        .take();
    let mut tx = db.begin().await?;
    let queue: i64 = tx.scalar(&queue).await?;
    tx.commit().await?;
    let columns = [
        "tenant_id",
        "unique_id",
        "direction",
        "status",
        "caller_id_num",
        "caller_id_name",
        "dialed_num",
        "time",
        "start_unix",
        "answer_unix",
        "end_unix",
        "duration",
        "billsec",
        "disposition",
        "queue_id",
        "created_at",
    ];
    let mut written = 0;
    while written < count {
        let mut tx = db.begin().await?;
        for _ in 0..STATEMENTS_PER_TRANSACTION {
            if written >= count {
                break;
            }
            let mut insert = Query::insert();
            insert.into_table("calls").columns(columns);
            let end = (written + ROWS_PER_STATEMENT).min(count);
            for i in written..end {
                let r = mix(i as u64 ^ 0xca11);
                let start = CALLS_END - ((i as i64 + 1) * 864) / 10;
                let answered = !r.is_multiple_of(5);
                let wait = 1 + ((r >> 8) % 60) as i64;
                let talk = if answered {
                    10 + ((r >> 16) % 591) as i64
                } else {
                    0
                };
                let direction =
                    ["inbound", "inbound", "outbound", "internal"][((r >> 32) % 4) as usize];
                let time = chrono::DateTime::from_timestamp(start, 0)
                    .map(crate::calls::iso_of_instant)
                    .unwrap_or_default();
                insert.values_panic([
                    Expr::val(tenant.get()),
                    Expr::val(format!("{start}.{i}")),
                    Expr::val(direction),
                    Expr::val(if answered { "ended" } else { "missed" }),
                    Expr::val(format!("{}", 2_000_000_000 + (r >> 20) % 7_999_999_999)),
                    Expr::val(NAMES[((r >> 40) % NAMES.len() as u64) as usize]),
                    Expr::val(format!("{}", 100 + (r >> 48) % 900)),
                    Expr::val(time),
                    Expr::val(start),
                    Expr::val(answered.then_some(start + wait)),
                    Expr::val(start + wait + talk),
                    Expr::val(wait + talk),
                    Expr::val(talk),
                    Expr::val(if answered { "ANSWERED" } else { "NO ANSWER" }),
                    Expr::val(i.is_multiple_of(QUEUED_EVERY).then_some(queue)),
                    Expr::val(start),
                ]);
            }
            tx.execute(&insert).await?;
            written = end;
        }
        tx.commit().await?;
    }
    Ok(Some(queue))
}

/// The records that carry destination lists, with their tables and the first digits of
/// their copies' numbers (`None`: not dialled), for [`routing_copies`].
const ROUTING: &[(Owner, &str, Option<&str>)] = &[
    (Owner::PagingGroup, "paging_groups", Some("21")),
    (Owner::BusinessHour, "business_hours", None),
    (Owner::Ivr, "ivrs", Some("22")),
    (Owner::Queue, "queues", Some("23")),
    (Owner::PhoneNumber, "phone_numbers", Some("4420")),
    (Owner::MusicOnHold, "music_on_hold", None),
    (Owner::CallCampaign, "call_campaigns", None),
    (Owner::PharmacyAgent, "pharmacy_agents", Some("24")),
];

/// Copies written per statement by `demo --scale --routing`: each statement well inside
/// the statement timeout on PostgreSQL (an IVR's copies write five destinations each, and
/// the dial plan's triggers a row per number).
pub const COPIES_PER_STATEMENT: usize = 5_000;

/// Rows a record's read answers beside its destination lists, copied with it by
/// [`routing_copies`]: (the record's table, the rows' table, their column naming it).
const PARTS: &[(&str, &str, &str)] = &[
    ("queues", "queue_members", "queue_id"),
    ("business_hours", "holidays", "business_hour_id"),
];

/// A statement written out whole, with no bound value: what [`routing_copies`] sends.
/// Its text holds the code's own table names, integers, and column names the schema
/// lists (plain names only: [`Tx::columns`], and quoted).
struct Written(String);

impl sea_query_sqlx::SqlxBinder for Written {
    fn build_sqlx<T: sea_query::QueryBuilder>(&self, _: T) -> (String, sea_query_sqlx::SqlxValues) {
        (
            self.0.clone(),
            sea_query_sqlx::SqlxValues(sea_query::Values(Vec::new())),
        )
    }
}

/// Copies, `count` times, each of `tenant`'s records that carry destination lists (paging
/// groups, business hours, IVRs, queues, phone numbers, music on hold, campaigns,
/// pharmacy agents) — for each kind the record with the longest lists — with those
/// lists, a queue's members and business hours' holidays, in the same tenant: a tenant
/// whose routing has grown a hundredfold, to measure the reads and lists of those records
/// at scale (issue 32). A copy is its record with ` #n` after its name and, where it is
/// dialled, a number of its own (the kind's digits then eight more, counted on from the
/// table's highest id; a phone number `4420…`); music on hold copies are never the
/// default and campaign copies are drafts (not dialled). Every other column is copied as
/// it is, so a column a later migration adds is copied too; a campaign's records are
/// not. Written `per_statement` copies at a time ([`COPIES_PER_STATEMENT`]), each
/// round in a transaction of its own. Answers how many records were written per kind, by table (a kind
/// the tenant has no list of is left out).
#[boxed]
pub async fn routing_copies(
    db: &Db,
    tenant: TenantId,
    count: usize,
    per_statement: usize,
) -> Result<Vec<(&'static str, u64)>> {
    let tenant = tenant.get();
    let per_statement = per_statement.max(1);
    let mut written = Vec::new();
    for &(owner, table, digits) in ROUTING {
        let mut tx = begin_copying(db, table).await?;
        let owner = owner.name();
        let template: Option<(i64,)> = tx
            .fetch_optional(&Written(format!(
                "SELECT owner_id FROM destinations WHERE tenant_id = {tenant} \
                 AND owner_type = '{owner}' GROUP BY owner_id \
                 ORDER BY COUNT(*) DESC, owner_id LIMIT 1"
            )))
            .await?;
        let Some((template,)) = template else {
            continue;
        };
        let columns = copied_columns(&mut tx, table).await?;
        // Numbers follow the table's highest id, so a second run's copies dial numbers
        // of their own too.
        let (base,): (i64,) = tx
            .fetch_one(&Written(format!(
                "SELECT COALESCE(MAX(id), 0) FROM {table}"
            )))
            .await?;
        let values: Vec<String> = columns
            .iter()
            .map(|column| match (table, column.as_str(), digits) {
                (_, "name", _) => "t.\"name\" || ' #' || CAST(n.i AS TEXT)".to_owned(),
                (_, "number", Some(digits)) => {
                    format!("'{digits}' || SUBSTR(CAST(100000000 + {base} + n.i AS TEXT), 2)")
                }
                (_, "is_default", _) => "0".to_owned(),
                // A hundred thousand running campaigns would keep the dialler busy.
                ("call_campaigns", "status", _) => "'draft'".to_owned(),
                (_, other, _) => format!("t.\"{other}\""),
            })
            .collect();
        let mut copied = 0;
        for (round, first) in (1..=count).step_by(per_statement).enumerate() {
            if round > 0 {
                // A round per transaction: PostgreSQL keeps every version of a row a
                // transaction updated until it ends (the phone numbers' counters, updated
                // by a trigger per row), which made each round slower than the one before.
                tx.commit().await?;
                tx = begin_copying(db, table).await?;
            }
            let end = (first + per_statement - 1).min(count);
            let (last,): (i64,) = tx
                .fetch_one(&Written(format!(
                    "SELECT COALESCE(MAX(id), 0) FROM {table}"
                )))
                .await?;
            copied += tx
                .execute(&Written(format!(
                    "INSERT INTO {table} ({columns}) \
                     WITH RECURSIVE n(i) AS \
                     (SELECT {first} UNION ALL SELECT i + 1 FROM n WHERE i < {end}) \
                     SELECT {values} FROM {table} t, n WHERE t.id = {template} ORDER BY n.i",
                    columns = quoted(&columns),
                    values = values.join(", "),
                )))
                .await?;
            tx.execute(&Written(format!(
                "INSERT INTO destinations (tenant_id, owner_type, owner_id, list, position, \
                 sort_order, dest_type, target_id, number, type_src) \
                 SELECT d.tenant_id, d.owner_type, c.id, d.list, d.position, d.sort_order, \
                 d.dest_type, d.target_id, d.number, d.type_src \
                 FROM destinations d, {table} c \
                 WHERE d.owner_type = '{owner}' AND d.owner_id = {template} \
                 AND c.id > {last} AND c.tenant_id = {tenant} ORDER BY c.id, d.id"
            )))
            .await?;
            for &(_, parts, key) in PARTS.iter().filter(|(of, _, _)| *of == table) {
                let columns = copied_columns(&mut tx, parts).await?;
                let values: Vec<String> = columns
                    .iter()
                    .map(|column| match column.as_str() {
                        column if column == key => "c.id".to_owned(),
                        other => format!("p.\"{other}\""),
                    })
                    .collect();
                tx.execute(&Written(format!(
                    "INSERT INTO {parts} ({columns}) SELECT {values} FROM {parts} p, {table} c \
                     WHERE p.{key} = {template} AND c.id > {last} AND c.tenant_id = {tenant}",
                    columns = quoted(&columns),
                    values = values.join(", "),
                )))
                .await?;
            }
        }
        tx.commit().await?;
        written.push((table, copied));
    }
    Ok(written)
}

/// The columns a copy of a row of `table` writes: all but its `id`.
async fn copied_columns(tx: &mut Tx, table: &'static str) -> Result<Vec<String>> {
    let mut columns = tx.columns(table).await?;
    columns.retain(|column| column != "id");
    Ok(columns)
}

/// A transaction in which rows are added to `table` as copies: the copies are the rows
/// past the highest id read in it, so on PostgreSQL no other session may add a row to the
/// table until it commits (one that added a row before and has not committed yet is
/// waited for). SQLite's writer is alone already.
async fn begin_copying(db: &Db, table: &str) -> Result<Tx> {
    let mut tx = db.begin().await?;
    if db.backend() == Backend::Postgres {
        tx.execute(&Written(format!(
            "LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE"
        )))
        .await?;
    }
    Ok(tx)
}

/// `columns` quoted, comma-separated.
fn quoted(columns: &[String]) -> String {
    columns
        .iter()
        .map(|column| format!("\"{column}\""))
        .collect::<Vec<_>>()
        .join(", ")
}
