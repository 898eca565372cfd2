//! Conduits: a tenant's external connections — SIP trunks, carrier connections and
//! integration endpoints (a pharmacy system, a CRM). Their credentials are written,
//! stored sealed, and never answered: a conduit says only whether it has some.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use crate::declare::{Body, Filter, Listed};
use crate::ids::{ConduitId, TenantId};
use crate::validation::{Among, Bool, ID, Instant, Text, among, text};

crate::closed_set! {
    /// Kinds of conduit: a SIP trunk, a carrier connection, or an integration endpoint.
    pub enum ConduitKind {
        /// A SIP trunk.
        SipTrunk = "sip-trunk",
        /// A carrier connection.
        Carrier = "carrier",
        /// A pharmacy system's endpoint.
        PharmacySystem = "pharmacy-system",
        /// A CRM's endpoint.
        Crm = "crm",
    }
}
const KIND: Among<ConduitKind> = among();

crate::closed_set! {
    /// Which way a conduit carries traffic.
    pub enum ConduitDirection {
        /// Into the platform only.
        Inbound = "inbound",
        /// Out of the platform only.
        Outbound = "outbound",
        /// Both ways.
        Both = "both",
    }
}
const DIRECTION: Among<ConduitDirection> = among();

crate::closed_set! {
    /// Whether a conduit is in use.
    pub enum ConduitStatus {
        /// In use.
        Active = "active",
        /// Disabled by an administrator.
        Disabled = "disabled",
        /// Its last check failed.
        Failing = "failing",
    }
}
const STATUS: Among<ConduitStatus> = among();

/// Where a conduit connects: a SIP host (`sip.carrier.example:5061`) or a URL.
pub const ADDRESS: Text = text(0, 255);

/// A credential: a user name, a password, an API key.
pub const CREDENTIAL: Text = text(1, 1024);

/// A conduit, as answered: never its credentials.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, kind, tenant_id), filter = ConduitFilter, search("name", "address"))]
pub struct Conduit {
    /// The conduit's id.
    pub id: ConduitId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// `sip-trunk`, `carrier`, `pharmacy-system` or `crm`.
    #[schema(value_type = String)]
    pub kind: ConduitKind,
    /// Its name.
    pub name: String,
    /// `inbound`, `outbound` or `both`.
    #[schema(value_type = String)]
    pub direction: ConduitDirection,
    /// `active`, `disabled` or `failing`.
    #[schema(value_type = String)]
    pub status: ConduitStatus,
    /// Where it connects (a SIP host or a URL); empty when not set.
    pub address: String,
    /// Whether credentials are stored (they are never answered).
    pub has_credentials: bool,
    /// When its status was last checked (ISO 8601, UTC); null until a check reports.
    pub last_checked_at: Option<String>,
    /// Whether the last check passed; null until a check reports.
    pub last_check_ok: Option<bool>,
    /// What the last check said (a SIP response, an HTTP status); empty when nothing.
    pub last_check_detail: String,
    /// The tenant's phone numbers routed through it.
    pub numbers_count: i64,
}

/// Filters of the conduit lists.
#[derive(Clone, Debug, Default, Filter)]
pub struct ConduitFilter {
    /// Only this tenant's conduits.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Only conduits of this kind.
    #[field(rule = KIND)]
    pub kind: Option<ConduitKind>,
}

/// The body of `POST /v2/admin/conduits/`.
// `UpdateConduit`, the body of `PATCH`, is generated from it; a field with `column` is
// stored in the conduit's row, the credentials sealed by the repository (docs/decisions.md,
// "Declared once").
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant),
    update(
        name = UpdateConduit,
        doc = "The body of `PATCH /v2/admin/conduits/{id}`: fields not sent stay unchanged; `null`\nremoves a credential.",
        fixed(tenantId = "cannot be changed"),
    )
)]
pub struct CreateConduit {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// `sip-trunk`, `carrier`, `pharmacy-system` or `crm`.
    #[field(rule = KIND, column)]
    pub kind: ConduitKind,
    /// Its name.
    #[field(rule = NAME, column)]
    pub name: String,
    /// `inbound`, `outbound` or `both` (default).
    #[field(rule = DIRECTION, default = ConduitDirection::Both, column)]
    pub direction: ConduitDirection,
    /// `active` (default), `disabled` or `failing`.
    #[field(rule = STATUS, default = ConduitStatus::Active, column)]
    pub status: ConduitStatus,
    /// Where it connects (a SIP host or a URL).
    #[field(rule = ADDRESS, default = String::new(), column)]
    pub address: String,
    /// The user name it authenticates with (stored sealed, never answered); in a change,
    /// `null` removes it.
    #[field(rule = CREDENTIAL, null_clears)]
    pub username: Option<String>,
    /// The password or API key it authenticates with (stored sealed, never answered); in
    /// a change, `null` removes it.
    #[field(rule = CREDENTIAL, null_clears)]
    pub secret: Option<String>,
}

/// What a health check may say of a conduit (a SIP response, an HTTP status line).
pub const CHECK_DETAIL: Text = text(0, 500);

/// The body of `POST /v2/ingest/conduit-checks`: the engine (which owns the SIP side)
/// reports one health check of a conduit. A passed check makes a `failing` conduit
/// `active` again, a failed one makes an `active` conduit `failing`; `disabled` is an
/// administrator's and stays.
#[derive(Clone, Debug, Body)]
pub struct IngestConduitCheck {
    /// The tenant whose conduit it is.
    #[field(rule = ID)]
    pub tenant_id: TenantId,
    /// The conduit checked, of the tenant.
    #[field(rule = ID)]
    pub conduit_id: ConduitId,
    /// Whether the conduit answered as it should.
    #[field(rule = Bool)]
    pub ok: bool,
    /// When it was checked (RFC 3339, not in the future); default: now. A check older
    /// than the last one recorded changes nothing.
    #[field(rule = Instant)]
    pub checked_at: Option<DateTime<Utc>>,
    /// What the check said (a SIP response, an HTTP status).
    #[field(rule = CHECK_DETAIL, default = String::new())]
    pub detail: String,
}

/// What a conduit check recorded.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConduitCheckResult {
    /// Whether the check was recorded (`false` when a later check is already known).
    pub recorded: bool,
    /// The conduit's status before the check.
    pub previous_status: String,
    /// The conduit, as it is after the check.
    pub conduit: Conduit,
}
