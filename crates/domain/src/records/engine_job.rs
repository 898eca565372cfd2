//! The engine work queue (`/v2/engine/jobs/…`): outbound work — a fax or a text to send,
//! a campaign call to place — claimed by the telephony engine under a lease and ended by
//! the result it reports.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::declare::Body;
use crate::ids::{EngineJobId, TenantId};
use crate::validation::{Among, Instant, Int, ListOf, Text, among, int, list_of, text};

crate::closed_set! {
    /// Every kind of engine job. A new kind adds its name here and its handling to
    /// the kinds the API registers with the engine queue (a test checks the two agree).
    pub enum EngineJobKind {
        /// A text to send (see `switchboard_db::texts`).
        Sms = "sms",
        /// A fax to send (see `switchboard_db::faxes`).
        Fax = "fax",
        /// A campaign call to place (see `switchboard_db::call_campaigns`).
        CampaignCall = "campaign-call",
    }
}

/// A fax to send, as stored and claimed.
pub const FAX: &str = EngineJobKind::Fax.as_str();
/// A text to send, as stored and claimed.
pub const SMS: &str = EngineJobKind::Sms.as_str();
/// A campaign call to place, as stored and claimed.
pub const CAMPAIGN_CALL: &str = EngineJobKind::CampaignCall.as_str();

/// An engine job's kind, as read.
pub const KINDS: Among<EngineJobKind> = among();

/// The kinds one claim asks for.
const CLAIM_KINDS: ListOf<Among<EngineJobKind>> = list_of(KINDS, 1, 10);
/// The most jobs one claim leases.
pub const MAX_CLAIM: Int = int(1, 100);
/// How long a claim's lease lasts, in seconds (default 300).
pub const LEASE_SECONDS: Int = int(5, 3600);
/// The lease of a claim that names none, in seconds.
pub const DEFAULT_LEASE_SECONDS: i64 = 300;
/// An attempt's number, as the claim answered it.
const ATTEMPT: Int = int(1, 1_000_000);
/// An outcome: `sent`, `failed`, a campaign's call outcome…
const OUTCOME: Text = text(1, 64);

/// The body of `POST /v2/engine/jobs/claim`.
#[derive(Clone, Debug, Body)]
pub struct ClaimJobs {
    /// The kinds of work this engine does (`fax`, `sms`, `campaign-call`).
    #[field(rule = CLAIM_KINDS)]
    pub kinds: Vec<EngineJobKind>,
    /// The most jobs to lease (1–100).
    #[field(rule = MAX_CLAIM)]
    pub max: i64,
    /// How long the engine holds them, in seconds (5–3600, default 300): a job whose
    /// result has not come by then goes back to the queue as a new attempt.
    #[field(rule = LEASE_SECONDS)]
    pub lease_seconds: Option<i64>,
}

/// The body of `POST /v2/engine/jobs/{id}/result`: what an attempt came to.
#[derive(Clone, Debug, Body)]
pub struct JobResult {
    /// The attempt reported, as the claim answered it; a second report of one attempt
    /// changes nothing.
    #[field(rule = ATTEMPT)]
    pub attempt: i64,
    /// What it came to: for faxes and texts `sent` or `failed`; for campaign calls one of
    /// the tenant's call outcomes or a built-in one (`answered`, `no-answer`, `busy`,
    /// `failed`, `opted-out`). Any other is a 400.
    #[field(rule = OUTCOME)]
    pub outcome: String,
    /// When the attempt began (RFC 3339).
    #[field(rule = Instant)]
    pub started_at: Option<DateTime<Utc>>,
    /// When it ended (RFC 3339).
    #[field(rule = Instant)]
    pub ended_at: Option<DateTime<Utc>>,
    /// The engine's result code (a fax's T.30 code, a carrier's error code).
    #[field(rule = text(1, 64))]
    pub result_code: Option<String>,
    /// Faxes: pages sent.
    #[field(rule = int(0, 10_000))]
    pub pages: Option<i64>,
    /// Faxes: the transfer speed in bits per second.
    #[field(rule = int(0, 1_000_000))]
    pub speed: Option<i64>,
    /// Calls: how long it lasted, in seconds.
    #[field(rule = int(0, 86_400))]
    pub duration_seconds: Option<i64>,
    /// The engine's or carrier's id of what it did (a message id, a call's unique id).
    #[field(rule = text(1, 255))]
    pub reference: Option<String>,
    /// A human-readable note.
    #[field(rule = text(1, 1000))]
    pub message: Option<String>,
}

/// A job leased to an engine.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClaimedJob {
    /// The job's id.
    pub id: EngineJobId,
    /// What to do.
    pub kind: String,
    /// The tenant it is done for.
    pub tenant_id: TenantId,
    /// The record it works for (a fax's, a text's or a campaign record's id), when there
    /// is one.
    pub subject_id: Option<i64>,
    /// This attempt's number: the result names it.
    pub attempt: i64,
    /// What the engine needs to do it (per kind).
    #[schema(value_type = Object)]
    pub payload: serde_json::Value,
    /// When the lease runs out (ISO 8601 UTC): report the result before then.
    pub lease_until: String,
}

/// The answer of `POST /v2/engine/jobs/claim`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClaimedJobs {
    /// The leased jobs, oldest due first; empty when there is no due work.
    pub jobs: Vec<ClaimedJob>,
}

/// The answer of `POST /v2/engine/jobs/{id}/result`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultRecorded {
    /// Whether this report was recorded (`false`: the attempt's result was recorded before).
    pub recorded: bool,
    /// The job's id.
    pub id: EngineJobId,
    /// The attempt.
    pub attempt: i64,
    /// The job's state now: `pending` (to be tried again), `done`, `failed`, `cancelled`.
    pub state: String,
}
