//! The audit trail: who changed what and when, newest first, as the API lists it to the
//! person (paged, searched), each change with the record before and after it.

use askama::Template;
use axum::extract::Query;
use axum::response::Response;
use serde_json::Value;

use super::{Chrome, Fields, Listing, Paging, field, html, records, tenant_pair};
use crate::visit::{PageResult, Visit};

/// An entry as the trail shows it.
pub(crate) struct Entry {
    pub at: String,
    pub who: String,
    pub action: String,
    pub what: String,
    /// The record before and after, as indented JSON (empty when there is none).
    pub before: String,
    pub after: String,
}

#[derive(Template)]
#[template(path = "audit.html")]
struct AuditPage {
    chrome: Chrome,
    search: String,
    entries: Vec<Entry>,
    paging: Paging,
}

/// `GET /console/audit`.
pub(crate) async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing = Listing::new("/console/audit", params).with("query", field(params, "query"));
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "id".to_owned()));
    order.push(("sortDirection", "desc".to_owned()));
    let answer = visit
        .get(&listing.api("/v2/admin/audit-log/", order))
        .await?;
    let entries = records(&answer).iter().map(entry_of).collect();
    let paging = listing.paging(&answer);
    html(&AuditPage {
        chrome: visit.chrome("audit"),
        search: listing.filter("query").to_owned(),
        entries,
        paging,
    })
}

/// An audit entry of the API as the page shows it.
pub(crate) fn entry_of(entry: &Value) -> Entry {
    let text = |key: &str| entry[key].as_str().unwrap_or_default().to_owned();
    let what = match &entry["entityId"] {
        Value::Number(id) => format!("{} {id}", text("entity")),
        Value::String(id) if !id.is_empty() => format!("{} {id}", text("entity")),
        _ => text("entity"),
    };
    let shown = |value: &Value| match value {
        Value::Null => String::new(),
        value => serde_json::to_string_pretty(value).unwrap_or_default(),
    };
    Entry {
        at: text("at").replacen('T', " ", 1),
        who: text("userEmail"),
        action: text("action"),
        what,
        before: shown(&entry["before"]),
        after: shown(&entry["after"]),
    }
}
