//! Webhooks (interface §9): a tenant's callback URL for one event type, with optional Basic
//! credentials or a bearer `authtoken`, and a signing secret.

use serde::Serialize;
use utoipa::ToSchema;

use crate::declare::{Body, Filter, Listed};
use crate::ids::{TenantId, WebhookId};
use crate::validation::{Among, HttpUrl, ID, Text, among, text};

crate::closed_set! {
    /// Every type a webhook may be registered for, in the order
    /// `GET /v2/webhooks/list-types` answers them.
    pub enum EventType {
        /// Call records pushed to HubSpot as CRM call objects.
        HubSpotCrm = "HubSpotCRM",
        /// A call started ringing.
        CallStarted = "CALL_STARTED",
        /// A call was answered.
        CallAnswered = "CALL_ANSWERED",
        /// A call ended.
        CallEnded = "CALL_ENDED",
        /// A call ended unanswered.
        CallMissed = "CALL_MISSED",
        /// A caller left a voicemail message.
        VoicemailReceived = "VOICEMAIL_RECEIVED",
        /// A call recording is ready to fetch.
        RecordingReady = "RECORDING_READY",
        /// A text message came in.
        SmsReceived = "SMS_RECEIVED",
        /// A text message went out.
        SmsSent = "SMS_SENT",
        /// A fax came in.
        FaxReceived = "FAX_RECEIVED",
        /// A fax went out.
        FaxSent = "FAX_SENT",
        /// A desk phone's provisioning file changed and its configVersion grew.
        DeviceConfigChanged = "DEVICE_CONFIG_CHANGED",
        /// A conduit's status moved between active and failing on a health check.
        ConduitStatusChanged = "CONDUIT_STATUS_CHANGED",
        /// A pharmacy agent took a prescription refill request.
        RefillRequested = "REFILL_REQUESTED",
        /// A campaign call's result was recorded.
        CampaignCallCompleted = "CAMPAIGN_CALL_COMPLETED",
    }
}

/// Every type a webhook may be registered for, with what each delivers, in the order
/// `GET /v2/webhooks/list-types` answers them: the interface's eleven first (§9), then the
/// types later areas added. The one list both the registration check and `list-types`
/// read, so a type that can be registered can always be discovered (issue 29).
pub const TYPES: &[(EventType, &str)] = &[
    (
        EventType::HubSpotCrm,
        "Call records pushed to HubSpot as CRM call objects, authenticated with authtoken as a bearer token",
    ),
    (EventType::CallStarted, "A call started ringing"),
    (EventType::CallAnswered, "A call was answered"),
    (EventType::CallEnded, "A call ended"),
    (EventType::CallMissed, "A call ended unanswered"),
    (
        EventType::VoicemailReceived,
        "A caller left a voicemail message",
    ),
    (
        EventType::RecordingReady,
        "A call recording is ready to fetch",
    ),
    (EventType::SmsReceived, "A text message came in"),
    (EventType::SmsSent, "A text message went out"),
    (EventType::FaxReceived, "A fax came in"),
    (EventType::FaxSent, "A fax went out"),
    (
        EventType::DeviceConfigChanged,
        "A desk phone's provisioning file changed and its configVersion grew (the engine sends the phone a check-sync)",
    ),
    (
        EventType::ConduitStatusChanged,
        "A conduit's status moved between active and failing on a health check",
    ),
    (
        EventType::RefillRequested,
        "A pharmacy agent took a prescription refill request",
    ),
    (
        EventType::CampaignCallCompleted,
        "A campaign call's result was recorded: the record, its campaign, the number, the outcome and the attempt",
    ),
];

/// A desk phone's provisioning file changed (the device, its button layout or its lines'
/// extensions) and its `configVersion` grew, so the engine sends the phone a check-sync.
pub const DEVICE_CONFIG_CHANGED: &str = EventType::DeviceConfigChanged.as_str();

/// A conduit's status moved between `active` and `failing` on a health check the engine
/// reported.
pub const CONDUIT_STATUS_CHANGED: &str = EventType::ConduitStatusChanged.as_str();
/// A pharmacy agent took a refill request (`POST /v2/ingest/refill-requests`).
pub const REFILL_REQUESTED: &str = EventType::RefillRequested.as_str();
/// The event of a campaign call's result, recorded from the engine's report: the record,
/// its campaign, the number, the outcome, the attempt and the record's status after it.
pub const CAMPAIGN_CALL_COMPLETED: &str = EventType::CampaignCallCompleted.as_str();

/// The CRM type: call records in HubSpot's calls-object shape, not raw events.
pub const HUBSPOT: &str = EventType::HubSpotCrm.as_str();

/// The events a HubSpot webhook receives: each finished call, answered or not.
pub const HUBSPOT_EVENTS: &[&str] = &["CALL_ENDED", "CALL_MISSED"];

/// Whether a webhook of type `webhook_type` receives events of type `event`.
pub fn subscribes(webhook_type: &str, event: &str) -> bool {
    webhook_type == event || (webhook_type == HUBSPOT && HUBSPOT_EVENTS.contains(&event))
}

/// A webhook type, as `GET /v2/webhooks/list-types` answers.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WebhookType {
    /// The type's name.
    #[serde(rename = "type")]
    pub kind: String,
    /// What it delivers.
    pub description: String,
}

/// What a stored credential is answered as: never the value.
pub const MASK: &str = "********";

/// A webhook, as the spec; `password` and `authtoken` are masked (`********` when set,
/// empty when not).
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, kind, url, tenant_id), filter = WebhookFilter, search("url", "type"))]
pub struct Webhook {
    /// The webhook's id.
    pub id: WebhookId,
    /// The tenant whose events it receives.
    pub tenant_id: TenantId,
    /// The event type.
    #[serde(rename = "type")]
    #[list(column = "type", name = "type")]
    pub kind: String,
    /// The callback URL.
    pub url: String,
    /// HTTP Basic user name, empty for none.
    pub username: String,
    /// HTTP Basic password, masked.
    pub password: String,
    /// Bearer token (HubSpot), masked.
    pub authtoken: String,
    /// When deliveries stopped (RFC 3339): after the receiver answered 410 Gone, or after
    /// 5 days of failures. Null while enabled; a PATCH enables it again.
    pub disabled_at: Option<String>,
    /// Why deliveries stopped; null while enabled.
    pub disabled_reason: Option<String>,
}

/// The create answer: the webhook and its signing secret (also at `GET …/signing-secret`).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookCreated {
    /// The webhook.
    #[serde(flatten)]
    pub webhook: Webhook,
    /// The Standard Webhooks signing secret (`whsec_…`).
    pub signing_secret: String,
}

/// The signing secrets of a webhook.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SigningSecret {
    /// The current secret (`whsec_…`).
    pub signing_secret: String,
    /// The secret before the last rotation, still signing beside the current one until
    /// `previousExpiresAt`; null when none.
    pub previous_signing_secret: Option<String>,
    /// When the previous secret stops signing (RFC 3339); null when none.
    pub previous_expires_at: Option<String>,
}

/// A callback URL: `http(s)://host…` (the spec's minimum length of 3 included). Whether
/// its address is public is checked at delivery time, against the address connected.
pub const CALLBACK_URL: HttpUrl = HttpUrl;

/// The body of `POST /v2/webhooks/` and `PATCH /v2/webhooks/{id}`, parsed.
#[derive(Clone, Debug, Default)]
pub struct WebhookFields {
    /// Tenant (create).
    pub tenant_id: Option<TenantId>,
    /// Event type.
    pub kind: Option<EventType>,
    /// Callback URL.
    pub url: Option<String>,
    /// Basic user name ("" clears it).
    pub username: Option<String>,
    /// Basic password ("" clears it).
    pub password: Option<String>,
    /// Bearer token ("" clears it).
    pub authtoken: Option<String>,
}

/// A webhook type's name.
const TYPE: Among<EventType> = among();
/// An HTTP Basic user name.
const USERNAME: Text = text(0, 255);
/// An HTTP Basic password.
const PASSWORD: Text = text(0, 1024);
/// A bearer token.
const AUTHTOKEN: Text = text(0, 4096);

/// The body of `POST /v2/webhooks/`.
// `UpdateWebhook`, the body of `PATCH`, is generated from it (docs/decisions.md,
// "Declared once").
#[derive(Clone, Debug, Body)]
#[body(update(
    name = UpdateWebhook,
    doc = "The body of `PATCH /v2/webhooks/{id}`: fields not sent stay unchanged; an empty\n`password` or `authtoken` clears it; any PATCH enables a disabled webhook.",
    fixed(tenantId = "cannot be changed"),
))]
pub struct CreateWebhook {
    /// The tenant whose events it receives (required by the spec).
    #[field(rule = ID, create_only)]
    pub tenant_id: TenantId,
    /// One of the types of `GET /v2/webhooks/list-types`.
    #[field(rule = TYPE, name = "type")]
    pub kind: EventType,
    /// The callback URL, http(s).
    #[field(rule = CALLBACK_URL)]
    pub url: String,
    /// HTTP Basic user name.
    #[field(rule = USERNAME)]
    pub username: Option<String>,
    /// HTTP Basic password (stored sealed, answered masked; in a change "" clears it and
    /// the mask `********` answers give keeps it).
    #[field(rule = PASSWORD)]
    pub password: Option<String>,
    /// Bearer token for HubSpot (stored sealed, answered masked; in a change "" clears it
    /// and the mask `********` keeps it).
    #[field(rule = AUTHTOKEN)]
    pub authtoken: Option<String>,
}

impl From<CreateWebhook> for WebhookFields {
    fn from(body: CreateWebhook) -> Self {
        WebhookFields {
            tenant_id: Some(body.tenant_id),
            kind: Some(body.kind),
            url: Some(body.url),
            username: body.username,
            password: body.password,
            authtoken: body.authtoken,
        }
    }
}

impl From<UpdateWebhook> for WebhookFields {
    fn from(body: UpdateWebhook) -> Self {
        // The mask answers give a set credential means "as it is": a webhook sent back as
        // it was read keeps its secrets (interface §2) instead of storing the mask.
        let unless_masked = |value: Option<String>| value.filter(|v| v != MASK);
        WebhookFields {
            tenant_id: None,
            kind: body.kind,
            url: body.url,
            username: body.username,
            password: unless_masked(body.password),
            authtoken: unless_masked(body.authtoken),
        }
    }
}

/// Filters of the webhook list.
#[derive(Clone, Debug, Default, Filter)]
pub struct WebhookFilter {
    /// Only this tenant's webhooks.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Only webhooks of this type.
    #[field(rule = TYPE, name = "type")]
    pub kind: Option<EventType>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_types_describes_every_event_type_in_order() {
        let listed: Vec<EventType> = TYPES.iter().map(|(kind, _)| *kind).collect();
        assert_eq!(listed, EventType::ALL);
    }
}
