//! Text messages and faxes as the engine reports them (`/v2/ingest/sms`,
//! `/v2/ingest/faxes`): recorded once each, announcing SMS_RECEIVED / SMS_SENT and
//! FAX_RECEIVED / FAX_SENT to the tenant's webhooks.

use chrono::{DateTime, Utc};

use crate::declare::Body;
use crate::ids::TenantId;
use crate::validation::{ID, Instant, Int, ListOf, OneOf, Text, int, iso, list_of, text};

/// Which way a message or fax went.
pub const DIRECTIONS: OneOf = OneOf(&["inbound", "outbound"]);

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
    pub direction: String,
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
    pub direction: String,
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
