//! Calls and their recordings, with the fields Asterisk's CDRs give them: pushed live by
//! the engine (started, answered, ended) or imported from `cdr_csv`; a recorded call
//! answers as a Call recording whose audio is an MP3 in object storage.

use std::collections::HashMap;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::ids::TenantId;
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{
    FromBody, FromQuery, ID, ObjectReader, OneOf, Problems, QueryReader, Raw, Rule, Text, int, text,
};

/// A call identifier (Asterisk's uniqueid): 1 to 255 characters.
pub const CALL_ID: Text = text(1, 255);

/// Directions of a call.
pub const DIRECTIONS: &[&str] = &["inbound", "outbound", "internal"];

/// A direction.
pub const DIRECTION: OneOf = OneOf(DIRECTIONS);

/// CDR dispositions.
pub const DISPOSITIONS: &[&str] = &["ANSWERED", "NO ANSWER", "BUSY", "FAILED", "CONGESTION"];

/// The longest recording accepted, in bytes (an hour of 128 kbps MP3, or of 16-bit
/// 16 kHz stereo WAV before transcoding, fits).
pub const MAX_RECORDING_BYTES: usize = 256 * 1024 * 1024;

/// A call recording, as the spec.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallRecording {
    /// A presigned URL of the recording's MP3 (S3's own, or switchboard's signed link).
    #[serde(rename = "mediaURL")]
    #[schema(rename = "mediaURL")]
    pub media_url: String,
    /// When the call started (ISO 8601, UTC).
    pub time: String,
    /// The tenant.
    pub tenant_id: i64,
    /// `inbound`, `outbound` or `internal`.
    pub direction: String,
    /// The caller's number.
    pub caller_id_num: String,
    /// The caller's name.
    pub caller_id_name: String,
    /// The number dialled.
    pub dialed_num: String,
    /// The call identifier (Asterisk's uniqueid).
    pub unique_id: String,
    /// The call's length in seconds.
    pub duration: i64,
}

/// How far a call has got, in order: each report may only move it forward.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CallPhase {
    /// Ringing.
    Started,
    /// Answered.
    Answered,
    /// Hung up.
    Ended,
}

/// A call as the engine reports it or a CDR row records it.
#[derive(Clone, Debug)]
pub struct CallReport {
    /// The tenant.
    pub tenant: TenantId,
    /// Asterisk's uniqueid.
    pub unique_id: String,
    /// How far the call has got.
    pub phase: CallPhase,
    /// `inbound`, `outbound` or `internal`.
    pub direction: String,
    /// The caller's number.
    pub caller_id_num: String,
    /// The caller's name.
    pub caller_id_name: String,
    /// The number dialled.
    pub dialed_num: String,
    /// When it started.
    pub start: DateTime<Utc>,
    /// When it was answered.
    pub answer: Option<DateTime<Utc>>,
    /// When it ended.
    pub end: Option<DateTime<Utc>>,
    /// Seconds from start to end.
    pub duration: i64,
    /// Seconds from answer to end.
    pub billsec: i64,
    /// The CDR disposition (ANSWERED, NO ANSWER, BUSY, FAILED, CONGESTION).
    pub disposition: String,
    /// The calling channel.
    pub channel: String,
    /// The called channel.
    pub dst_channel: String,
    /// The last dialplan application.
    pub last_app: String,
    /// The account code.
    pub account_code: String,
    /// The CDR user field.
    pub userfield: String,
}

impl CallReport {
    /// Whether the call was answered (its end is CALL_ENDED rather than CALL_MISSED).
    pub fn answered(&self) -> bool {
        self.answer.is_some() || self.billsec > 0 || self.disposition == "ANSWERED"
    }

    /// The ISO 8601 form of the start, as answered in `time`.
    pub fn time(&self) -> String {
        iso(self.start)
    }
}

/// An instant as ISO 8601 UTC with seconds.
pub fn iso(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// An RFC 3339 date-time with offset, as an instant.
#[derive(Clone, Copy, Debug)]
pub struct Instant;

impl Rule for Instant {
    type Output = DateTime<Utc>;
    fn check(&self, raw: Raw<'_>) -> Result<DateTime<Utc>, String> {
        let text = match raw {
            Raw::Json(Value::String(s)) => s.as_str(),
            Raw::Text(s) => s,
            Raw::Json(_) => return Err("must be a string".into()),
        };
        DateTime::parse_from_rfc3339(text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| "must be an ISO 8601 date-time with offset (2026-12-24T09:00:00Z)".into())
    }
}

const PHASES: OneOf = OneOf(&["started", "answered", "ended"]);

/// The body of `POST /v2/ingest/calls`: one report of a call's progress, for the tenant
/// the body names.
#[derive(Clone, Debug)]
pub struct IngestCall(pub CallReport);

impl FromBody for IngestCall {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let short = text(0, 255);
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            let tenant = r.required("tenantId", &ID);
            let unique_id = r.required("uniqueId", &CALL_ID);
            let event = r.required("event", &PHASES);
            let direction = r.required("direction", &DIRECTION);
            let caller_num = r.optional("callerIdNum", &short);
            let caller_name = r.optional("callerIdName", &short);
            let dialed = r.optional("dialedNum", &short);
            let start = r.required("time", &Instant);
            let answer = r.optional("answerTime", &Instant);
            let end = r.optional("endTime", &Instant);
            let duration = r.optional("duration", &int(0, i64::from(i32::MAX)));
            let billsec = r.optional("billsec", &int(0, i64::from(i32::MAX)));
            let disposition = r.optional("disposition", &OneOf(DISPOSITIONS));
            let channel = r.optional("channel", &short);
            let dst_channel = r.optional("dstChannel", &short);
            let last_app = r.optional("lastApp", &short);
            let account_code = r.optional("accountCode", &short);
            let userfield = r.optional("userfield", &short);
            if let (Some(start), Ok(Some(end))) = (&start, &end)
                && end < start
            {
                r.problem("endTime", "must not be before time");
            }
            if let (Some(start), Ok(Some(answer))) = (&start, &answer)
                && answer < start
            {
                r.problem("answerTime", "must not be before time");
            }
            (
                tenant,
                unique_id,
                event,
                direction,
                (caller_num, caller_name, dialed),
                (start, answer, end, duration, billsec, disposition),
                (channel, dst_channel, last_app, account_code, userfield),
            )
        });
        problems.finish(|| {
            let (tenant, unique_id, event, direction, parties, times, cdr) = fields?;
            let (caller_num, caller_name, dialed) = parties;
            let (start, answer, end, duration, billsec, disposition) = times;
            let (channel, dst_channel, last_app, account_code, userfield) = cdr;
            let phase = match event?.as_str() {
                "started" => CallPhase::Started,
                "answered" => CallPhase::Answered,
                _ => CallPhase::Ended,
            };
            let start = start?;
            let answer = answer.ok()?;
            let end = end.ok()?;
            let duration = duration
                .ok()?
                .or_else(|| end.map(|e| (e - start).num_seconds()))
                .unwrap_or(0);
            let billsec = billsec
                .ok()?
                .or_else(|| answer.zip(end).map(|(a, e)| (e - a).num_seconds()))
                .unwrap_or(0);
            Some(IngestCall(CallReport {
                tenant: TenantId(tenant?),
                unique_id: unique_id?,
                phase,
                direction: direction?,
                caller_id_num: caller_num.ok()?.unwrap_or_default(),
                caller_id_name: caller_name.ok()?.unwrap_or_default(),
                dialed_num: dialed.ok()?.unwrap_or_default(),
                start,
                answer,
                end,
                duration,
                billsec,
                disposition: disposition.ok()?.unwrap_or_default(),
                channel: channel.ok()?.unwrap_or_default(),
                dst_channel: dst_channel.ok()?.unwrap_or_default(),
                last_app: last_app.ok()?.unwrap_or_default(),
                account_code: account_code.ok()?.unwrap_or_default(),
                userfield: userfield.ok()?.unwrap_or_default(),
            }))
        })
    }
}

/// The call-ingest body, for the API document.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct IngestCallBody {
    /// The tenant whose call it is.
    #[schema(minimum = 1)]
    pub tenant_id: i64,
    /// Asterisk's uniqueid.
    #[schema(min_length = 1, max_length = 255)]
    pub unique_id: String,
    /// How far the call has got: `started`, `answered` or `ended`.
    #[schema(pattern = "^(started|answered|ended)$")]
    pub event: String,
    /// `inbound`, `outbound` or `internal`.
    #[schema(pattern = "^(inbound|outbound|internal)$")]
    pub direction: String,
    /// When the call started (RFC 3339).
    #[schema(format = DateTime)]
    pub time: String,
    /// The caller's number.
    #[schema(nullable = false, max_length = 255)]
    pub caller_id_num: Option<String>,
    /// The caller's name.
    #[schema(nullable = false, max_length = 255)]
    pub caller_id_name: Option<String>,
    /// The number dialled.
    #[schema(nullable = false, max_length = 255)]
    pub dialed_num: Option<String>,
    /// When it was answered.
    #[schema(nullable = false, format = DateTime)]
    pub answer_time: Option<String>,
    /// When it ended.
    #[schema(nullable = false, format = DateTime)]
    pub end_time: Option<String>,
    /// Seconds from start to end (computed from the times when omitted).
    #[schema(nullable = false, minimum = 0, maximum = 2147483647)]
    pub duration: Option<i64>,
    /// Seconds from answer to end (computed from the times when omitted).
    #[schema(nullable = false, minimum = 0, maximum = 2147483647)]
    pub billsec: Option<i64>,
    /// The CDR disposition.
    #[schema(
        nullable = false,
        pattern = "^(ANSWERED|NO ANSWER|BUSY|FAILED|CONGESTION)$"
    )]
    pub disposition: Option<String>,
    /// The calling channel.
    #[schema(nullable = false, max_length = 255)]
    pub channel: Option<String>,
    /// The called channel.
    #[schema(nullable = false, max_length = 255)]
    pub dst_channel: Option<String>,
    /// The last dialplan application.
    #[schema(nullable = false, max_length = 255)]
    pub last_app: Option<String>,
    /// The account code.
    #[schema(nullable = false, max_length = 255)]
    pub account_code: Option<String>,
    /// The CDR user field.
    #[schema(nullable = false, max_length = 255)]
    pub userfield: Option<String>,
}

documented_as!(IngestCallBody => IngestCall);

/// Filters of the call-recording list.
#[derive(Clone, Debug, Default)]
pub struct CallRecordingFilter {
    /// Only this tenant's recordings.
    pub tenant_id: Option<TenantId>,
    /// Only calls of this direction.
    pub direction: Option<String>,
}

impl FromQuery for CallRecordingFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mut q = QueryReader::new(params, &mut problems);
        let tenant_id = q.optional("tenantId", &ID).map(TenantId);
        let direction = q.optional("direction", &DIRECTION);
        problems.finish(|| {
            Some(CallRecordingFilter {
                tenant_id,
                direction,
            })
        })
    }
}

/// Sorting and search of the call-recording list: `query` matches the parties' numbers
/// and name and the call identifier.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "c.id",
        },
        SortField {
            name: "time",
            column: "c.start_unix",
        },
        SortField {
            name: "duration",
            column: "c.duration",
        },
        SortField {
            name: "callerIdNum",
            column: "c.caller_id_num",
        },
        SortField {
            name: "dialedNum",
            column: "c.dialed_num",
        },
        SortField {
            name: "uniqueId",
            column: "c.unique_id",
        },
    ],
    search_columns: &[
        "c.caller_id_num",
        "c.caller_id_name",
        "c.dialed_num",
        "c.unique_id",
    ],
    search_index: None,
};

impl crate::list::ListFilter for CallRecordingFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[
        FilterDoc {
            name: "tenantId",
            description: "Only this tenant's recordings.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "direction",
            description: "Only calls of this direction.",
            kind: FilterKind::OneOf(DIRECTIONS),
        },
    ];
}
