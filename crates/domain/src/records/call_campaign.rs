//! Call campaigns: a tenant's outbound calling list with its caller id, where answered
//! calls go, when calls may be placed (the calling window), how often a number is tried,
//! and the campaign's life (`draft` → `scheduled` → `running` ⇄ `paused` → `completed`,
//! or `cancelled`); and its records, the numbers to call with their attempts and outcome.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use super::NAME;
use super::destination::{DestType, Destination, DestinationInput, Destinations, OneOrList};
use crate::declare::{Body, Filter, Listed};
use crate::ids::{BranchId, CallCampaignId, CampaignRecordId, TenantId};
use crate::list::TenantFilter;
use crate::schedule::{self, Interval, WeeklyHours};
use crate::validation::{
    Among, ID, Instant, Int, ListOf, Nested, ObjectReader, Raw, Rule, Text, TimeZone, among,
    as_str, int, list_of, nested, text,
};

/// Most records one import may carry.
pub const MAX_IMPORT: usize = 10_000;
/// Most records one export may stream (release notes: exports over 512,000 are blocked).
pub const MAX_EXPORT: i64 = 512_000;

crate::closed_set! {
    /// The status of a campaign.
    pub enum CampaignStatus {
        /// Being prepared; never dials.
        Draft = "draft",
        /// Starts running at its `startAt`.
        Scheduled = "scheduled",
        /// Dialling its records inside the calling window.
        Running = "running",
        /// Stopped for now; may resume.
        Paused = "paused",
        /// Every record done, or finished by hand; final.
        Completed = "completed",
        /// Given up; final.
        Cancelled = "cancelled",
    }
}
const STATUS: Among<CampaignStatus> = among();

/// Whether a campaign may go from `from` to `to` (staying put is always allowed):
/// a draft is scheduled or started, a scheduled one started or taken back to draft, a
/// running one paused or finished, a paused one resumed or finished; any but a finished
/// one may be cancelled, and completed or cancelled is final.
pub fn may_move(from: CampaignStatus, to: CampaignStatus) -> bool {
    use CampaignStatus::{Cancelled, Completed, Draft, Paused, Running, Scheduled};
    from == to
        || matches!(
            (from, to),
            (Draft, Scheduled | Running | Cancelled)
                | (Scheduled, Draft | Running | Paused | Cancelled)
                | (Running, Paused | Completed | Cancelled)
                | (Paused, Running | Completed | Cancelled)
        )
}

crate::closed_set! {
    /// The status of a campaign record.
    pub enum RecordStatus {
        /// Waiting to be dialled.
        Pending = "pending",
        /// A call is being placed.
        Dialing = "dialing",
        /// A call reached an outcome that ends the record.
        Completed = "completed",
        /// Every attempt failed.
        Failed = "failed",
        /// The number is on an opt-out list.
        OptedOut = "opted-out",
        /// Set aside by hand; never dialled.
        Skipped = "skipped",
    }
}
/// The statuses a record may be given by hand: back to `pending` (dial it again) or
/// `skipped` (never dial it).
const SETTABLE_RECORD_STATUS: Among<RecordStatus> =
    Among(&[RecordStatus::Pending, RecordStatus::Skipped]);

/// The destinations an answered campaign call may be connected to.
pub const ANSWERED_DESTINATION: Destinations = Destinations {
    name: "CampaignDestinationBody",
    allowed: &[
        DestType::Ext,
        DestType::Ivr,
        DestType::Queue,
        DestType::PagingGroup,
    ],
    min: 1,
};

/// Attempts per number.
pub const MAX_ATTEMPTS: Int = int(1, 10);
/// Minutes between two attempts of a number (at most a week).
pub const RETRY_DELAY: Int = int(1, 10_080);
/// A number as written: E.164 or national digits with the usual punctuation.
pub const NUMBER: Text = text(1, 40);
/// A phone number of the tenant used as caller id, written as a number is.
const CALLER_ID: Text = NUMBER;

/// A local time of day, `HH:MM` (`24:00` allowed as an end).
#[derive(Clone, Copy, Debug)]
pub struct LocalTime;

/// The pattern of [`LocalTime`].
const LOCAL_TIME_PATTERN: &str = "^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$";

impl Rule for LocalTime {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        schedule::parse_minute(s, true)
            .map(|_| s.to_owned())
            .ok_or_else(|| format!("must match pattern {LOCAL_TIME_PATTERN}"))
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(LOCAL_TIME_PATTERN))
            .into()
    }
    fn example(&self) -> Value {
        json!("09:00")
    }
}

/// A weekday, 0 (Sunday) to 6 (Saturday).
const WEEKDAY: Int = int(0, 6);
const DAYS: ListOf<Int> = list_of(WEEKDAY, 1, 7);

/// When calls may be placed, as answered.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallingWindow {
    /// Weekdays calls are placed on, 0 (Sunday) to 6 (Saturday).
    pub days: Vec<i64>,
    /// First local time calls are placed, `HH:MM`.
    pub from: String,
    /// Local time calls stop, `HH:MM` (`24:00` for midnight), after `from`.
    pub to: String,
    /// The IANA time zone of `from` and `to`.
    pub time_zone: String,
}

impl CallingWindow {
    /// The window as weekly hours for the business-hours evaluator.
    pub fn weekly(&self) -> WeeklyHours {
        let mut weekly = WeeklyHours::default();
        let (Some(from), Some(to)) = (
            schedule::parse_minute(&self.from, false),
            schedule::parse_minute(&self.to, true),
        ) else {
            return weekly;
        };
        for day in &self.days {
            if let Some(intervals) = usize::try_from(*day)
                .ok()
                .and_then(|d| weekly.days.get_mut(d))
            {
                intervals.push(Interval { from, to });
            }
        }
        weekly
    }

    /// Whether a call may be placed at `at`, and when that answer next changes (exact
    /// across daylight-saving changes: the business-hours evaluator's answer).
    pub fn status(&self, at: DateTime<Utc>) -> schedule::Status {
        let tz = self.time_zone.parse().unwrap_or(chrono_tz::UTC);
        schedule::status(&self.weekly(), &[], tz, at)
    }
}

/// The calling window of a body.
#[derive(Clone, Debug, Body)]
#[body(check = CallingWindowBody::check, example = CallingWindowBody::example_body)]
pub struct CallingWindowBody {
    /// Weekdays calls are placed on, 0 (Sunday) to 6 (Saturday).
    #[field(rule = DAYS)]
    pub days: Vec<i64>,
    /// First local time calls are placed, `HH:MM`.
    #[field(rule = LocalTime)]
    pub from: String,
    /// Local time calls stop, `HH:MM` (`24:00` for midnight), after `from`.
    #[field(rule = LocalTime)]
    pub to: String,
    /// The IANA time zone of `from` and `to`.
    #[field(rule = TimeZone)]
    pub time_zone: String,
}

impl CallingWindowBody {
    fn example_body() -> Value {
        json!({"days": [1, 2, 3, 4, 5], "from": "09:00", "to": "17:00", "timeZone": "America/New_York"})
    }

    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        let mut ok = true;
        if schedule::parse_minute(&self.from, false).is_none() {
            r.problem("from", "must be a time of day before 24:00");
            ok = false;
        }
        let (Some(from), Some(to)) = (
            schedule::parse_minute(&self.from, true),
            schedule::parse_minute(&self.to, true),
        ) else {
            return false;
        };
        if to <= from {
            r.problem("to", "must be after from");
            ok = false;
        }
        ok
    }

    /// The window as answered, days in order and once each.
    pub fn answer(&self) -> CallingWindow {
        let mut days = self.days.clone();
        days.sort_unstable();
        days.dedup();
        CallingWindow {
            days,
            from: self.from.clone(),
            to: self.to.clone(),
            time_zone: self.time_zone.clone(),
        }
    }
}

const WINDOW: Nested<CallingWindowBody> = nested::<CallingWindowBody>();

/// A call campaign.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, status, tenant_id, start_at), filter = CampaignFilter, table = "c", search("name"))]
pub struct CallCampaign {
    /// The campaign's id.
    pub id: CallCampaignId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// The branch it calls for; null for the whole tenant.
    pub branch_id: Option<BranchId>,
    /// Its name.
    pub name: String,
    /// The tenant's phone number shown to the callee, E.164.
    pub caller_id_number: String,
    /// Where an answered call is connected, its name and number resolved.
    pub destination: Option<Destination>,
    /// When calls may be placed.
    pub calling_window: CallingWindow,
    /// Attempts per number (1–10).
    pub max_attempts: i64,
    /// Minutes between two attempts of a number.
    pub retry_delay_minutes: i64,
    /// `draft`, `scheduled`, `running`, `paused`, `completed` or `cancelled`.
    #[schema(value_type = String)]
    pub status: CampaignStatus,
    /// When a scheduled campaign starts running; null to start by hand.
    pub start_at: Option<String>,
    /// When it was created.
    pub created_at: String,
}

/// Filters of the campaign list.
#[derive(Clone, Debug, Default, Filter)]
pub struct CampaignFilter {
    /// The tenant.
    #[field(flatten)]
    pub tenant: TenantFilter,
    /// Only campaigns in this status.
    #[field(rule = STATUS)]
    pub status: Option<CampaignStatus>,
}

/// The body of `POST /v2/admin/call-campaigns/`.
#[derive(Clone, Debug, Body)]
#[body(placement(tenant))]
pub struct CreateCallCampaign {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// A branch of the tenant.
    #[field(rule = ID)]
    pub branch_id: Option<BranchId>,
    /// Its name.
    #[field(rule = NAME)]
    pub name: String,
    /// A phone number of the tenant, shown to the callee.
    #[field(rule = CALLER_ID)]
    pub caller_id_number: String,
    /// Where an answered call is connected: an extension, IVR, queue or paging group of the
    /// tenant (a list of exactly one, or that one object as answers give it).
    #[field(rule = OneOrList(ANSWERED_DESTINATION))]
    pub destination: Vec<DestinationInput>,
    /// When calls may be placed.
    #[field(rule = WINDOW)]
    pub calling_window: CallingWindowBody,
    /// Attempts per number (1–10, default 3).
    #[field(rule = MAX_ATTEMPTS, default = 3)]
    pub max_attempts: i64,
    /// Minutes between two attempts of a number (default 60).
    #[field(rule = RETRY_DELAY, default = 60)]
    pub retry_delay_minutes: i64,
    /// `draft` (default) or `scheduled`.
    #[field(rule = INITIAL_STATUS, default = CampaignStatus::Draft)]
    pub status: CampaignStatus,
    /// When a scheduled campaign starts running.
    #[field(rule = Instant)]
    pub start_at: Option<DateTime<Utc>>,
}

/// What a new campaign may start as.
const INITIAL_STATUS: Among<CampaignStatus> =
    Among(&[CampaignStatus::Draft, CampaignStatus::Scheduled]);

/// The body of `PATCH /v2/admin/call-campaigns/{id}`: fields not sent stay unchanged; a
/// new `status` must be a step the campaign may take (409 otherwise).
#[derive(Clone, Debug, Default, Body)]
#[body(fixed(tenantId = "cannot be changed"))]
pub struct UpdateCallCampaign {
    /// A branch of the tenant, or null for the whole tenant.
    #[field(rule = ID)]
    pub branch_id: Option<Option<BranchId>>,
    /// Its name.
    #[field(rule = NAME)]
    pub name: Option<String>,
    /// A phone number of the tenant.
    #[field(rule = CALLER_ID)]
    pub caller_id_number: Option<String>,
    /// Where an answered call is connected (a list of exactly one, or that one object
    /// as answers give it).
    #[field(rule = OneOrList(ANSWERED_DESTINATION))]
    pub destination: Option<Vec<DestinationInput>>,
    /// When calls may be placed.
    #[field(rule = WINDOW)]
    pub calling_window: Option<CallingWindowBody>,
    /// Attempts per number (1–10).
    #[field(rule = MAX_ATTEMPTS)]
    pub max_attempts: Option<i64>,
    /// Minutes between two attempts of a number.
    #[field(rule = RETRY_DELAY)]
    pub retry_delay_minutes: Option<i64>,
    /// The campaign's next status.
    #[field(rule = STATUS)]
    pub status: Option<CampaignStatus>,
    /// When a scheduled campaign starts running, or null.
    #[field(rule = Instant)]
    pub start_at: Option<Option<DateTime<Utc>>>,
}

/// A number of a campaign, with what calling it has done so far.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[list(sort(id, number, name, status, outcome, attempts, last_attempt_at), filter = RecordFilter, search("number", "name"))]
pub struct CampaignRecord {
    /// The record's id.
    pub id: CampaignRecordId,
    /// The campaign it belongs to.
    pub campaign_id: CallCampaignId,
    /// The number to call, E.164.
    pub number: String,
    /// Who is called; null when unknown.
    pub name: Option<String>,
    /// `pending`, `dialing`, `completed`, `failed`, `opted-out` or `skipped`.
    #[schema(value_type = String)]
    pub status: RecordStatus,
    /// The call outcome of the last attempt; null before any.
    pub outcome: Option<String>,
    /// Calls placed so far.
    pub attempts: i64,
    /// When the last call was placed.
    pub last_attempt_at: Option<String>,
    /// When it is due to be called next; null when not waiting.
    pub next_attempt_at: Option<String>,
    /// When it was added.
    pub created_at: String,
}

/// One call placed for a record, as the engine reported it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallAttempt {
    /// What came of it: a call outcome, or `abandoned` (given up after its leases kept
    /// running out without a result).
    pub outcome: String,
    /// When the call began (ISO 8601, UTC), when reported.
    pub started_at: Option<String>,
    /// When it ended, when reported.
    pub ended_at: Option<String>,
    /// When its result was recorded.
    pub recorded_at: String,
    /// How long it lasted in seconds, when reported.
    pub duration_seconds: Option<i64>,
    /// The engine's result code, when reported.
    pub result_code: Option<String>,
    /// The engine's id of the call (its unique id), when reported.
    pub reference: Option<String>,
    /// The engine's note, or why the attempt was given up.
    pub message: Option<String>,
}

/// A record as its own GET answers it: with the calls placed for it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CampaignRecordDetail {
    /// The record.
    #[serde(flatten)]
    pub record: CampaignRecord,
    /// Every call placed for it whose result came, oldest first (a call cancelled before
    /// it was dialled — the number opted out, the campaign paused — is not one). It
    /// keeps the calls before a PATCH to `pending` started the count over.
    pub attempt_history: Vec<CallAttempt>,
}

/// Filters of a campaign's record list (and its export).
#[derive(Clone, Debug, Default, Filter)]
pub struct RecordFilter {
    /// Only records in this status.
    #[field(rule = RECORD_STATUS)]
    pub status: Option<RecordStatus>,
    /// Only records whose last outcome is this call outcome's name.
    #[field(rule = NAME)]
    pub outcome: Option<String>,
}

const RECORD_STATUS: Among<RecordStatus> = among();

/// The body of `POST /v2/admin/call-campaigns/{id}/records`.
#[derive(Clone, Debug, Body)]
pub struct CreateCampaignRecord {
    /// The number to call: E.164, or national in the tenant's default country.
    #[field(rule = NUMBER)]
    pub number: String,
    /// Who is called.
    #[field(rule = NAME)]
    pub name: Option<String>,
}

/// The body of `PATCH /v2/admin/call-campaigns/{id}/records/{recordId}`.
#[derive(Clone, Debug, Default, Body)]
pub struct UpdateCampaignRecord {
    /// The number to call (checked again against the opt-out lists).
    #[field(rule = NUMBER)]
    pub number: Option<String>,
    /// Who is called, or null.
    #[field(rule = NAME)]
    pub name: Option<Option<String>>,
    /// `pending` to dial it again (its attempts start over), `skipped` never to dial it.
    #[field(rule = SETTABLE_RECORD_STATUS)]
    pub status: Option<RecordStatus>,
}

/// One row of an import's answer.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportResult {
    /// The row's position, from 1 (for CSV, the data row after the header).
    pub row: usize,
    /// The number as sent.
    pub input: String,
    /// The number in E.164; null when it is not a number.
    pub number: Option<String>,
    /// `created`, `duplicate`, `opted-out` or `invalid`.
    pub result: String,
    /// The new record's id (`created`) or the existing one's (`duplicate`).
    pub id: Option<i64>,
    /// Why the row was not created (`opted-out`: the list naming it; `invalid`: the reason).
    pub reason: Option<String>,
}

/// The answer of an import: counts and one result per row, in order.
#[derive(Clone, Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportSummary {
    /// Rows created.
    pub created: usize,
    /// Rows whose number the campaign already holds.
    pub duplicates: usize,
    /// Rows whose number is on an opt-out list.
    pub opted_out: usize,
    /// Rows that are not a dialable number.
    pub invalid: usize,
    /// One result per row.
    pub results: Vec<ImportResult>,
}

/// One row of a JSON import.
#[derive(Clone, Debug, Body)]
pub struct ImportRow {
    /// The number to call: E.164, or national in the tenant's default country.
    #[field(rule = NUMBER)]
    pub number: String,
    /// Who is called.
    #[field(rule = NAME)]
    pub name: Option<String>,
}

/// The rows of a JSON import.
pub const IMPORT_ROWS: ListOf<Nested<ImportRow>> = list_of(nested::<ImportRow>(), 1, MAX_IMPORT);

/// The example of an import body.
pub fn import_example() -> Value {
    json!([{"number": "+12025550143", "name": "Ada Lovelace"}, {"number": "(202) 555-0178"}])
}

/// The JSON body of `POST /v2/admin/call-campaigns/{id}/records/import`: an array of
/// 1 to 10,000 rows `{number, name?}`.
#[derive(Clone, Debug)]
pub struct ImportRows(pub Vec<ImportRow>);

impl crate::validation::FromBody for ImportRows {
    fn from_body(body: &Value) -> Result<Self, crate::Problems> {
        use crate::validation::Field;
        let mut problems = crate::Problems::new();
        let rows = IMPORT_ROWS.read(
            body,
            &mut crate::validation::At::new(crate::Location::Body, String::new(), &mut problems),
        );
        match rows {
            Some(rows) if problems.is_empty() => Ok(ImportRows(rows)),
            _ => Err(problems),
        }
    }
}

impl utoipa::PartialSchema for ImportRows {
    fn schema() -> utoipa::openapi::RefOr<Schema> {
        use crate::validation::Field;
        let mut schema = IMPORT_ROWS.field_schema();
        if let utoipa::openapi::RefOr::T(Schema::Array(array)) = &mut schema {
            array.description = Some("The rows to import, each `{number, name?}`.".into());
            array.examples = vec![import_example()];
        }
        schema
    }
}

impl ToSchema for ImportRows {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<Schema>)>) {
        use crate::validation::Field;
        IMPORT_ROWS.components(schemas);
    }
}
