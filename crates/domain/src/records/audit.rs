//! The audit trail: who did what, when and from where (logins, failures, lockouts, token
//! refreshes, multi-factor and password changes, …), readable by tenant.

use std::collections::HashMap;

use serde::Serialize;
use utoipa::ToSchema;

use crate::ids::TenantId;
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{FromQuery, ID, ID_PATTERN, Problems, QueryReader, Raw, Rule, text};

/// The entity kinds the trail records, and the release notes' other areas.
pub const ENTITIES: &[&str] = &[
    "authentication",
    "session",
    "user",
    "mfa",
    "password",
    "webhook",
    "call-outcome",
    "custom-voice",
    "queue",
    "theme",
];

/// One audit entry.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// The entry's id.
    pub id: i64,
    /// When (RFC 3339, UTC, milliseconds).
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    pub at: String,
    /// When, as stored (milliseconds since the epoch).
    #[serde(skip)]
    #[schema(ignore)]
    pub at_ms: i64,
    /// The tenant concerned, if any.
    pub tenant_id: Option<i64>,
    /// The tenant's name.
    pub tenant_name: Option<String>,
    /// The acting (or targeted) user, if known.
    pub user_id: Option<i64>,
    /// That user's e-mail address (as typed, for failed logins of unknown accounts).
    pub user_email: String,
    /// What happened: `login.success`, `login.failure`, `login.locked`, `token.refresh`,
    /// `token.reuse`, `logout`, `mfa.enrol`, `mfa.enable`, `mfa.disable`, `password.change`, …
    pub action: String,
    /// The kind of record concerned (`authentication`, `session`, `user`, `mfa`, `password`).
    pub entity: String,
    /// The record's id, when there is one.
    pub entity_id: Option<String>,
    /// The client address the request came from.
    pub client_address: String,
    /// Further facts, as a JSON object.
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    pub details: serde_json::Value,
    /// The facts as stored (JSON text).
    #[serde(skip)]
    #[schema(ignore)]
    #[cfg_attr(feature = "sqlx", sqlx(rename = "details"))]
    pub details_text: String,
}

/// A comma-separated list of ids (`tenantIds=1,2,3`).
#[derive(Clone, Copy, Debug)]
struct IdList;

impl Rule for IdList {
    type Output = Vec<i64>;
    fn check(&self, raw: Raw<'_>) -> Result<Vec<i64>, String> {
        let Raw::Text(text) = raw else {
            return Err("must be a comma-separated list of ids".into());
        };
        // Bounded, so a huge list cannot exceed the database's parameter limit.
        if text.chars().count() > 2000 {
            return Err("must be at most 2000 characters".into());
        }
        let mut ids: Vec<i64> = text
            .split(',')
            .map(|part| {
                ID.check(Raw::Text(part.trim())).map_err(|_| {
                    format!("must be a comma-separated list of ids matching {ID_PATTERN}")
                })
            })
            .collect::<Result<_, _>>()?;
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }
}

/// A comma-separated list of entity kinds.
#[derive(Clone, Copy, Debug)]
struct EntityList;

impl Rule for EntityList {
    type Output = Vec<String>;
    fn check(&self, raw: Raw<'_>) -> Result<Vec<String>, String> {
        let Raw::Text(text) = raw else {
            return Err("must be a comma-separated list".into());
        };
        if text.chars().count() > 500 {
            return Err("must be at most 500 characters".into());
        }
        text.split(',')
            .map(|part| {
                let part = part.trim();
                if ENTITIES.contains(&part) {
                    Ok(part.to_owned())
                } else {
                    Err(format!("must list only: {}", ENTITIES.join(", ")))
                }
            })
            .collect()
    }
}

/// Filters of the audit log.
#[derive(Clone, Debug, Default)]
pub struct AuditFilter {
    /// Only entries of this tenant.
    pub tenant_id: Option<TenantId>,
    /// Only entries of these tenants.
    pub tenant_ids: Option<Vec<TenantId>>,
    /// Only entries about these kinds of record.
    pub entities: Option<Vec<String>>,
    /// Only entries of this action.
    pub action: Option<String>,
}

impl FromQuery for AuditFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mut q = QueryReader::new(params, &mut problems);
        let tenant_id = q.optional("tenantId", &ID).map(TenantId);
        let tenant_ids = q
            .optional("tenantIds", &IdList)
            .map(|ids| ids.into_iter().map(TenantId).collect());
        let entities = q.optional("entities", &EntityList);
        let action = q.optional("action", &text(1, 64));
        problems.finish(|| {
            Some(AuditFilter {
                tenant_id,
                tenant_ids,
                entities,
                action,
            })
        })
    }
}

/// Sorting and search of the audit log.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "l.id",
        },
        SortField {
            name: "at",
            column: "l.at_ms",
        },
        SortField {
            name: "action",
            column: "l.action",
        },
        SortField {
            name: "userEmail",
            column: "l.user_email",
        },
    ],
    search_columns: &["l.user_email", "l.action", "l.client_address"],
    search_index: None,
};

impl crate::list::ListFilter for AuditFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[
        FilterDoc {
            name: "tenantId",
            description: "Only entries of this tenant.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "tenantIds",
            description: "Only entries of these tenants (comma-separated ids).",
            kind: FilterKind::Text(2000),
        },
        FilterDoc {
            name: "entities",
            description: "Only entries about these kinds (comma-separated): authentication, session, user, mfa, password, call-outcome, custom-voice, queue, theme.",
            kind: FilterKind::Text(500),
        },
        FilterDoc {
            name: "action",
            description: "Only entries of this action.",
            kind: FilterKind::Text(64),
        },
    ];
}
