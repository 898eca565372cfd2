//! Call reports: one call with its timeline, parties, recording and transcript, and the
//! reporting list of calls with its aggregates (counts, answered and missed, average and
//! p90 wait and talk time per day or hour in the tenant's time zone).
//!
//! A transcript's channels are numbered from 0 and its legend (which channel is the
//! caller, the callee, an agent) is fixed by whoever records the transcript: the report
//! answers the legend as recorded, never guessed from the call at read time.

use chrono::{DateTime, Offset, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type};

use super::call::{CALL_ID, Call, CallDirection, CallDisposition, DIRECTION};
use super::speech::LANGUAGE;
use crate::declare::{Body, Filter};
use crate::ids::{ExtensionId, QueueId, TenantId};
use crate::list::{ListSpec, Listed};
use crate::validation::{
    ID, Instant, Int, ObjectReader, Raw, Rule, Text, among, int, list_of, nested, text,
};

crate::closed_set! {
    /// The role a transcript channel carries.
    pub enum ChannelRole {
        /// The calling party.
        Caller = "caller",
        /// The called party.
        Callee = "callee",
        /// An agent (of a queue, a transfer).
        Agent = "agent",
    }
}

/// Most channels of a transcript (numbered 0 to 15).
pub const MAX_CHANNELS: usize = 16;

/// Most segments of a transcript (an hour of speech cut every second or so fits).
pub const MAX_SEGMENTS: usize = 5000;

/// A channel number.
const CHANNEL: Int = int(0, MAX_CHANNELS as i64 - 1);
/// Milliseconds from the start of the recording (up to 24 hours).
const MILLIS: Int = int(0, 86_400_000);
/// What a segment says.
const SEGMENT_TEXT: Text = text(0, 5000);
/// Who a channel is: a number or a name, as the engine knows it.
const PARTY: Text = text(0, 255);

/// A number from 0 to 1 (a recogniser's confidence).
#[derive(Clone, Copy, Debug)]
pub struct Fraction;

impl Rule for Fraction {
    type Output = f64;
    fn check(&self, raw: Raw<'_>) -> Result<f64, String> {
        match raw {
            Raw::Json(Value::Number(n)) => match n.as_f64() {
                Some(f) if (0.0..=1.0).contains(&f) => Ok(f),
                _ => Err("must be a number from 0 to 1".into()),
            },
            _ => Err("must be a number from 0 to 1".into()),
        }
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::Number)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Double)))
            .minimum(Some(0.0))
            .maximum(Some(1.0))
            .into()
    }
    fn example(&self) -> Value {
        json!(0.9)
    }
}

/// A channel of a transcript and who speaks on it.
#[derive(Clone, Debug, Serialize, Deserialize, Body)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptChannel {
    /// The channel's number, from 0.
    #[field(rule = CHANNEL)]
    pub channel: i64,
    /// `caller`, `callee` or `agent`.
    #[field(rule = among::<ChannelRole>())]
    pub role: ChannelRole,
    /// Who speaks on it (a number, an extension, a name); empty when unknown.
    #[field(rule = PARTY, default = String::new())]
    pub party: String,
}

/// A stretch of speech on one channel.
#[derive(Clone, Debug, Serialize, Deserialize, Body)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptSegment {
    /// The channel it was said on (one of the legend's).
    #[field(rule = CHANNEL)]
    pub channel: i64,
    /// Where it starts, in milliseconds from the start of the recording.
    #[field(rule = MILLIS)]
    pub start_ms: i64,
    /// Where it ends, not before `startMs`.
    #[field(rule = MILLIS)]
    pub end_ms: i64,
    /// What was said.
    #[field(rule = SEGMENT_TEXT)]
    pub text: String,
    /// The recogniser's confidence, 0 to 1; null when not given.
    #[field(rule = Fraction)]
    pub confidence: Option<f64>,
    /// The language spoken (a language tag); null when not given.
    #[field(rule = LANGUAGE)]
    pub language: Option<String>,
}

/// The body of `POST /v2/ingest/transcripts`: a call's transcript, recorded once per call
/// (a repeat changes nothing and answers `recorded: false`).
#[derive(Clone, Debug, Body)]
#[body(check = IngestTranscript::check, example = IngestTranscript::example_body)]
pub struct IngestTranscript {
    /// The tenant whose call it is.
    #[field(rule = ID)]
    pub tenant_id: TenantId,
    /// The call (its uniqueId), already reported.
    #[field(rule = CALL_ID)]
    pub unique_id: String,
    /// The legend: every channel once, numbered 0, 1, … without gaps.
    #[field(rule = list_of(nested::<TranscriptChannel>(), 1, MAX_CHANNELS))]
    pub channels: Vec<TranscriptChannel>,
    /// What was said, each segment on a channel of the legend.
    #[field(rule = list_of(nested::<TranscriptSegment>(), 0, MAX_SEGMENTS))]
    pub segments: Vec<TranscriptSegment>,
}

impl IngestTranscript {
    /// The legend numbers its channels 0..n once each; segments use them, in order of time.
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        let before = r.problem_count();
        let n = self.channels.len() as i64;
        let mut seen = [false; MAX_CHANNELS];
        for (i, channel) in self.channels.iter().enumerate() {
            let slot = usize::try_from(channel.channel).unwrap_or(usize::MAX);
            if channel.channel >= n || seen.get(slot).copied().unwrap_or(true) {
                r.problem_at(
                    &format!("channels/{i}/channel"),
                    "must number the channels 0, 1, … once each",
                );
            } else {
                seen[slot] = true;
            }
        }
        for (i, segment) in self.segments.iter().enumerate() {
            if segment.channel >= n {
                r.problem_at(
                    &format!("segments/{i}/channel"),
                    "must be a channel of the legend",
                );
            }
            if segment.end_ms < segment.start_ms {
                r.problem_at(&format!("segments/{i}/endMs"), "must not be before startMs");
            }
        }
        r.problem_count() == before
    }

    fn example_body() -> Value {
        json!({"tenantId": 1, "uniqueId": "1700000000.42",
               "channels": [{"channel": 0, "role": "caller", "party": "5551234567"},
                            {"channel": 1, "role": "callee", "party": "101"}],
               "segments": [{"channel": 0, "startMs": 0, "endMs": 1800, "text": "Hello, I need a refill.",
                             "confidence": 0.93, "language": "en-US"}]})
    }
}

/// A call's transcript as recorded.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    /// The legend, by channel number.
    pub channels: Vec<TranscriptChannel>,
    /// What was said, by start time.
    pub segments: Vec<TranscriptSegment>,
    /// When it was recorded (ISO 8601, UTC).
    pub recorded_at: String,
}

/// A step of a call.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEvent {
    /// `started`, `answered`, `transferred`, `ended` (after an answer) or `missed`
    /// (never answered).
    pub event: String,
    /// When (ISO 8601, UTC).
    pub at: String,
    /// Transfers: `blind` or `attended`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Transfers: the party that transferred the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<TransferParty>,
    /// Transfers: the party the call was transferred to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<TransferParty>,
}

impl TimelineEvent {
    /// A step without parties (started, answered, ended, missed).
    pub fn step(event: &str, at: String) -> TimelineEvent {
        TimelineEvent {
            event: event.to_owned(),
            at,
            kind: None,
            from: None,
            to: None,
        }
    }
}

/// A party of a transfer: the number the engine reported, and the tenant's extension
/// when the engine named one (with its number and name as they are now).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransferParty {
    /// The number as reported.
    pub number: String,
    /// The tenant's extension, when the engine named one.
    pub extension_id: Option<ExtensionId>,
    /// The extension's name; empty for an outside number or an extension since deleted.
    pub name: String,
}

/// The queue a call passed through.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallQueue {
    /// The queue's id (kept on the call when the queue is deleted).
    pub id: QueueId,
    /// Its name as it is now; empty when the queue is gone.
    pub name: String,
    /// Its number as it is now; empty when the queue is gone.
    pub number: String,
}

/// A party of a call: an extension of the tenant the engine identified, or the number
/// at the other end.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallParty {
    /// `caller` or `callee`.
    pub role: String,
    /// The tenant's extension, when the party is one.
    pub extension_id: Option<ExtensionId>,
    /// The party's number (the extension's number, or the caller id / number dialled).
    pub number: String,
    /// The party's name (the extension's, or the caller id name); empty when unknown.
    pub name: String,
}

/// A call's recording in a report.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportRecording {
    /// A presigned URL of the recording's MP3.
    #[serde(rename = "mediaURL")]
    #[schema(rename = "mediaURL")]
    pub media_url: String,
    /// Its size in bytes.
    pub bytes: i64,
    /// Its own length in whole seconds, measured from its audio (the call's `billsec` is
    /// the engine's talk time; the two are shown as they are).
    pub duration: i64,
}

/// `GET /admin/reporting/calls/{callId}`: the call, its timeline, its parties, its
/// recording and its transcript.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallReportView {
    /// The call.
    pub call: Call,
    /// Started, answered, transferred, ended or missed, in order of time, as reported.
    pub timeline: Vec<TimelineEvent>,
    /// The queue the call passed through; null when it passed through none.
    pub queue: Option<CallQueue>,
    /// The parties the engine identified, the caller first.
    pub parties: Vec<CallParty>,
    /// The recording; null when the call has none.
    pub recording: Option<ReportRecording>,
    /// The transcript; null when none was recorded.
    pub transcript: Option<Transcript>,
}

crate::closed_set! {
    /// How the aggregates are bucketed.
    pub enum Grouping {
        /// Per day of the tenant's time zone.
        Day = "day",
        /// Per hour of the tenant's time zone.
        Hour = "hour",
    }
}

/// The longest range a report covers: 366 days.
pub const MAX_RANGE_SECONDS: i64 = 366 * 86_400;

/// The longest range an hourly report covers: 31 days (744 buckets).
pub const MAX_HOURLY_RANGE_SECONDS: i64 = 31 * 86_400;

/// Filters of the reporting list and its aggregates.
#[derive(Clone, Debug, Default, Filter)]
pub struct CallReportFilter {
    /// Only this tenant's calls (its time zone buckets the aggregates).
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Calls started at or after this instant (RFC 3339); default: 7 days before `to`.
    #[field(rule = Instant)]
    pub from: Option<DateTime<Utc>>,
    /// Calls started before this instant (RFC 3339); default: now.
    #[field(rule = Instant)]
    pub to: Option<DateTime<Utc>>,
    /// Only calls of this direction.
    #[field(rule = DIRECTION)]
    pub direction: Option<CallDirection>,
    /// Only calls of this CDR disposition.
    #[field(rule = among::<CallDisposition>())]
    pub disposition: Option<CallDisposition>,
    /// Only calls from or to this number (caller id or number dialled, exactly).
    #[field(rule = text(1, 64))]
    pub number: Option<String>,
    /// Only calls the engine identified this extension of the tenant on.
    #[field(rule = ID)]
    pub extension_id: Option<ExtensionId>,
    /// Only calls that passed through this queue.
    #[field(rule = ID)]
    pub queue_id: Option<QueueId>,
    /// Aggregate per `day` (default) or `hour` of the tenant's time zone.
    #[field(rule = among::<Grouping>())]
    pub group_by: Option<Grouping>,
}

/// The reporting list: calls, with the report's filters and the call list's sorts and
/// search.
pub struct ReportedCall;

impl Listed for ReportedCall {
    type Filter = CallReportFilter;
    const NAME: &'static str = "CallReport";
    const SPEC: &'static ListSpec = <Call as Listed>::SPEC;
}

/// Wait and talk figures of a set of calls.
#[derive(Clone, Debug, Default, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallFigures {
    /// Calls.
    pub total: i64,
    /// Calls answered (talking or ended after an answer).
    pub answered: i64,
    /// Calls that ended unanswered.
    pub missed: i64,
    /// Mean seconds from start to answer, of answered calls; null without one.
    pub average_wait_seconds: Option<f64>,
    /// 90th percentile (nearest rank) of the seconds from start to answer, of answered
    /// calls; null without one.
    pub p90_wait_seconds: Option<i64>,
    /// Mean seconds of talk, of answered calls; null without one.
    pub average_talk_seconds: Option<f64>,
    /// 90th percentile (nearest rank) of the seconds of talk, of answered calls.
    pub p90_talk_seconds: Option<i64>,
}

/// The figures of one day or hour.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallBucket {
    /// The bucket's local start, `YYYY-MM-DD` (days) or `YYYY-MM-DDTHH:00` (hours), in
    /// `timeZone`.
    pub period: String,
    /// Its figures.
    #[serde(flatten)]
    pub figures: CallFigures,
}

/// The aggregates of a report, over every call the filter matches (not just the page).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallAggregates {
    /// The range's start (ISO 8601, UTC).
    pub from: String,
    /// The range's end, exclusive (ISO 8601, UTC).
    pub to: String,
    /// `day` or `hour`.
    #[schema(value_type = String)]
    pub group_by: Grouping,
    /// The time zone the buckets are cut in: the tenant's (UTC across several tenants).
    pub time_zone: String,
    /// Over the whole range.
    pub totals: CallFigures,
    /// Per day or hour with calls, in order.
    pub buckets: Vec<CallBucket>,
}

/// The UTC offset in force over a stretch of time: from `since` (Unix seconds) on,
/// local time is UTC plus `offset` seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetSpan {
    /// Where the stretch starts.
    pub since: i64,
    /// The offset in force.
    pub offset: i64,
}

fn offset_at<Z: TimeZone>(zone: &Z, unix: i64) -> i64 {
    let at = DateTime::from_timestamp(unix, 0).unwrap_or_default();
    i64::from(
        zone.offset_from_utc_datetime(&at.naive_utc())
            .fix()
            .local_minus_utc(),
    )
}

/// The offsets of `zone` over `[from, to)`, with the exact second of every change, so the
/// database can cut local days and hours with integer arithmetic (SQLite has no time
/// zones): the first span starts at `from`.
pub fn offset_spans<Z: TimeZone>(zone: &Z, from: i64, to: i64) -> Vec<OffsetSpan> {
    let mut spans = vec![OffsetSpan {
        since: from,
        offset: offset_at(zone, from),
    }];
    // Offsets change at most a few times a year and never twice within an hour: step by
    // the hour and find each change's second by bisection.
    let mut t = from;
    while t < to {
        let next = (t + 3600).min(to);
        let current = spans.last().map_or(0, |s| s.offset);
        if offset_at(zone, next) != current {
            let (mut lo, mut hi) = (t, next);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if offset_at(zone, mid) == current {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            spans.push(OffsetSpan {
                since: hi,
                offset: offset_at(zone, hi),
            });
        }
        t = next;
    }
    spans
}

/// The label of bucket `key` (local seconds since the epoch divided by `width`).
pub fn bucket_label(key: i64, width: i64) -> String {
    let local = DateTime::from_timestamp(key * width, 0).unwrap_or_default();
    if width == 3600 {
        local.format("%Y-%m-%dT%H:00").to_string()
    } else {
        local.format("%Y-%m-%d").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_change_at_the_exact_second() {
        let zone: chrono_tz::Tz = "America/New_York".parse().expect("a zone");
        // 2026-03-08 07:00:00 UTC is 02:00 EST, when clocks go forward.
        let change = 1_772_953_200;
        let spans = offset_spans(&zone, change - 86_400, change + 86_400);
        assert_eq!(
            spans,
            vec![
                OffsetSpan {
                    since: change - 86_400,
                    offset: -5 * 3600
                },
                OffsetSpan {
                    since: change,
                    offset: -4 * 3600
                },
            ]
        );
        assert_eq!(offset_spans(&Utc, 0, 86_400 * 400).len(), 1);
    }

    #[test]
    fn labels_of_days_and_hours() {
        assert_eq!(bucket_label(20_000, 86_400), "2024-10-04");
        assert_eq!(bucket_label(20_000 * 24 + 13, 3600), "2024-10-04T13:00");
    }
}
