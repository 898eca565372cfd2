//! Text messages and faxes as the engine reports them (`/v2/ingest/sms`,
//! `/v2/ingest/faxes`): recorded once each, announcing SMS_RECEIVED / SMS_SENT and
//! FAX_RECEIVED / FAX_SENT to the tenant's webhooks.

use chrono::{DateTime, Utc};
use serde_json::Value;
use utoipa::ToSchema;

use crate::ids::TenantId;
use crate::records::call::{Instant, iso};
use crate::validation::{FromBody, ID, ObjectReader, OneOf, Problems, int, text};

/// Which way a message or fax went.
pub const DIRECTIONS: OneOf = OneOf(&["inbound", "outbound"]);

/// A text message as reported.
#[derive(Clone, Debug)]
pub struct IngestSms {
    /// The tenant.
    pub tenant: TenantId,
    /// The carrier's or engine's id; a second report with it changes nothing.
    pub message_id: String,
    /// `inbound` or `outbound`.
    pub direction: String,
    /// Sender.
    pub from: String,
    /// Recipient.
    pub to: String,
    /// The text.
    pub body: String,
    /// URLs of MMS media.
    pub media_urls: Vec<String>,
    /// When it was sent or received (ISO 8601 UTC).
    pub time: String,
}

/// A fax as reported.
#[derive(Clone, Debug)]
pub struct IngestFax {
    /// The tenant.
    pub tenant: TenantId,
    /// The engine's id; a second report with it changes nothing.
    pub fax_id: String,
    /// `inbound` or `outbound`.
    pub direction: String,
    /// Sender.
    pub from: String,
    /// Recipient.
    pub to: String,
    /// Pages transferred.
    pub pages: i64,
    /// The engine's outcome (`success`, `failed: …`).
    pub status: String,
    /// When it was sent or received (ISO 8601 UTC).
    pub time: String,
}

fn time_or_now(time: Option<DateTime<Utc>>) -> String {
    iso(time.unwrap_or_else(Utc::now))
}

impl FromBody for IngestSms {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.required("tenantId", &ID),
                r.required("messageId", &text(1, 255)),
                r.required("direction", &DIRECTIONS),
                r.required("from", &text(1, 64)),
                r.required("to", &text(1, 64)),
                r.optional("body", &text(0, 1600)),
                r.strings("mediaUrls", &text(1, 2048)),
                r.optional("time", &Instant),
            )
        });
        problems.finish(|| {
            let (tenant, id, direction, from, to, body, media, time) = fields?;
            Some(IngestSms {
                tenant: TenantId(tenant?),
                message_id: id?,
                direction: direction?,
                from: from?,
                to: to?,
                body: body.ok()?.unwrap_or_default(),
                media_urls: media.ok()?.unwrap_or_default(),
                time: time_or_now(time.ok()?),
            })
        })
    }
}

impl FromBody for IngestFax {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.required("tenantId", &ID),
                r.required("faxId", &text(1, 255)),
                r.required("direction", &DIRECTIONS),
                r.required("from", &text(1, 64)),
                r.required("to", &text(1, 64)),
                r.optional("pages", &int(0, 10_000)),
                r.optional("status", &text(0, 255)),
                r.optional("time", &Instant),
            )
        });
        problems.finish(|| {
            let (tenant, id, direction, from, to, pages, status, time) = fields?;
            Some(IngestFax {
                tenant: TenantId(tenant?),
                fax_id: id?,
                direction: direction?,
                from: from?,
                to: to?,
                pages: pages.ok()?.unwrap_or(0),
                status: status.ok()?.unwrap_or_default(),
                time: time_or_now(time.ok()?),
            })
        })
    }
}

/// The SMS-ingest body, for the API document.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct IngestSmsBody {
    /// The tenant.
    #[schema(minimum = 1)]
    pub tenant_id: i64,
    /// The carrier's or engine's message id.
    #[schema(min_length = 1, max_length = 255)]
    pub message_id: String,
    /// `inbound` (SMS_RECEIVED) or `outbound` (SMS_SENT).
    #[schema(pattern = "^(inbound|outbound)$")]
    pub direction: String,
    /// Sender.
    #[schema(min_length = 1, max_length = 64)]
    pub from: String,
    /// Recipient.
    #[schema(min_length = 1, max_length = 64)]
    pub to: String,
    /// The text, at most 1,600 characters.
    #[schema(nullable = false, max_length = 1600)]
    pub body: Option<String>,
    /// URLs of MMS media.
    #[schema(nullable = false)]
    pub media_urls: Option<Vec<String>>,
    /// When (RFC 3339; now when omitted).
    #[schema(nullable = false, format = DateTime)]
    pub time: Option<String>,
}

/// The fax-ingest body, for the API document.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct IngestFaxBody {
    /// The tenant.
    #[schema(minimum = 1)]
    pub tenant_id: i64,
    /// The engine's fax id.
    #[schema(min_length = 1, max_length = 255)]
    pub fax_id: String,
    /// `inbound` (FAX_RECEIVED) or `outbound` (FAX_SENT).
    #[schema(pattern = "^(inbound|outbound)$")]
    pub direction: String,
    /// Sender.
    #[schema(min_length = 1, max_length = 64)]
    pub from: String,
    /// Recipient.
    #[schema(min_length = 1, max_length = 64)]
    pub to: String,
    /// Pages transferred.
    #[schema(nullable = false, minimum = 0, maximum = 10000)]
    pub pages: Option<i64>,
    /// The engine's outcome.
    #[schema(nullable = false, max_length = 255)]
    pub status: Option<String>,
    /// When (RFC 3339; now when omitted).
    #[schema(nullable = false, format = DateTime)]
    pub time: Option<String>,
}

documented_as!(IngestSmsBody => IngestSms);
documented_as!(IngestFaxBody => IngestFax);
