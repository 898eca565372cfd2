//! Phone numbers (DIDs): provisioned to a tenant by platform and partner admins; their
//! routing settings (CNAM, recording, fax, …) edited by the tenant.

use serde::Serialize;
use utoipa::ToSchema;

use super::destination::{DestType, Destination, DestinationInput, Destinations, OneDestination};
use super::{YES_NO, YesNo};
use crate::declare::{Body, Filter, Listed, OptionalRef, Stored};
use crate::ids::{BranchId, ConduitId, ExtensionId, PhoneNumberId, TenantId};
use crate::list::BranchedFilter;
use crate::validation::{Chars, FLAG, ID, OptionalEmail, Switch, Text, dial, text};

/// A phone number: 2 to 20 dial characters, unique platform-wide.
pub const NUMBER: Chars = dial(2, 20);

/// A phone number, as the spec: every integer id is 0 when it does not apply.
#[derive(Clone, Debug, Serialize, ToSchema, Listed, Stored)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[stored(table = "phone_numbers", alias = "p")]
#[list(sort(id, number, di_comment_name, registered_cnam, in_use, tenant_id, branch_id), filter = PhoneNumberFilter, table = "p", per_page_alias = "resultsPerPage",
       search("number", "di_comment_name", "registered_cnam"),
       search_index(table = "phone_numbers_search", id = "p.id"))]
pub struct PhoneNumber {
    /// The number's id.
    pub id: PhoneNumberId,
    /// The tenant it is provisioned to.
    pub tenant_id: TenantId,
    /// The branch it belongs to, 0 for none.
    pub branch_id: OptionalRef<BranchId>,
    /// The extension that receives its text messages, 0 for none.
    pub sms_ext_id: OptionalRef<ExtensionId>,
    /// 1 while something routes to or from it (a destination for its calls, an extension
    /// its texts reach), 0 when idle: derived, never set by a body.
    pub in_use: i64,
    /// The number, digits (E.164 without `+`, or with it).
    pub number: String,
    /// The caller name registered for it (CNAM), at most 15 characters.
    #[serde(rename = "registeredCNAM")]
    #[list(name = "registeredCNAM")]
    pub registered_cnam: String,
    /// A comment naming what the number is for.
    pub di_comment_name: String,
    /// `yes` to record its calls.
    pub recording: String,
    /// `yes` when it receives faxes.
    pub fax: String,
    /// Where received faxes are e-mailed.
    pub fax_email: String,
    /// `yes` to keep received faxes.
    pub fax_store: String,
    /// A prefix shown before the caller's name.
    pub name_prefix: String,
    /// Unconditional forwarding state.
    pub unconditional_status: String,
    /// `yes` to e-mail its recordings.
    pub email_recording: String,
    /// Where calls go while the platform is unreachable.
    pub store_and_forward_number: String,
    /// The tenant's name.
    #[stored(joined)]
    pub tenant_name: String,
    /// The conduit (a SIP trunk, a carrier connection) its calls go through, 0 for none.
    pub conduit_id: OptionalRef<ConduitId>,
    /// Where its calls go, resolved; null while it routes nowhere.
    #[stored(skip)]
    pub destination: Option<Destination>,
}

/// Where a phone number's calls may go: a business hour, an IVR, a queue, a paging
/// group, an extension or its mailbox, or a pharmacy agent, of the number's tenant.
pub const ROUTE: OneDestination = OneDestination(Destinations {
    name: "RouteBody",
    allowed: &[
        DestType::BusinessHour,
        DestType::Ivr,
        DestType::Queue,
        DestType::PagingGroup,
        DestType::Ext,
        DestType::Voicemail,
        DestType::PharmacyAgent,
    ],
    min: 0,
});

/// The text limit of a CNAM.
const CNAM: Text = text(0, 15);
/// A comment naming what a number is for.
const COMMENT: Text = text(0, 255);
/// Short settings texts.
const SHORT: Text = text(0, 32);
/// A store-and-forward number, or empty.
const FORWARD: Chars = dial(0, 20);

/// The settings of a phone number, as sent (all optional; a create may send them too).
// A field with `column` is written into the number's row when sent (docs/decisions.md,
// "Declared once").
#[derive(Clone, Debug, Default, Body)]
#[body(changes)]
pub struct PhoneNumberSettings {
    /// The branch, of the tenant, or null (or 0) for none.
    #[field(rule = ID, zero_none, column)]
    pub branch_id: Option<Option<BranchId>>,
    /// The extension receiving its texts, of the tenant, or null (or 0) for none.
    #[field(rule = ID, zero_none, column)]
    pub sms_ext_id: Option<Option<ExtensionId>>,
    /// Read-only, ignored when sent: `inUse` follows what routes to or from the number
    /// (a destination, an extension its texts reach), so a `GET` answer sent back is
    /// accepted whatever it says.
    // No column: the database derives it (migration 0038).
    #[field(rule = FLAG)]
    pub in_use: Option<i64>,
    /// Caller name (CNAM), at most 15 characters.
    #[field(rule = CNAM, name = "registeredCNAM", column)]
    pub registered_cnam: Option<String>,
    /// A comment naming what it is for.
    #[field(rule = COMMENT, column)]
    pub di_comment_name: Option<String>,
    /// `yes` or `no`.
    #[field(rule = YES_NO, column)]
    pub recording: Option<YesNo>,
    /// `yes` or `no`.
    #[field(rule = YES_NO, column)]
    pub fax: Option<YesNo>,
    /// An e-mail address, or empty.
    #[field(rule = OptionalEmail, column)]
    pub fax_email: Option<String>,
    /// `yes` or `no`.
    #[field(rule = YES_NO, column)]
    pub fax_store: Option<YesNo>,
    /// A prefix shown before the caller's name.
    #[field(rule = SHORT, column)]
    pub name_prefix: Option<String>,
    /// Unconditional forwarding state.
    #[field(rule = SHORT, column)]
    pub unconditional_status: Option<String>,
    /// `yes` or `no`.
    #[field(rule = YES_NO, column)]
    pub email_recording: Option<YesNo>,
    /// Dial characters, or empty.
    #[field(rule = FORWARD, column)]
    pub store_and_forward_number: Option<String>,
    /// Where its calls go: a business hour, IVR, queue, paging group, extension or
    /// mailbox of the tenant; null to route nowhere.
    #[field(rule = ROUTE)]
    pub destination: Option<Option<DestinationInput>>,
    /// The conduit its calls go through, of the tenant; null (or 0) for none.
    #[field(rule = ID, zero_none, column)]
    pub conduit_id: Option<Option<ConduitId>>,
}

/// The body of `POST /v2/admin/phone-numbers/` (platform and partner admins).
#[derive(Clone, Debug, Body)]
pub struct CreatePhoneNumber {
    /// The tenant it is provisioned to.
    #[field(rule = ID)]
    pub tenant_id: TenantId,
    /// The number, 2 to 20 dial characters, unique platform-wide.
    #[field(rule = NUMBER)]
    pub number: String,
    /// Its settings.
    #[field(flatten)]
    pub settings: PhoneNumberSettings,
}

/// The body of `PATCH /v2/admin/phone-numbers/{id}`: the settings; the tenant and the
/// number never change (release the number and provision it again).
#[derive(Clone, Debug, Body)]
#[body(fixed(
    tenantId = "cannot be changed: release the number and provision it again",
    number = "cannot be changed: release the number and provision it again"
))]
pub struct UpdatePhoneNumber {
    /// Its settings.
    #[field(flatten)]
    pub settings: PhoneNumberSettings,
}

/// Filters of the phone-number list (interface §6).
#[derive(Clone, Debug, Default, Filter)]
pub struct PhoneNumberFilter {
    /// The tenant and branch.
    #[field(flatten)]
    pub place: BranchedFilter,
    /// Numbers containing these characters.
    #[field(rule = NUMBER_FILTER)]
    pub number: Option<String>,
    /// 1 fax numbers, 0 the others.
    #[field(rule = Switch)]
    pub fax: Option<bool>,
    /// 1 in use, 0 idle.
    #[field(rule = Switch)]
    pub in_use: Option<bool>,
    /// Only numbers whose calls go through this conduit.
    #[field(rule = ID)]
    pub conduit_id: Option<ConduitId>,
}

/// The `number` filter: at most 11 characters (the spec's limit).
const NUMBER_FILTER: Text = text(1, 11);
