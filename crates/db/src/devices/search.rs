//! The device list's search: a name as a case-insensitive substring (the trigram
//! indexes), a MAC in any notation (a prefix as a range of the MAC index, digits further
//! in through `device_mac_windows`).

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement, TableRef};
use switchboard_domain::Scope;
use switchboard_domain::records::device::DeviceFilter;

use super::counters::sum_counters;
use crate::backend::Db;
use crate::error::Result;
use crate::list;

/// The `query` of the device list when it is not (part of) a MAC: the name as a
/// case-insensitive substring, served by the trigram indexes (SQLite FTS5, PostgreSQL
/// pg_trgm) for texts of three characters or more.
pub(super) fn name_search(db: &Db, text: &str) -> Condition {
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
pub(super) fn mac_prefix(hex: &str) -> Condition {
    Condition::all()
        .add(Expr::col(("d", "mac")).gte(hex))
        .add(Expr::col(("d", "mac")).lt(format!("{hex}g")))
}

/// Above this many phones under a MAC prefix, its search walks the list's own index
/// (one phone in a few matches, so a page is found within a few pages' rows) instead of
/// gathering every match first.
const DENSE_PREFIX: i64 = 1_000;

/// A search for (part of) a MAC of 6 to 12 hex digits, `hex`, typed as `text`.
pub(super) struct MacSearch {
    /// What the list's rows must meet.
    pub(super) condition: Condition,
    /// The ids matching otherwise than by prefix (name, or the digits further in).
    pub(super) others: SelectStatement,
    /// The phones under the prefix the caller reaches, from the counters (`None` for a
    /// whole MAC, which names one phone at most).
    pub(super) prefixed: Option<i64>,
}

/// The `query` of the device list when it is (part of) a MAC in any notation: its hex
/// digits anywhere in the stored MAC, or the text in the name. A prefix (a vendor's
/// phones) is a range of the MAC index counted by `device_prefix_counts`; the digits
/// further in are found through `device_mac_windows` (migration 0018); the name through
/// its trigram index.
pub(super) async fn mac_search(
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
