//! Calls and their recordings, with the fields Asterisk's CDRs give them: pushed live by
//! the engine (started, answered, ended) or imported from `cdr_csv`; a recorded call
//! answers as a Call recording whose audio is an MP3 in object storage.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::declare::{Body, Filter, Listed};
use crate::ids::{ExtensionId, QueueId, TenantId};
pub use crate::validation::Instant;
use crate::validation::{
    Among, ID, Int, ListOf, Nested, ObjectReader, Text, among, int, list_of, nested, text,
};

/// A call identifier (Asterisk's uniqueid): 1 to 255 characters.
pub const CALL_ID: Text = text(1, 255);

crate::closed_set! {
    /// The direction of a call.
    pub enum CallDirection {
        /// From outside to the tenant.
        Inbound = "inbound",
        /// From the tenant to outside.
        Outbound = "outbound",
        /// Between the tenant's own extensions.
        Internal = "internal",
    }
}

/// A direction.
pub const DIRECTION: Among<CallDirection> = among();

crate::closed_set! {
    /// A CDR disposition.
    pub enum CallDisposition {
        /// Answered.
        Answered = "ANSWERED",
        /// Rang out unanswered.
        NoAnswer = "NO ANSWER",
        /// The callee was busy.
        Busy = "BUSY",
        /// The call failed.
        Failed = "FAILED",
        /// The network was congested.
        Congestion = "CONGESTION",
    }
}

/// The longest recording accepted, in bytes (an hour of 128 kbps MP3, or of 16-bit
/// 16 kHz stereo WAV before transcoding, fits).
pub const MAX_RECORDING_BYTES: usize = 256 * 1024 * 1024;

/// A call recording, as the spec.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(time, duration, caller_id_num, dialed_num, unique_id), filter = CallRecordingFilter, table = "c", id = "c.id",
       search("caller_id_num", "caller_id_name", "dialed_num", "unique_id", "transcript_text"),
       search_index(table = "calls_search", id = "c.id"))]
pub struct CallRecording {
    /// A presigned URL of the recording's MP3 (S3's own, or switchboard's signed link).
    #[serde(rename = "mediaURL")]
    #[schema(rename = "mediaURL")]
    pub media_url: String,
    /// When the call started (ISO 8601, UTC).
    #[list(column = "start_unix")]
    pub time: String,
    /// The tenant.
    pub tenant_id: TenantId,
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
    /// The call's length in seconds, start to end, as the engine reported it.
    pub duration: i64,
    /// The call's talk time in seconds, answer to end, as the engine reported it.
    pub billsec: i64,
    /// The recording's own length in whole seconds, measured from its audio. It should
    /// match `billsec` (the recording covers the talk); a difference is shown as it is
    /// (a recording started late or cut short), never reconciled.
    pub recording_duration: i64,
}

/// A call, recorded or not: what the engine reported of it, and its recording when it
/// has one. Listed with the recordings' filter, sorts and search.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(time, duration, caller_id_num, dialed_num, unique_id), filter = CallRecordingFilter, table = "c", id = "c.id",
       search("caller_id_num", "caller_id_name", "dialed_num", "unique_id", "transcript_text"),
       search_index(table = "calls_search", id = "c.id"))]
pub struct Call {
    /// The call identifier (Asterisk's uniqueid).
    pub unique_id: String,
    /// The tenant.
    pub tenant_id: TenantId,
    /// `inbound`, `outbound` or `internal`.
    pub direction: String,
    /// `started`, `answered`, `ended` (answered and hung up) or `missed`.
    pub status: String,
    /// The caller's number.
    pub caller_id_num: String,
    /// The caller's name.
    pub caller_id_name: String,
    /// The number dialled.
    pub dialed_num: String,
    /// When the call started (ISO 8601, UTC).
    #[list(column = "start_unix")]
    pub time: String,
    /// When it was answered (ISO 8601, UTC); null when it was not (yet).
    pub answer_time: Option<String>,
    /// When it ended (ISO 8601, UTC); null while it goes on.
    pub end_time: Option<String>,
    /// Seconds from start to end, as the engine reported them.
    pub duration: i64,
    /// Seconds from answer to end (the talk time), as the engine reported them.
    pub billsec: i64,
    /// The CDR disposition (`ANSWERED`, `NO ANSWER`, …); empty when not reported.
    pub disposition: String,
    /// Whether the call has a recording (then at `/v2/admin/call-recordings/{uniqueId}`).
    pub has_recording: bool,
    /// The recording's own length in whole seconds, measured from its audio; null when
    /// the call has none. Compared with `billsec`, it shows a recording that does not
    /// cover the talk: neither figure is ever rewritten to match the other.
    pub recording_duration: Option<i64>,
    /// A presigned URL of the recording's MP3; empty when the call has none.
    #[serde(rename = "mediaURL")]
    #[schema(rename = "mediaURL")]
    pub media_url: String,
}

crate::closed_set! {
    /// How far a call has got, in order: each report may only move it forward.
    #[derive(PartialOrd, Ord)]
    pub enum CallPhase {
        /// Ringing.
        Started = "started",
        /// Answered.
        Answered = "answered",
        /// Hung up.
        Ended = "ended",
    }
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
    /// The extension that placed the call, when the engine names it by id.
    pub caller_extension: Option<ExtensionId>,
    /// The extension the call reached, when the engine names it by id.
    pub callee_extension: Option<ExtensionId>,
    /// The queue the call passed through, when the engine names it.
    pub queue: Option<QueueId>,
    /// The transfers the report carries (each recorded once, however often reported).
    pub transfers: Vec<IngestTransfer>,
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

pub use crate::validation::iso;

const PHASES: Among<CallPhase> = among();

/// Short texts of a call report (numbers, names, channels).
const SHORT: Text = text(0, 255);
/// A count of seconds.
const SECONDS: Int = int(0, i32::MAX as i64);
/// A CDR disposition.
const DISPOSITION: Among<CallDisposition> = among();

crate::closed_set! {
    /// How a call is transferred.
    pub enum TransferKind {
        /// Sent on unannounced.
        Blind = "blind",
        /// Announced by the transferring party first.
        Attended = "attended",
    }
}

/// Most transfers one report carries (a call passed on and on stays well below).
pub const MAX_TRANSFERS: usize = 100;

/// A party of a transfer: a number as the engine knows it (an extension's number, an
/// outside number).
const TRANSFER_PARTY: Text = text(1, 255);

/// A transfer the engine reports on a call: who passed it to whom, when and how.
#[derive(Clone, Debug, Body)]
pub struct IngestTransfer {
    /// When the call was transferred (RFC 3339), not before the call's start.
    #[field(rule = Instant)]
    pub at: DateTime<Utc>,
    /// `blind` or `attended`.
    #[field(rule = among::<TransferKind>())]
    pub kind: TransferKind,
    /// The number of the party that transferred the call.
    #[field(rule = TRANSFER_PARTY)]
    pub from: String,
    /// The number the call was transferred to.
    #[field(rule = TRANSFER_PARTY)]
    pub to: String,
    /// The tenant's extension that transferred the call, when the engine knows it.
    #[field(rule = ID)]
    pub from_extension_id: Option<ExtensionId>,
    /// The tenant's extension the call was transferred to, when the engine knows it.
    #[field(rule = ID)]
    pub to_extension_id: Option<ExtensionId>,
}

/// The transfers of a call report.
const TRANSFERS: ListOf<Nested<IngestTransfer>> =
    list_of(nested::<IngestTransfer>(), 0, MAX_TRANSFERS);

/// The body of `POST /v2/ingest/calls`: one report of a call's progress, for the tenant
/// the body names.
#[derive(Clone, Debug, Body)]
#[body(check = IngestCall::check)]
pub struct IngestCall {
    /// The tenant whose call it is.
    #[field(rule = ID)]
    pub tenant_id: TenantId,
    /// Asterisk's uniqueid.
    #[field(rule = CALL_ID)]
    pub unique_id: String,
    /// How far the call has got: `started`, `answered` or `ended`.
    #[field(rule = PHASES)]
    pub event: CallPhase,
    /// `inbound`, `outbound` or `internal`.
    #[field(rule = DIRECTION)]
    pub direction: CallDirection,
    /// The caller's number.
    #[field(rule = SHORT, default = String::new())]
    pub caller_id_num: String,
    /// The caller's name.
    #[field(rule = SHORT, default = String::new())]
    pub caller_id_name: String,
    /// The number dialled.
    #[field(rule = SHORT, default = String::new())]
    pub dialed_num: String,
    /// When the call started (RFC 3339).
    #[field(rule = Instant)]
    pub time: DateTime<Utc>,
    /// When it was answered, not before `time`.
    #[field(rule = Instant)]
    pub answer_time: Option<DateTime<Utc>>,
    /// When it ended, not before `time`.
    #[field(rule = Instant)]
    pub end_time: Option<DateTime<Utc>>,
    /// Seconds from start to end (computed from the times when omitted).
    #[field(rule = SECONDS)]
    pub duration: Option<i64>,
    /// Seconds from answer to end (computed from the times when omitted).
    #[field(rule = SECONDS)]
    pub billsec: Option<i64>,
    /// The CDR disposition.
    #[field(rule = DISPOSITION)]
    pub disposition: Option<CallDisposition>,
    /// The calling channel.
    #[field(rule = SHORT, default = String::new())]
    pub channel: String,
    /// The called channel.
    #[field(rule = SHORT, default = String::new())]
    pub dst_channel: String,
    /// The last dialplan application.
    #[field(rule = SHORT, default = String::new())]
    pub last_app: String,
    /// The account code.
    #[field(rule = SHORT, default = String::new())]
    pub account_code: String,
    /// The CDR user field.
    #[field(rule = SHORT, default = String::new())]
    pub userfield: String,
    /// The id of the tenant's extension that placed the call, when the engine knows it;
    /// otherwise the calling `channel` (`PJSIP/101-0000001a`) names it by its endpoint.
    /// A caller id is never taken for an extension.
    #[field(rule = ID)]
    pub caller_extension_id: Option<ExtensionId>,
    /// The id of the tenant's extension the call reached, when the engine knows it;
    /// otherwise the called `dstChannel`, or (for a call that did not go out) the
    /// internal number dialled, names it as it is numbered when the call is reported.
    #[field(rule = ID)]
    pub callee_extension_id: Option<ExtensionId>,
    /// The id of the tenant's queue the call passed through, when it did (kept once
    /// known: a later report without it does not clear it).
    #[field(rule = ID)]
    pub queue_id: Option<QueueId>,
    /// The transfers made on the call so far: each is recorded once (the same instant,
    /// kind and parties reported again is the same transfer), so a report may repeat
    /// what an earlier one carried.
    #[field(rule = TRANSFERS, default = Vec::new())]
    pub transfers: Vec<IngestTransfer>,
}

impl IngestCall {
    /// Times may not go backwards: a rule across fields no schema states.
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        let before = r.problem_count();
        if self.end_time.is_some_and(|end| end < self.time) {
            r.problem("endTime", "must not be before time");
        }
        if self.answer_time.is_some_and(|answer| answer < self.time) {
            r.problem("answerTime", "must not be before time");
        }
        for (i, transfer) in self.transfers.iter().enumerate() {
            if transfer.at < self.time {
                r.problem_at(&format!("transfers/{i}/at"), "must not be before time");
            }
        }
        r.problem_count() == before
    }

    /// The report this body makes, lengths computed from the times when not given.
    pub fn into_report(self) -> CallReport {
        let (start, answer, end) = (self.time, self.answer_time, self.end_time);
        CallReport {
            tenant: self.tenant_id,
            unique_id: self.unique_id,
            phase: self.event,
            direction: self.direction.as_str().to_owned(),
            caller_id_num: self.caller_id_num,
            caller_id_name: self.caller_id_name,
            dialed_num: self.dialed_num,
            start,
            answer,
            end,
            duration: self
                .duration
                .or_else(|| end.map(|e| (e - start).num_seconds()))
                .unwrap_or(0),
            billsec: self
                .billsec
                .or_else(|| answer.zip(end).map(|(a, e)| (e - a).num_seconds()))
                .unwrap_or(0),
            disposition: self
                .disposition
                .map_or_else(String::new, |d| d.as_str().to_owned()),
            channel: self.channel,
            dst_channel: self.dst_channel,
            last_app: self.last_app,
            account_code: self.account_code,
            userfield: self.userfield,
            caller_extension: self.caller_extension_id,
            callee_extension: self.callee_extension_id,
            queue: self.queue_id,
            transfers: self.transfers,
        }
    }
}

/// Filters of the call and call-recording lists (one declaration for both).
#[derive(Clone, Debug, Default, Filter)]
pub struct CallRecordingFilter {
    /// Only this tenant's recordings.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Only calls of this direction.
    #[field(rule = DIRECTION)]
    pub direction: Option<CallDirection>,
}
