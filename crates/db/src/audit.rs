//! Writing and reading the audit trail.

use sea_query::{Expr, ExprTrait, Query, SelectStatement, TableRef};
use switchboard_domain::Scope;
use switchboard_domain::ids::{TenantId, UserId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::audit::{AuditEntry, AuditFilter};

use crate::backend::Db;
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

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

/// Records an entry.
pub async fn record(db: &Db, entry: NewEntry) -> Result<()> {
    let at_ms = chrono::Utc::now().timestamp_millis();
    let details = if serde_json::Value::is_null(&entry.details) {
        "{}".to_owned()
    } else {
        entry.details.to_string()
    };
    let insert = Query::insert()
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
        .values_panic([
            at_ms.into(),
            entry.tenant_id.map(TenantId::get).into(),
            entry.user_id.map(UserId::get).into(),
            entry.user_email.into(),
            entry.action.into(),
            entry.entity.into(),
            entry.entity_id.into(),
            entry.client_address.into(),
            details.into(),
        ])
        .take();
    db.conn().execute(&insert).await?;
    Ok(())
}

fn select(scope: &Scope) -> SelectStatement {
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
    select
}

/// The entries the caller reaches.
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &AuditFilter,
    query: &ListQuery,
) -> Result<Listing<AuditEntry>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col(("l", "tenant_id")).eq(tenant.get()));
    }
    if let Some(tenants) = &filter.tenant_ids {
        select.and_where(Expr::col(("l", "tenant_id")).is_in(tenants.iter().copied()));
    }
    if let Some(entities) = &filter.entities {
        select.and_where(Expr::col(("l", "entity")).is_in(entities.iter().cloned()));
    }
    if let Some(action) = &filter.action {
        select.and_where(Expr::col(("l", "action")).eq(action.as_str()));
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
    entry.details =
        serde_json::from_str(&entry.details_text).unwrap_or_else(|_| serde_json::json!({}));
    entry.at = chrono::DateTime::from_timestamp_millis(entry.at_ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default();
}
