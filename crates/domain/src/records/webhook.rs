//! Webhooks (CONTRACT §9): a tenant's callback URL for one event type, with optional Basic
//! credentials or a bearer `authtoken`, and a signing secret.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::ids::TenantId;
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{
    FromBody, FromQuery, ID, ObjectReader, OneOf, Problems, QueryReader, Raw, Rule, text,
};

/// The 11 webhook types of CONTRACT §9, with what each delivers.
pub const TYPES: &[(&str, &str)] = &[
    (
        "HubSpotCRM",
        "Call records pushed to HubSpot as CRM call objects, authenticated with authtoken as a bearer token",
    ),
    ("CALL_STARTED", "A call started ringing"),
    ("CALL_ANSWERED", "A call was answered"),
    ("CALL_ENDED", "A call ended"),
    ("CALL_MISSED", "A call ended unanswered"),
    ("VOICEMAIL_RECEIVED", "A caller left a voicemail message"),
    ("RECORDING_READY", "A call recording is ready to fetch"),
    ("SMS_RECEIVED", "A text message came in"),
    ("SMS_SENT", "A text message went out"),
    ("FAX_RECEIVED", "A fax came in"),
    ("FAX_SENT", "A fax went out"),
];

/// The type names alone.
pub const TYPE_NAMES: &[&str] = &[
    "HubSpotCRM",
    "CALL_STARTED",
    "CALL_ANSWERED",
    "CALL_ENDED",
    "CALL_MISSED",
    "VOICEMAIL_RECEIVED",
    "RECORDING_READY",
    "SMS_RECEIVED",
    "SMS_SENT",
    "FAX_RECEIVED",
    "FAX_SENT",
];

/// The CRM type: call records in HubSpot's calls-object shape, not raw events.
pub const HUBSPOT: &str = "HubSpotCRM";

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
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    /// The webhook's id.
    pub id: i64,
    /// The tenant whose events it receives.
    pub tenant_id: i64,
    /// The event type.
    #[serde(rename = "type")]
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

/// A callback URL: `http(s)://host…`, at least 3 characters (the spec's minimum) and at
/// most 2048. Whether its address is public is checked at delivery time, against the
/// address actually connected.
#[derive(Clone, Copy, Debug)]
pub struct CallbackUrl;

impl Rule for CallbackUrl {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let url = text(3, 2048).check(raw)?;
        let rest = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))
            .ok_or("must be an http:// or https:// URL")?;
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        if host.contains('@') {
            // Credentials in the URL would be answered in clear; they go in username/password.
            return Err("must not carry credentials: use username and password".into());
        }
        if host.is_empty() || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err("must be an http:// or https:// URL with a host".into());
        }
        Ok(url)
    }
}

/// The body of `POST /v2/webhooks/` and `PATCH /v2/webhooks/{id}`, parsed.
#[derive(Clone, Debug, Default)]
pub struct WebhookFields {
    /// Tenant (create).
    pub tenant_id: Option<TenantId>,
    /// Event type.
    pub kind: Option<String>,
    /// Callback URL.
    pub url: Option<String>,
    /// Basic user name ("" clears it).
    pub username: Option<String>,
    /// Basic password ("" clears it).
    pub password: Option<String>,
    /// Bearer token ("" clears it).
    pub authtoken: Option<String>,
}

/// The webhook body, for the API document.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct WebhookBody {
    /// The tenant whose events it receives (required on create).
    #[schema(nullable = false, minimum = 1)]
    pub tenant_id: Option<i64>,
    /// One of the 11 types of `GET /v2/webhooks/list-types` (required on create).
    #[schema(
        nullable = false,
        rename = "type",
        pattern = "^(HubSpotCRM|CALL_STARTED|CALL_ANSWERED|CALL_ENDED|CALL_MISSED|VOICEMAIL_RECEIVED|RECORDING_READY|SMS_RECEIVED|SMS_SENT|FAX_RECEIVED|FAX_SENT)$"
    )]
    pub kind: Option<String>,
    /// The callback URL, http(s) (required on create).
    #[schema(nullable = false, min_length = 3, max_length = 2048)]
    pub url: Option<String>,
    /// HTTP Basic user name.
    #[schema(nullable = false, max_length = 255)]
    pub username: Option<String>,
    /// HTTP Basic password (stored sealed, answered masked).
    #[schema(nullable = false, max_length = 1024)]
    pub password: Option<String>,
    /// Bearer token for HubSpot (stored sealed, answered masked).
    #[schema(nullable = false, max_length = 4096)]
    pub authtoken: Option<String>,
}

fn read(body: &Value, create: bool) -> Result<WebhookFields, Problems> {
    let mut problems = Problems::new();
    let fields = ObjectReader::body(body, &mut problems).and_then(|mut r| {
        let tenant = r.required_if(create, "tenantId", &ID);
        let kind = r.required_if(create, "type", &OneOf(TYPE_NAMES));
        let url = r.required_if(create, "url", &CallbackUrl);
        let username = r.optional("username", &text(0, 255));
        let password = r.optional("password", &text(0, 1024));
        let authtoken = r.optional("authtoken", &text(0, 4096));
        Some(WebhookFields {
            tenant_id: tenant.ok()?.map(TenantId),
            kind: kind.ok()?,
            url: url.ok()?,
            username: username.ok()?,
            password: password.ok()?,
            authtoken: authtoken.ok()?,
        })
    });
    problems.finish(|| fields)
}

/// The parsed create body.
#[derive(Clone, Debug)]
pub struct CreateWebhook(pub WebhookFields);

/// The parsed patch body.
#[derive(Clone, Debug)]
pub struct UpdateWebhook(pub WebhookFields);

impl FromBody for CreateWebhook {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        read(body, true).map(CreateWebhook)
    }
}

impl FromBody for UpdateWebhook {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        if body.get("tenantId").is_some() {
            let mut problems = Problems::new();
            problems.add(crate::Location::Body, "tenantId", "cannot be changed");
            return Err(problems);
        }
        read(body, false).map(UpdateWebhook)
    }
}

documented_as!(WebhookBody => CreateWebhook, UpdateWebhook);

/// Filters of the webhook list.
#[derive(Clone, Debug, Default)]
pub struct WebhookFilter {
    /// Only this tenant's webhooks.
    pub tenant_id: Option<TenantId>,
    /// Only webhooks of this type.
    pub kind: Option<String>,
}

impl FromQuery for WebhookFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mut q = QueryReader::new(params, &mut problems);
        let tenant_id = q.optional("tenantId", &ID).map(TenantId);
        let kind = q.optional("type", &OneOf(TYPE_NAMES));
        problems.finish(|| Some(WebhookFilter { tenant_id, kind }))
    }
}

/// Sorting and search of the webhook list.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "id",
        },
        SortField {
            name: "type",
            column: "type",
        },
        SortField {
            name: "url",
            column: "url",
        },
        SortField {
            name: "tenantId",
            column: "tenant_id",
        },
    ],
    search_columns: &["url", "type"],
    search_index: None,
};

impl crate::list::ListFilter for WebhookFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[
        FilterDoc {
            name: "tenantId",
            description: "Only this tenant's webhooks.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "type",
            description: "Only webhooks of this type.",
            kind: FilterKind::OneOf(TYPE_NAMES),
        },
    ];
}
