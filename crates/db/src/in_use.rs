//! What stands in the way of deleting a record, declared once per table and checked by
//! every delete of [`crate::crud`] inside its transaction, after locking the row: a
//! concurrent write that makes a destination list route to the row either committed
//! before the lock (and is seen) or waits for it and then finds the row gone
//! (`destinations::replace` locks its targets), so no list is ever left dangling.
//!
//! The same goes for a column others rely on keeping its value ([`RELIED_ON`]: a
//! pharmacy agent needs its conduit to stay a `pharmacy-system`): every update of
//! [`crate::crud`] changing it locks the row and refuses while a use exists, and a
//! writer starting a use reads the column under a share lock in its own transaction.

use sea_query::{Expr, ExprTrait, LockType, Query};

use crate::backend::Tx;
use crate::changes::Changes;
use crate::error::{Error, Result};

/// One kind of use of a row.
#[derive(Clone, Copy, Debug)]
pub enum Use {
    /// Destination lists routing to it with one of these destination types.
    Routed(&'static [&'static str]),
    /// Rows of `table` naming it in `column`, described as `what` and their id.
    Column {
        /// The using table.
        table: &'static str,
        /// Its column holding the id.
        column: &'static str,
        /// Its column naming the using record.
        key: &'static str,
        /// How one such row is named (`announcement`).
        what: &'static str,
    },
}

/// The tables whose rows others use: the table, how the 409 names one of its rows, and
/// the uses, in the order the answer lists them. A new resource joins with one entry.
pub const IN_USE: &[(&str, &str, &[Use])] = &[
    (
        "extensions",
        "extension",
        &[
            Use::Routed(&["EXT", "VOICEMAIL"]),
            Use::Column {
                table: "device_lines",
                column: "extension_id",
                key: "device_id",
                what: "device",
            },
            Use::Column {
                table: "queue_members",
                column: "extension_id",
                key: "queue_id",
                what: "queue",
            },
            Use::Column {
                table: "button_layout_keys",
                column: "extension_id",
                key: "layout_id",
                what: "button layout",
            },
        ],
    ),
    (
        "ivrs",
        "IVR",
        &[
            Use::Routed(&["IVR"]),
            Use::Column {
                table: "announcement_ivrs",
                column: "ivr_id",
                key: "announcement_id",
                what: "announcement",
            },
        ],
    ),
    (
        "paging_groups",
        "paging group",
        &[
            Use::Routed(&["PAGING_GROUP"]),
            Use::Column {
                table: "button_layout_keys",
                column: "paging_group_id",
                key: "layout_id",
                what: "button layout",
            },
        ],
    ),
    ("queues", "queue", &[Use::Routed(&["QUEUE"])]),
    (
        "pharmacy_agents",
        "pharmacy agent",
        &[Use::Routed(&["PHARMACY_AGENT"])],
    ),
    (
        "business_hours",
        "business hour",
        &[
            Use::Routed(&["BUSINESS_HOUR"]),
            Use::Column {
                table: "pharmacy_agents",
                key: "id",
                column: "after_hours_business_hour_id",
                what: "pharmacy agent",
            },
        ],
    ),
    (
        "conduits",
        "conduit",
        &[Use::Column {
            table: "pharmacy_agents",
            key: "id",
            column: "conduit_id",
            what: "pharmacy agent",
        }],
    ),
    (
        "announcements",
        "announcement",
        &[Use::Column {
            table: "ivrs",
            key: "id",
            column: "greeting_announcement_id",
            what: "IVR",
        }],
    ),
    (
        "media_files",
        "media file",
        &[
            Use::Column {
                table: "paging_groups",
                key: "id",
                column: "intro_media_file_id",
                what: "paging group",
            },
            Use::Column {
                table: "announcements",
                key: "id",
                column: "media_file_id",
                what: "announcement",
            },
            Use::Column {
                table: "holidays",
                key: "id",
                column: "media_file_id",
                what: "holiday",
            },
            Use::Column {
                table: "queues",
                key: "id",
                column: "hold_media_file_id",
                what: "queue",
            },
            Use::Column {
                table: "ivrs",
                key: "id",
                column: "greeting_media_file_id",
                what: "IVR",
            },
            Use::Column {
                table: "pharmacy_agents",
                key: "id",
                column: "greeting_media_file_id",
                what: "pharmacy agent",
            },
            Use::Column {
                table: "pharmacy_agents",
                key: "id",
                column: "prompt_media_file_id",
                what: "pharmacy agent",
            },
            Use::Routed(&["MEDIA_FILE"]),
        ],
    ),
    (
        "music_on_hold",
        "music on hold",
        &[Use::Column {
            table: "queues",
            key: "id",
            column: "music_on_hold_id",
            what: "queue",
        }],
    ),
    (
        "button_layouts",
        "button layout",
        &[Use::Column {
            table: "devices",
            column: "button_layout_id",
            key: "id",
            what: "device",
        }],
    ),
];

/// Columns whose value their users rely on: the table, the column, how the 409 names it,
/// and the uses that rely on it. Changing the value is refused while one exists.
pub const RELIED_ON: &[(&str, &str, &str, &[Use])] = &[(
    "conduits",
    "kind",
    "conduit's kind",
    &[Use::Column {
        table: "pharmacy_agents",
        key: "id",
        column: "conduit_id",
        what: "pharmacy agent",
    }],
)];

/// The kinds of record that hold others, as refusals name them: the word, the table
/// holding its rows, the column naming one, and its owner name in `destinations` (when
/// its destination lists route to others). A new holder joins with one line.
const HOLDERS: &[(&str, &str, &str, Option<&str>)] = &[
    ("extension", "extensions", "name", None),
    ("device", "devices", "name", None),
    ("queue", "queues", "name", Some("queue")),
    ("announcement", "announcements", "name", None),
    ("IVR", "ivrs", "name", Some("ivr")),
    (
        "paging group",
        "paging_groups",
        "name",
        Some("paging_group"),
    ),
    ("holiday", "holidays", "name", None),
    (
        "pharmacy agent",
        "pharmacy_agents",
        "name",
        Some("pharmacy_agent"),
    ),
    (
        "business hour",
        "business_hours",
        "name",
        Some("business_hour"),
    ),
    (
        "phone number",
        "phone_numbers",
        "number",
        Some("phone_number"),
    ),
    (
        "music on hold",
        "music_on_hold",
        "name",
        Some("music_on_hold"),
    ),
    (
        "call campaign",
        "call_campaigns",
        "name",
        Some("call_campaign"),
    ),
    ("button layout", "button_layouts", "name", None),
];

/// How every refusal names a record that holds (uses, routes to, has the number of)
/// another, issue 29: its kind, its name and its id — `queue 'Pharmacists' (id 1)`.
pub fn holder(kind: &str, name: &str, id: i64) -> String {
    format!("{kind} '{name}' (id {id})")
}

/// The name of row `id` of the holder kind `what` (empty when the kind or row is unknown:
/// the refusal still names the kind and id).
async fn holder_name(tx: &mut Tx, what: &str, id: i64) -> Result<String> {
    let Some((_, table, column, _)) = HOLDERS.iter().find(|(kind, ..)| *kind == what) else {
        return Ok(String::new());
    };
    let select = Query::select()
        .column(*column)
        .from(*table)
        .and_where(Expr::col("id").eq(id))
        .take();
    Ok(tx
        .fetch_optional::<(String,)>(&select)
        .await?
        .map(|(name,)| name)
        .unwrap_or_default())
}

/// The most users of one kind a 409 names; past it, it says how many there are in all (a
/// layout on 100,000 phones must not answer 100,000 ids).
const NAMED: u64 = 5;

/// Locks row `id` of `table` for the rest of `tx` (PostgreSQL `FOR UPDATE`; SQLite's
/// write transactions already run one at a time) and refuses with 409 naming the users
/// when something uses it.
pub(crate) async fn check(tx: &mut Tx, table: &'static str, id: i64) -> Result<()> {
    let Some((_, kind, uses)) = IN_USE.iter().find(|(name, _, _)| *name == table) else {
        return Ok(());
    };
    lock(tx, table, id).await?;
    let users = users(tx, table, uses, id).await?;
    if users.is_empty() {
        Ok(())
    } else {
        Err(Error::InUse(format!(
            "the {kind} is used by {}",
            users.join(", ")
        )))
    }
}

/// Refuses with 409 naming the users when `changes` give a column of [`RELIED_ON`]
/// another value than row `id` of `table` holds while something relies on it, the row
/// locked for the rest of `tx` (so a use cannot start between the check and the write).
pub(crate) async fn check_change(
    tx: &mut Tx,
    table: &'static str,
    id: i64,
    changes: &Changes,
) -> Result<()> {
    for (_, relied, what, uses) in RELIED_ON.iter().filter(|(name, ..)| *name == table) {
        let Some((_, value)) = changes.iter().find(|(column, _)| column == relied) else {
            continue;
        };
        lock(tx, table, id).await?;
        let changed = Query::select()
            .expr(Expr::cust("COUNT(*)"))
            .from(table)
            .and_where(Expr::col("id").eq(id))
            .and_where(Expr::col(*relied).ne(value.clone()))
            .take();
        if tx.scalar::<i64>(&changed).await? == 0 {
            continue;
        }
        let users = users(tx, table, uses, id).await?;
        if !users.is_empty() {
            return Err(Error::InUse(format!(
                "the {what} cannot change while it is used by {}",
                users.join(", ")
            )));
        }
    }
    Ok(())
}

/// Locks row `id` of `table` for the rest of `tx` (PostgreSQL `FOR UPDATE`; SQLite's
/// write transactions already run one at a time).
pub(crate) async fn lock(tx: &mut Tx, table: &'static str, id: i64) -> Result<()> {
    let lock = Query::select()
        .column("id")
        .from(table)
        .and_where(Expr::col("id").eq(id))
        .lock(LockType::Update)
        .take();
    tx.fetch_optional::<(i64,)>(&lock).await?;
    Ok(())
}

/// Descriptions of what uses row `id` of `table` in the ways `uses` names, at most
/// [`NAMED`] of each kind and then how many more.
async fn users(tx: &mut Tx, table: &'static str, uses: &[Use], id: i64) -> Result<Vec<String>> {
    let mut users = Vec::new();
    for used in uses {
        match *used {
            Use::Routed(types) => users.extend(routed(tx, table, types, id).await?),
            Use::Column {
                table,
                column,
                key,
                what,
            } => {
                // DISTINCT: a holder is named once, however many of its rows name the record.
                let select = Query::select()
                    .distinct()
                    .column(key)
                    .from(table)
                    .and_where(Expr::col(column).eq(id))
                    .order_by(key, sea_query::Order::Asc)
                    .limit(NAMED + 1)
                    .take();
                let ids: Vec<(i64,)> = tx.fetch_all(&select).await?;
                let more = ids.len() as u64 > NAMED;
                for (user,) in ids.into_iter().take(NAMED as usize) {
                    let name = holder_name(tx, what, user).await?;
                    users.push(holder(what, &name, user));
                }
                if more {
                    let count = Query::select()
                        .expr(Expr::cust(format!("COUNT(DISTINCT {key})")))
                        .from(table)
                        .and_where(Expr::col(column).eq(id))
                        .take();
                    let total: i64 = tx.scalar(&count).await?;
                    users.push(format!("{} more {what}s", total - NAMED as i64));
                }
            }
        }
    }
    Ok(users)
}

/// Descriptions of the owners of destination lists routing to `target_id` of one of
/// `dest_types`, the row's own lists (an IVR option leading back to its menu) aside:
/// they go with it.
async fn routed(
    tx: &mut Tx,
    table: &'static str,
    dest_types: &[&'static str],
    target_id: i64,
) -> Result<Vec<String>> {
    let mut select = Query::select();
    select
        .distinct()
        .columns(["owner_type", "owner_id"])
        .from("destinations")
        .and_where(Expr::col("dest_type").is_in(dest_types.iter().copied()))
        .and_where(Expr::col("target_id").eq(target_id));
    if let Some(own) = crate::owner::Owner::of_table(table) {
        select.and_where(
            Expr::col("owner_type")
                .ne(own.name())
                .or(Expr::col("owner_id").ne(target_id)),
        );
    }
    let select = select
        .order_by("owner_type", sea_query::Order::Asc)
        .order_by("owner_id", sea_query::Order::Asc)
        .take();
    let uses: Vec<(String, i64)> = tx.fetch_all(&select).await?;
    let mut named = Vec::new();
    for (owner, id) in uses {
        let what = HOLDERS
            .iter()
            .find(|(.., name)| *name == Some(owner.as_str()))
            .map_or_else(|| owner.replace('_', " "), |(what, ..)| (*what).to_owned());
        let name = holder_name(tx, &what, id).await?;
        named.push(holder(&what, &name, id));
    }
    Ok(named)
}
