//! The audit trail: who did what, when and from where — every create, update and delete
//! of every resource with the changed fields before and after, and the account events
//! (logins, failures, lockouts, token refreshes, multi-factor and password changes) —
//! readable by tenant.

use serde::Serialize;
use utoipa::ToSchema;

use crate::declare::{Filter, Listed};
use crate::ids::{AuditEntryId, TenantId, UserId};
use crate::validation::{Among, CommaList, ID, Id, Text, among, text};

crate::closed_set! {
    /// The entity kinds the trail records, and the release notes' other areas.
    pub enum AuditEntity {
        /// `authentication` entries.
        Authentication = "authentication",
        /// `session` entries.
        Session = "session",
        /// `user` entries.
        User = "user",
        /// `mfa` entries.
        Mfa = "mfa",
        /// `password` entries.
        Password = "password",
        /// `webhook` entries.
        Webhook = "webhook",
        /// `partner` entries.
        Partner = "partner",
        /// `tenant` entries.
        Tenant = "tenant",
        /// `branch` entries.
        Branch = "branch",
        /// `extension` entries.
        Extension = "extension",
        /// `ivr` entries.
        Ivr = "ivr",
        /// `paging-group` entries.
        PagingGroup = "paging-group",
        /// `business-hours` entries.
        BusinessHours = "business-hours",
        /// `holiday` entries.
        Holiday = "holiday",
        /// `announcement` entries.
        Announcement = "announcement",
        /// `media-file` entries.
        MediaFile = "media-file",
        /// `phone-number` entries.
        PhoneNumber = "phone-number",
        /// `voicemail-message` entries.
        VoicemailMessage = "voicemail-message",
        /// `call-recording` entries.
        CallRecording = "call-recording",
        /// `device` entries.
        Device = "device",
        /// `button-layout` entries.
        ButtonLayout = "button-layout",
        /// `mms-media` entries.
        MmsMedia = "mms-media",
        /// `call-outcome` entries.
        CallOutcome = "call-outcome",
        /// `custom-voice` entries.
        CustomVoice = "custom-voice",
        /// `queue` entries.
        Queue = "queue",
        /// `theme` entries.
        Theme = "theme",
        /// `conduit` entries.
        Conduit = "conduit",
        /// `music-on-hold` entries.
        MusicOnHold = "music-on-hold",
        /// `fax` entries.
        Fax = "fax",
        /// `call-campaign` entries.
        CallCampaign = "call-campaign",
        /// `call-campaign-record` entries.
        CallCampaignRecord = "call-campaign-record",
        /// `opt-out` entries.
        OptOut = "opt-out",
        /// `pharmacy-agent` entries.
        PharmacyAgent = "pharmacy-agent",
        /// `fax-retry-policy` entries.
        FaxRetryPolicy = "fax-retry-policy",
    }
}

/// One audit entry.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[list(sort(id, at, action, user_email), filter = AuditFilter, table = "l", search("user_email", "action", "client_address"))]
pub struct AuditEntry {
    /// The entry's id.
    pub id: AuditEntryId,
    /// When (RFC 3339, UTC, milliseconds).
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    #[list(column = "at_ms")]
    pub at: String,
    /// When, as stored (milliseconds since the epoch).
    #[serde(skip)]
    #[schema(ignore)]
    pub at_ms: i64,
    /// The tenant concerned, if any.
    pub tenant_id: Option<TenantId>,
    /// The tenant's name.
    pub tenant_name: Option<String>,
    /// The acting (or targeted) user, if known.
    pub user_id: Option<UserId>,
    /// That user's e-mail address (as typed, for failed logins of unknown accounts).
    pub user_email: String,
    /// What happened: `create`, `update`, `delete` for a change of a record;
    /// `login.success`, `login.failure`, `login.locked`, `token.refresh`, `token.reuse`,
    /// `logout`, `mfa.enrol`, `mfa.enable`, `mfa.disable`, `password.change`, … otherwise.
    pub action: String,
    /// The kind of record concerned (`extension`, `paging-group`, `webhook`, `user`,
    /// `authentication`, `session`, …; see the `entities` filter).
    pub entity: String,
    /// The record's id, when there is one.
    pub entity_id: Option<String>,
    /// The client address the request came from.
    pub client_address: String,
    /// The record's changed fields as they were (every field for a delete; null for a
    /// create or an account event). Secrets never appear: a changed one reads `********`.
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    #[schema(value_type = Option<Object>)]
    pub before: serde_json::Value,
    /// The record's changed fields as they are now (every field for a create; null for
    /// a delete or an account event).
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    #[schema(value_type = Option<Object>)]
    pub after: serde_json::Value,
    /// Further facts, as a JSON object.
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    pub details: serde_json::Value,
    /// The facts as stored (JSON text).
    #[serde(skip)]
    #[schema(ignore)]
    #[cfg_attr(feature = "sqlx", sqlx(rename = "details"))]
    pub details_text: String,
}

/// Comma-separated tenant ids (`tenantIds=1,2,3`).
const TENANT_IDS: CommaList<Id> = CommaList {
    item: ID,
    what: "ids",
    max: 2000,
};
/// Comma-separated entity kinds.
const ENTITY_LIST: CommaList<Among<AuditEntity>> = CommaList {
    item: among(),
    what: "entity kinds",
    max: 500,
};
/// An action name.
const ACTION: Text = text(1, 64);
/// A record's id as the trail keeps it.
const ENTITY_ID: Text = text(1, 64);

/// Filters of the audit log.
#[derive(Clone, Debug, Default, Filter)]
pub struct AuditFilter {
    /// Only entries of this tenant.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Only entries of these tenants (comma-separated ids).
    #[field(rule = TENANT_IDS)]
    pub tenant_ids: Option<Vec<i64>>,
    /// Only entries about these kinds of record (comma-separated).
    #[field(rule = ENTITY_LIST)]
    pub entities: Option<Vec<AuditEntity>>,
    /// Only entries of this action.
    #[field(rule = ACTION)]
    pub action: Option<String>,
    /// Only entries about the record with this id (with `entities`, of that kind).
    #[field(rule = ENTITY_ID)]
    pub entity_id: Option<String>,
}
