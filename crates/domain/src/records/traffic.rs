//! Text messages and faxes as the engine reports them (`/v2/ingest/sms`,
//! `/v2/ingest/faxes`): recorded once each, announcing SMS_RECEIVED / SMS_SENT and
//! FAX_RECEIVED / FAX_SENT to the tenant's webhooks.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::declare::{Body, Filter, Listed};
use crate::ids::{TenantId, TextMessageId};
use crate::validation::{Among, ID, Instant, Int, ListOf, Text, among, int, iso, list_of, text};

crate::closed_set! {
    /// Which way a message or fax went.
    pub enum TrafficDirection {
        /// Received by the tenant.
        Inbound = "inbound",
        /// Sent by the tenant.
        Outbound = "outbound",
    }
}
/// Which way a message or fax went, as read.
pub const DIRECTIONS: Among<TrafficDirection> = among();

/// An id the engine or carrier gives a message or fax.
const REPORTED_ID: Text = text(1, 255);
/// A sender or recipient.
const PARTY: Text = text(1, 64);
/// The text of a message (ten SMS segments).
const SMS_BODY: Text = text(0, 1600);
/// URLs of MMS media.
const MEDIA_URLS: ListOf<Text> = list_of(text(1, 2048), 0, 10);
/// Pages of a fax.
const PAGES: Int = int(0, 10_000);

/// A text message as reported (`POST /v2/ingest/sms`).
#[derive(Clone, Debug, Body)]
pub struct IngestSms {
    /// The tenant.
    #[field(rule = ID, name = "tenantId")]
    pub tenant: TenantId,
    /// The carrier's or engine's id; a second report with it changes nothing.
    #[field(rule = REPORTED_ID)]
    pub message_id: String,
    /// `inbound` (SMS_RECEIVED) or `outbound` (SMS_SENT).
    #[field(rule = DIRECTIONS)]
    pub direction: TrafficDirection,
    /// Sender.
    #[field(rule = PARTY)]
    pub from: String,
    /// Recipient.
    #[field(rule = PARTY)]
    pub to: String,
    /// The text, at most 1,600 characters.
    #[field(rule = SMS_BODY, default = String::new())]
    pub body: String,
    /// URLs of MMS media.
    #[field(rule = MEDIA_URLS, default = Vec::new())]
    pub media_urls: Vec<String>,
    /// When it was sent or received (RFC 3339); now when left out.
    #[field(rule = Instant)]
    pub time: Option<DateTime<Utc>>,
}

/// A fax as reported (`POST /v2/ingest/faxes`).
#[derive(Clone, Debug, Body)]
pub struct IngestFax {
    /// The tenant.
    #[field(rule = ID, name = "tenantId")]
    pub tenant: TenantId,
    /// The engine's id; a second report with it changes nothing.
    #[field(rule = REPORTED_ID)]
    pub fax_id: String,
    /// `inbound` (FAX_RECEIVED) or `outbound` (FAX_SENT).
    #[field(rule = DIRECTIONS)]
    pub direction: TrafficDirection,
    /// Sender.
    #[field(rule = PARTY)]
    pub from: String,
    /// Recipient.
    #[field(rule = PARTY)]
    pub to: String,
    /// Pages transferred.
    #[field(rule = PAGES, default = 0)]
    pub pages: i64,
    /// The engine's outcome (`success`, `failed: …`).
    #[field(rule = text(0, 255), default = String::new())]
    pub status: String,
    /// When it was sent or received (RFC 3339); now when left out.
    #[field(rule = Instant)]
    pub time: Option<DateTime<Utc>>,
}

/// A reported time as ISO 8601 UTC, now when the report left it out.
pub fn time_or_now(time: Option<DateTime<Utc>>) -> String {
    iso(time.unwrap_or_else(Utc::now))
}

/// The instant bounds of a list's date range: `dateFrom` and `dateTo`, RFC 3339.
const DATE_BOUND: Instant = Instant;

/// A text message, sent or received (`/v2/messaging/messages`).
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, time, from, to, direction, status), filter = TextFilter, table = "s", id = "s.id",
       search("body", "from_number", "to_number"))]
pub struct TextMessage {
    /// The text's id.
    pub id: TextMessageId,
    /// The tenant.
    pub tenant_id: TenantId,
    /// The carrier's or engine's id (`sb-…` for texts sent here).
    pub message_id: String,
    /// `inbound` or `outbound`.
    pub direction: String,
    /// Sender.
    #[list(column = "from_number")]
    pub from: String,
    /// Recipient.
    #[list(column = "to_number")]
    pub to: String,
    /// The text.
    pub body: String,
    /// URLs of its MMS media.
    pub media_urls: Vec<String>,
    /// Texts sent here: `queued`, `sending`, `sent` or `failed`; empty for texts the engine
    /// reported.
    pub status: String,
    /// When it was sent or received (ISO 8601, UTC).
    pub time: String,
}

/// Filters of the text list.
#[derive(Clone, Debug, Default, Filter)]
pub struct TextFilter {
    /// Only this tenant's texts.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// `inbound` or `outbound`.
    #[field(rule = DIRECTIONS)]
    pub direction: Option<TrafficDirection>,
    /// Only texts from this number.
    #[field(rule = PARTY)]
    pub from: Option<String>,
    /// Only texts to this number.
    #[field(rule = PARTY)]
    pub to: Option<String>,
    /// Only texts at or after this instant (RFC 3339).
    #[field(rule = DATE_BOUND)]
    pub date_from: Option<DateTime<Utc>>,
    /// Only texts before this instant (RFC 3339).
    #[field(rule = DATE_BOUND)]
    pub date_to: Option<DateTime<Utc>>,
}

/// The body of `POST /v2/messaging/messages`: a text to send through the engine.
#[derive(Clone, Debug, Body)]
#[body(placement(tenant))]
pub struct SendText {
    /// The sending tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// One of the tenant's SMS-enabled numbers (a number whose texts reach an extension).
    #[field(rule = PARTY)]
    pub from: String,
    /// The recipient.
    #[field(rule = PARTY)]
    pub to: String,
    /// The text, at most 1,600 characters.
    #[field(rule = SMS_BODY, default = String::new())]
    pub body: String,
    /// Ids of the tenant's uploads (`POST /v2/messaging/messages/upload-media`) to send
    /// as MMS media.
    #[field(rule = MEDIA_IDS, default = Vec::new())]
    pub media_ids: Vec<i64>,
}

/// Ids of uploaded MMS media.
const MEDIA_IDS: ListOf<Int> = list_of(int(1, i64::MAX), 0, 10);
