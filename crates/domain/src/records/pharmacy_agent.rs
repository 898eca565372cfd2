//! Pharmacy agents: the refill line of a pharmacy tenant. A caller dials the agent's
//! number (or is routed to it as a `PHARMACY_AGENT` destination), hears the greeting,
//! keys prescription (Rx) numbers of a fixed length, and the engine files the refill with
//! the pharmacy system (a conduit); a caller who needs a person, or who keeps keying
//! wrong numbers, goes to the pharmacist (the fallback), and outside the agent's business
//! hours calls go to the after-hours destination. The refill requests the engine reports
//! are recorded per agent.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::NAME;
use super::conduit::ConduitKind;
use super::destination::{Destination, DestinationInput};
use super::ivr::PATH;
use crate::declare::{Body, Filter, Listed};
use crate::ids::{
    BusinessHourId, ConduitId, MediaFileId, PharmacyAgentId, RefillRequestId, TenantId,
};
use crate::list::TenantFilter;
use crate::validation::{
    Among, Bit, ID, Instant, Int, ListOf, Nested, ObjectReader, PlanNumber, Text, among, int,
    list_of, nested, plan_number, text,
};

/// An agent's number: 1 to 32 dial characters, unique in the tenant's dial plan.
pub const NUMBER: PlanNumber = plan_number(1, 32);

/// How many times a caller may key an Rx number again after a wrong one, 1 to 10 (the
/// release notes' bounds), before going to the pharmacist.
pub const REFILL_LOOP_ATTEMPTS: Int = int(1, 10);

/// How many digits an Rx number has, 4 to 20: pharmacy systems number prescriptions with
/// a fixed count of digits, which is also how the engine knows the caller has finished
/// keying one.
pub const RX_NUMBER_LENGTH: Int = int(4, 20);

crate::closed_set! {
    /// What became of a refill request.
    pub enum RefillOutcome {
        /// Filed with the pharmacy system.
        Submitted = "submitted",
        /// The pharmacy system refused it or could not be reached.
        Failed = "failed",
        /// The caller was put through to the pharmacy.
        Transferred = "transferred",
        /// The caller hung up first.
        Abandoned = "abandoned",
    }
}
const OUTCOME: Among<RefillOutcome> = among();

/// The conduit kind an agent files refills through.
pub const PHARMACY_SYSTEM: ConduitKind = ConduitKind::PharmacySystem;

/// The after-hours rule as answered: the business hours deciding when the agent is
/// closed, and where calls go then.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AfterHours {
    /// The business hours of the tenant; outside them (and on their holidays) the agent
    /// is closed.
    pub business_hour_id: BusinessHourId,
    /// Their name.
    pub business_hour_name: String,
    /// Where calls go while the agent is closed, resolved; null: the call ends.
    pub destination: Option<Destination>,
}

/// A pharmacy agent.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, number, tenant_id), filter = TenantFilter, table = "a", search("name", "number"))]
pub struct PharmacyAgent {
    /// The agent's id.
    pub id: PharmacyAgentId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its name.
    pub name: String,
    /// The number dialled to reach it, unique in the tenant's dial plan.
    pub number: String,
    /// 1: a caller may request several prescriptions in one call; 0: one per call.
    pub ivr_bulk: i64,
    /// Tries a caller gets to key a valid Rx number (1 to 10) before the fallback.
    pub refill_loop_attempts: i64,
    /// Digits of an Rx number (4 to 20).
    pub rx_number_length: i64,
    /// The media file greeting callers; null: the platform's spoken greeting.
    pub greeting_media_file_id: Option<MediaFileId>,
    /// The media file asking for an Rx number; null: the platform's spoken prompt.
    pub prompt_media_file_id: Option<MediaFileId>,
    /// Where a caller goes for a pharmacist (on request, or after the last failed try),
    /// resolved; null: the call ends.
    pub fallback_destination: Option<Destination>,
    /// When the agent is closed and where calls go then; null: always open.
    pub after_hours: Option<AfterHours>,
    /// The tenant's `pharmacy-system` conduit refills are filed through; null: none yet.
    pub conduit_id: Option<ConduitId>,
}

/// The after-hours rule as sent: `{businessHourId, destination?}`.
#[derive(Clone, Debug, PartialEq, Eq, Body)]
#[body(example = AfterHoursInput::example_body)]
pub struct AfterHoursInput {
    /// Business hours of the tenant; outside them the agent is closed.
    #[field(rule = ID)]
    pub business_hour_id: BusinessHourId,
    /// Where calls go while closed (default: the call ends).
    #[field(rule = PATH, nullable)]
    pub destination: Option<DestinationInput>,
}

impl AfterHoursInput {
    fn example_body() -> Value {
        json!({"businessHourId": 1, "destination": {"id": 1, "destType": "VOICEMAIL"}})
    }
}

const AFTER_HOURS: Nested<AfterHoursInput> = nested::<AfterHoursInput>();
/// A media file id.
const MEDIA_FILE: Int = int(1, i64::MAX);

/// The body of `POST /v2/admin/pharmacy/agents/`.
// `UpdatePharmacyAgent`, the body of `PATCH`, is generated from it; a field with `column`
// is stored in the agent's row (docs/decisions.md, "Declared once").
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant),
    example = CreatePharmacyAgent::example_body,
    update(
        name = UpdatePharmacyAgent,
        doc = "The body of `PATCH /v2/admin/pharmacy/agents/{id}`: fields not sent stay unchanged;\n`null` clears the media files, the fallback, the after-hours rule and the conduit.",
        fixed(tenantId = "cannot be changed"),
    )
)]
pub struct CreatePharmacyAgent {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Its name.
    #[field(rule = NAME, column)]
    pub name: String,
    /// Its number, free in the tenant's dial plan.
    #[field(rule = NUMBER, column)]
    pub number: String,
    /// 1: several prescriptions per call; 0 (the default): one. Strictly the integers 1
    /// or 0.
    #[field(rule = Bit, default = 0, column)]
    pub ivr_bulk: i64,
    /// Tries to key a valid Rx number, 1 to 10 (default 3).
    #[field(rule = REFILL_LOOP_ATTEMPTS, default = 3, column)]
    pub refill_loop_attempts: i64,
    /// Digits of an Rx number, 4 to 20 (default 7).
    #[field(rule = RX_NUMBER_LENGTH, default = 7, column)]
    pub rx_number_length: i64,
    /// A media file of the tenant greeting callers; null: the platform's greeting.
    #[field(rule = MEDIA_FILE, nullable, column)]
    pub greeting_media_file_id: Option<MediaFileId>,
    /// A media file of the tenant asking for an Rx number; null: the platform's prompt.
    #[field(rule = MEDIA_FILE, nullable, column)]
    pub prompt_media_file_id: Option<MediaFileId>,
    /// Where a caller goes for a pharmacist; null (the default): the call ends.
    #[field(rule = PATH, nullable)]
    pub fallback_destination: Option<DestinationInput>,
    /// When the agent is closed and where calls go then (replaced whole); null (the
    /// default): always open.
    #[field(rule = AFTER_HOURS, nullable)]
    pub after_hours: Option<AfterHoursInput>,
    /// A `pharmacy-system` conduit of the tenant; null: none.
    #[field(rule = ID, nullable, column)]
    pub conduit_id: Option<ConduitId>,
}

impl CreatePharmacyAgent {
    fn example_body() -> Value {
        json!({"name": "Refill line", "number": "700", "ivrBulk": 1,
               "refillLoopAttempts": 3, "rxNumberLength": 7,
               "fallbackDestination": {"id": 1, "destType": "EXT"}})
    }
}

/// An id the engine gives a refill request.
const REPORTED_ID: Text = text(1, 255);
/// A caller's number as the engine saw it.
const CALLER: Text = text(1, 64);
/// Rx numbers of one request: digits, their count checked against the agent.
const RX_NUMBERS: ListOf<Text> = list_of(text(1, 20), 0, 50);

/// A refill request as the engine reports it (`POST /v2/ingest/refill-requests`).
#[derive(Clone, Debug, Body)]
#[body(check = IngestRefillRequest::check, example = IngestRefillRequest::example_body)]
pub struct IngestRefillRequest {
    /// The tenant.
    #[field(rule = ID, name = "tenantId")]
    pub tenant: TenantId,
    /// The agent that took the call; or name it by `agentNumber`.
    #[field(rule = ID)]
    pub agent_id: Option<PharmacyAgentId>,
    /// The number of the agent that took the call, when `agentId` is not sent.
    #[field(rule = NUMBER)]
    pub agent_number: Option<String>,
    /// The call's uniqueId, when the request came in a call.
    #[field(rule = REPORTED_ID)]
    pub unique_id: Option<String>,
    /// The engine's id of the request; defaults to `uniqueId`. A second report with the
    /// same one for the same agent changes nothing.
    #[field(rule = REPORTED_ID)]
    pub request_id: Option<String>,
    /// The caller's number.
    #[field(rule = CALLER)]
    pub caller_number: String,
    /// The Rx numbers keyed, each of the agent's `rxNumberLength` digits; at most one
    /// unless the agent takes several (`ivrBulk` 1).
    #[field(rule = RX_NUMBERS, default = Vec::new())]
    pub rx_numbers: Vec<String>,
    /// `submitted`, `failed`, `transferred` or `abandoned`.
    #[field(rule = OUTCOME)]
    pub outcome: RefillOutcome,
    /// When the request was made (RFC 3339); now when left out.
    #[field(rule = Instant)]
    pub time: Option<DateTime<Utc>>,
}

impl IngestRefillRequest {
    /// The request's key: `requestId`, else the call's `uniqueId`.
    pub fn key(&self) -> String {
        self.request_id
            .clone()
            .or_else(|| self.unique_id.clone())
            .unwrap_or_default()
    }

    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        let mut ok = true;
        if self.agent_id.is_none() && self.agent_number.is_none() {
            r.problem("agentId", "is required (or agentNumber)");
            ok = false;
        }
        if self.request_id.is_none() && self.unique_id.is_none() {
            r.problem("requestId", "is required (or uniqueId)");
            ok = false;
        }
        for (index, rx) in self.rx_numbers.iter().enumerate() {
            if !rx.bytes().all(|b| b.is_ascii_digit()) {
                r.problem_at(&format!("rxNumbers/{index}"), "must be digits only");
                ok = false;
            }
        }
        if self.outcome == RefillOutcome::Submitted && self.rx_numbers.is_empty() {
            r.problem(
                "rxNumbers",
                "must hold at least 1 number when the outcome is submitted",
            );
            ok = false;
        }
        ok
    }

    fn example_body() -> Value {
        json!({"tenantId": 1, "agentId": 1, "uniqueId": "1700000000.42",
               "callerNumber": "+15550102030", "rxNumbers": ["1234567"],
               "outcome": "submitted", "time": "2026-11-25T10:00:00Z"})
    }
}

/// A refill request the engine reported.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, time, outcome), filter = RefillFilter, table = "r", id = "r.id",
       search("caller_number", "rx_numbers", "request_id"))]
pub struct RefillRequest {
    /// The request's id.
    pub id: RefillRequestId,
    /// The agent that took it.
    pub agent_id: PharmacyAgentId,
    /// The engine's id of the request (the call's uniqueId unless it sent another).
    pub request_id: String,
    /// The call's uniqueId; null when not reported.
    pub unique_id: Option<String>,
    /// The caller's number.
    pub caller_number: String,
    /// The Rx numbers keyed.
    pub rx_numbers: Vec<String>,
    /// `submitted`, `failed`, `transferred` or `abandoned`.
    #[schema(value_type = String)]
    pub outcome: RefillOutcome,
    /// When it was made (ISO 8601, UTC).
    pub time: String,
}

/// Filters of an agent's refill requests.
#[derive(Clone, Debug, Default, Filter)]
pub struct RefillFilter {
    /// Only requests with this outcome.
    #[field(rule = OUTCOME)]
    pub outcome: Option<RefillOutcome>,
    /// Only requests at or after this instant (RFC 3339).
    #[field(rule = Instant)]
    pub date_from: Option<DateTime<Utc>>,
    /// Only requests before this instant (RFC 3339).
    #[field(rule = Instant)]
    pub date_to: Option<DateTime<Utc>>,
}
