//! Faxes (`/v2/admin/faxes`): those the engine reported (`/v2/ingest/faxes`) and those
//! sent here, whose document (PDF or TIFF) is kept in object storage and whose sending
//! goes through the engine work queue, attempt by attempt, under the tenant's retry
//! policy.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use super::traffic::{DIRECTIONS, TrafficDirection};
use crate::declare::{Body, Filter, Listed};
use crate::ids::{FaxId, TenantId};
use crate::validation::{ID, Instant, Int, ListOf, Text, int, list_of, text};

/// The largest fax document accepted, in bytes.
pub const MAX_DOCUMENT_BYTES: usize = 20 * 1024 * 1024;

/// A sender or recipient.
pub const PARTY: Text = text(1, 64);

/// A fax.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, time, from, to, status, direction), filter = FaxFilter, table = "f", id = "f.id",
       search("from_number", "to_number", "fax_id"))]
pub struct Fax {
    /// The fax's id.
    pub id: FaxId,
    /// The tenant.
    pub tenant_id: TenantId,
    /// The engine's id (`sb-…` for faxes sent here).
    pub fax_id: String,
    /// `inbound` or `outbound`.
    pub direction: String,
    /// Sender.
    #[list(column = "from_number")]
    pub from: String,
    /// Recipient.
    #[list(column = "to_number")]
    pub to: String,
    /// Pages (of the document, or as the engine reported them).
    pub pages: i64,
    /// Faxes sent here: `queued`, `sending`, `sent` or `failed`; the engine's outcome for
    /// faxes it reported.
    pub status: String,
    /// When it was sent, received or queued (ISO 8601, UTC).
    pub time: String,
    /// The document's content type (`application/pdf`, `image/tiff`); null without one.
    pub document_type: Option<String>,
    /// A signed link to the document; null without one.
    #[serde(rename = "documentURL")]
    #[schema(rename = "documentURL")]
    pub document_url: Option<String>,
    /// The attempts made to send it, oldest first (faxes sent here).
    pub attempts: Vec<FaxAttempt>,
}

/// One attempt to send a fax, as the engine reported it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaxAttempt {
    /// The attempt's number.
    pub attempt: i64,
    /// `sent`, `failed`, or `abandoned` (given up after its leases kept running out).
    pub outcome: String,
    /// When it began (ISO 8601, UTC), when reported.
    pub started_at: Option<String>,
    /// When it ended, when reported.
    pub ended_at: Option<String>,
    /// The engine's result code (T.30), when reported.
    pub result_code: Option<String>,
    /// Pages sent, when reported.
    pub pages: Option<i64>,
    /// Transfer speed in bits per second, when reported.
    pub speed: Option<i64>,
    /// The engine's message, or why the attempt was given up.
    pub message: Option<String>,
}

/// Filters of the fax list.
#[derive(Clone, Debug, Default, Filter)]
pub struct FaxFilter {
    /// Only this tenant's faxes.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// `inbound` or `outbound`.
    #[field(rule = DIRECTIONS)]
    pub direction: Option<TrafficDirection>,
    /// Only faxes with this status.
    #[field(rule = text(1, 255))]
    pub status: Option<String>,
    /// Only faxes from this number.
    #[field(rule = PARTY)]
    pub from: Option<String>,
    /// Only faxes to this number.
    #[field(rule = PARTY)]
    pub to: Option<String>,
    /// Only faxes at or after this instant (RFC 3339).
    #[field(rule = Instant)]
    pub date_from: Option<DateTime<Utc>>,
    /// Only faxes before this instant (RFC 3339).
    #[field(rule = Instant)]
    pub date_to: Option<DateTime<Utc>>,
}

/// Attempts in all, under a retry policy.
pub const MAX_ATTEMPTS: Int = int(1, 10);
/// Seconds between attempts.
pub const DELAY_SECONDS: Int = int(30, 86_400);
/// Result codes worth another attempt.
const RETRY_CODES: ListOf<Text> = list_of(text(1, 64), 0, 50);

/// A tenant's automatic retry of failed faxes.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaxRetryPolicy {
    /// The tenant.
    pub tenant_id: TenantId,
    /// Attempts in all (1: never retried automatically).
    pub max_attempts: i64,
    /// Seconds between a failed attempt and the next.
    pub delay_seconds: i64,
    /// The result codes worth another attempt; empty: every failure is retried.
    pub retry_codes: Vec<String>,
}

impl FaxRetryPolicy {
    /// The policy of a tenant that set none: three attempts, five minutes apart, on any
    /// failure.
    pub fn default_for(tenant: TenantId) -> FaxRetryPolicy {
        FaxRetryPolicy {
            tenant_id: tenant,
            max_attempts: 3,
            delay_seconds: 300,
            retry_codes: Vec::new(),
        }
    }

    /// When a failed attempt `attempt` (with `code`) ended at `now` is tried again, if
    /// it is.
    pub fn retry_at(&self, attempt: i64, code: Option<&str>, now: i64) -> Option<i64> {
        let worth = self.retry_codes.is_empty()
            || code.is_some_and(|c| self.retry_codes.iter().any(|r| r == c));
        (worth && attempt < self.max_attempts).then(|| now + self.delay_seconds)
    }
}

/// The body of `PUT /v2/admin/faxes/retry-policy`.
#[derive(Clone, Debug, Body)]
#[body(placement(tenant))]
pub struct SetFaxRetryPolicy {
    /// The tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Attempts in all (1–10).
    #[field(rule = MAX_ATTEMPTS)]
    pub max_attempts: i64,
    /// Seconds between attempts (30–86400).
    #[field(rule = DELAY_SECONDS)]
    pub delay_seconds: i64,
    /// The result codes worth another attempt; empty or left out: every failure.
    #[field(rule = RETRY_CODES, default = Vec::new())]
    pub retry_codes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_retries_only_worthwhile_codes_within_its_attempts() {
        let mut policy = FaxRetryPolicy::default_for(TenantId(1));
        assert_eq!(policy.retry_at(1, None, 100), Some(400));
        assert_eq!(policy.retry_at(3, None, 100), None);
        policy.retry_codes = vec!["busy".into()];
        assert_eq!(policy.retry_at(1, Some("busy"), 0), Some(300));
        assert_eq!(policy.retry_at(1, Some("bad-number"), 0), None);
        assert_eq!(policy.retry_at(1, None, 0), None);
    }
}
