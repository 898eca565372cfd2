//! Opt-out (do-not-call) lists: numbers no campaign may dial, kept at three levels — the
//! platform's (every tenant), a tenant's (each of its campaigns) and a campaign's own —
//! each entry with where it came from, why, when, and an optional expiry.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::declare::{Body, Filter, Listed};
use crate::ids::{CallCampaignId, OptOutId, TenantId};
use crate::validation::{Among, ID, Instant, Text, among, text};

crate::closed_set! {
    /// The level of an opt-out list.
    pub enum OptOutLevel {
        /// The platform's list, binding every tenant.
        Platform = "platform",
        /// A tenant's list, binding its campaigns.
        Tenant = "tenant",
        /// One campaign's list.
        Campaign = "campaign",
    }
}
const LEVEL: Among<OptOutLevel> = among();
crate::closed_set! {
    /// Where an opt-out entry came from.
    pub enum OptOutSource {
        /// Added by hand.
        Manual = "manual",
        /// Imported from a file.
        Import = "import",
        /// The callee pressed the opt-out key.
        Engine = "engine",
        /// A complaint.
        Complaint = "complaint",
        /// A regulator's list.
        Regulator = "regulator",
    }
}
const SOURCE: Among<OptOutSource> = among();
/// Why the number was opted out.
pub const REASON: Text = text(0, 500);

/// How a refusal names a list level.
pub fn list_name(level: &str) -> &'static str {
    match level.parse() {
        Ok(OptOutLevel::Platform) => "the platform's opt-out list",
        Ok(OptOutLevel::Campaign) => "the campaign's opt-out list",
        Ok(OptOutLevel::Tenant) | Err(_) => "the tenant's opt-out list",
    }
}

/// An entry of an opt-out list.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[list(sort(id, number, level, created_at, expires_at), filter = OptOutFilter, search("number", "reason"))]
pub struct OptOut {
    /// The entry's id.
    pub id: OptOutId,
    /// `platform`, `tenant` or `campaign`.
    #[schema(value_type = String)]
    pub level: OptOutLevel,
    /// The tenant of a tenant or campaign entry; null for the platform's.
    pub tenant_id: Option<TenantId>,
    /// The campaign of a campaign entry.
    pub campaign_id: Option<CallCampaignId>,
    /// The number, E.164.
    pub number: String,
    /// `manual`, `import`, `engine` (the callee pressed the opt-out key), `complaint` or
    /// `regulator`.
    #[schema(value_type = String)]
    pub source: OptOutSource,
    /// Why.
    pub reason: Option<String>,
    /// When it was added.
    pub created_at: String,
    /// When it stops applying; null for never.
    pub expires_at: Option<String>,
}

/// Filters of the opt-out list.
#[derive(Clone, Debug, Default, Filter)]
pub struct OptOutFilter {
    /// Only this tenant's entries (tenant and campaign level).
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Only this level.
    #[field(rule = LEVEL)]
    pub level: Option<OptOutLevel>,
    /// Only this campaign's entries.
    #[field(rule = ID)]
    pub campaign_id: Option<CallCampaignId>,
}

/// The body of `POST /v2/admin/opt-outs/` (and one row of an import).
// `UpdateOptOut`, the body of `PATCH`, is generated from it (docs/decisions.md, "Declared
// once"): a change sets the reason and the expiry only.
#[derive(Clone, Debug, Body)]
#[body(update(
    name = UpdateOptOut,
    doc = "The body of `PATCH /v2/admin/opt-outs/{id}`.",
    fixed(
        tenantId = "cannot be changed",
        number = "cannot be changed",
        level = "cannot be changed"
    ),
))]
pub struct CreateOptOut {
    /// `platform` (platform admins only), `tenant` (default) or `campaign`.
    #[field(rule = LEVEL, default = OptOutLevel::Tenant, create_only)]
    pub level: OptOutLevel,
    /// The tenant of a tenant entry; tenant-scoped callers may omit it.
    #[field(rule = ID, create_only)]
    pub tenant_id: Option<TenantId>,
    /// The campaign of a campaign entry.
    #[field(rule = ID, create_only)]
    pub campaign_id: Option<CallCampaignId>,
    /// The number: E.164, or national in the tenant's default country (the platform's
    /// list takes E.164 only).
    #[field(rule = super::call_campaign::NUMBER, create_only)]
    pub number: String,
    /// Where it came from (default `manual`).
    #[field(rule = SOURCE, default = OptOutSource::Manual, create_only)]
    pub source: OptOutSource,
    /// Why (in a change, null clears it).
    #[field(rule = REASON, null_clears)]
    pub reason: Option<String>,
    /// When it stops applying (in a change, null for never).
    #[field(rule = Instant, null_clears)]
    pub expires_at: Option<DateTime<Utc>>,
}
