//! Announcements: a media file played on the IVRs it is attached to, while active and
//! between its start and end dates.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa::openapi::schema::{OneOfBuilder, Schema};

use super::NAME;
use super::business_hour::BranchRef;
use crate::declare::{Body, Filter, Listed};
use crate::ids::{AnnouncementId, BranchId, IvrId, MediaFileId, TenantId};
use crate::list::BranchedFilter;
use crate::validation::{
    Date, FLAG, ID, Instant, Int, ListOf, Nested, ObjectReader, Raw, Rule, Switch, Text, as_str,
    int, list_of, nested, text,
};

/// The attached media file, resolved.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnnouncementMediaFile {
    /// The media file's id.
    pub id: MediaFileId,
    /// Its name.
    pub name: String,
    /// Its tenant.
    pub tenant_id: TenantId,
}

/// An IVR the announcement is attached to, resolved.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct AnnouncementIvr {
    /// The IVR's id.
    pub id: IvrId,
    /// Its name.
    pub name: String,
    /// Its tenant.
    pub tenant_id: TenantId,
    /// Position among the announcement's IVRs.
    pub order: i64,
}

/// An announcement, as the spec.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, start_date, end_date, active), filter = AnnouncementFilter, table = "a", search("name", "description"))]
pub struct Announcement {
    /// The announcement's id.
    pub id: AnnouncementId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// The media file it plays.
    pub media_file: AnnouncementMediaFile,
    /// 1 active, 0 inactive.
    pub active: i64,
    /// When it starts playing (ISO 8601).
    pub start_date: String,
    /// When it stops playing (ISO 8601), after `startDate`.
    pub end_date: String,
    /// The IVRs it is attached to, by `order`.
    pub ivrs: Vec<AnnouncementIvr>,
    /// The branch it belongs to.
    pub branch: BranchRef,
}

/// An ISO 8601 date (`2026-12-24`) or date-time with offset (`2026-12-24T09:00:00-05:00`),
/// normalised: dates stay dates, date-times become UTC.
#[derive(Clone, Copy, Debug)]
pub struct IsoDate;

impl IsoDate {
    /// The instant a normalised value starts at (dates at 00:00 UTC), for ordering.
    pub fn instant(text: &str) -> Option<DateTime<Utc>> {
        if let Some(date) = Date::parse(text) {
            return date.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
        }
        DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }
}

impl Rule for IsoDate {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let text = as_str(raw)?;
        if Date::parse(text).is_some() {
            return Ok(text.to_owned());
        }
        DateTime::parse_from_rfc3339(text)
            .map(|t| {
                t.with_timezone(&Utc)
                    .to_rfc3339_opts(SecondsFormat::Secs, true)
            })
            .map_err(|_| {
                "must be an ISO 8601 date (2026-12-24) or date-time (2026-12-24T09:00:00Z)".into()
            })
    }
    fn schema(&self) -> Schema {
        OneOfBuilder::new()
            .item(Rule::schema(&Date))
            .item(Rule::schema(&Instant))
            .into()
    }
    fn example(&self) -> Value {
        json!("2026-12-24")
    }
}

/// An IVR to attach, as sent: `{id, order?}`.
#[derive(Clone, Debug, PartialEq, Eq, Body)]
pub struct IvrLink {
    /// The IVR's id, of the same tenant.
    #[field(rule = ID)]
    pub id: IvrId,
    /// Position among the announcement's IVRs (defaults to the array position, from 1).
    #[field(rule = POSITION)]
    pub order: Option<i64>,
}

impl IvrLink {
    /// The link's position: as sent, else its place in the list (from 1).
    pub fn position(&self, index: usize) -> i64 {
        self.order
            .unwrap_or_else(|| i64::try_from(index).map_or(i64::MAX, |i| i + 1))
    }
}

/// A position in an ordered list.
const POSITION: Int = int(0, 1_000_000);
/// What an announcement is for.
const DESCRIPTION: Text = text(0, 2000);
/// The IVRs of an announcement.
const IVR_LINKS: ListOf<Nested<IvrLink>> = list_of(nested::<IvrLink>(), 0, 1000);

/// Refuses an IVR listed twice and an end that is not after the start, the rules across
/// fields no schema states.
fn check_links_and_dates(
    ivrs: Option<&[IvrLink]>,
    start: Option<&str>,
    end: Option<&str>,
    r: &mut ObjectReader<'_>,
) -> bool {
    let before = r.problem_count();
    let mut seen = std::collections::HashSet::new();
    for (index, link) in ivrs.unwrap_or_default().iter().enumerate() {
        if !seen.insert(link.id) {
            r.problem_at(&format!("ivrs/{index}/id"), "is listed twice");
        }
    }
    if let (Some(start), Some(end)) = (start, end)
        && IsoDate::instant(end) <= IsoDate::instant(start)
    {
        r.problem("endDate", "must be after startDate");
    }
    r.problem_count() == before
}

/// The body of `POST /v2/admin/announcements/`.
// `UpdateAnnouncement`, the body of `PATCH`, is generated from it; a field with `column`
// is stored in the announcement's row (docs/decisions.md, "Declared once").
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant, branch),
    check = CreateAnnouncement::check,
    example = CreateAnnouncement::example_body,
    update(
        name = UpdateAnnouncement,
        doc = "The body of `PATCH /v2/admin/announcements/{id}`: fields not sent stay unchanged; a\nsent `ivrs` list replaces the current one.",
        fixed(tenantId = "cannot be changed"),
        check = UpdateAnnouncement::check,
        example = UpdateAnnouncement::example_body,
    )
)]
pub struct CreateAnnouncement {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// The branch, of the same tenant; a create needs it unless the caller is a branch
    /// admin, whose own branch it then is.
    #[field(rule = ID, column)]
    pub branch_id: Option<BranchId>,
    /// Its name.
    #[field(rule = NAME, column)]
    pub name: String,
    /// What it is for (default empty).
    #[field(rule = DESCRIPTION, default = String::new(), column)]
    pub description: String,
    /// The media file it plays, of the same tenant.
    #[field(rule = ID, column)]
    pub media_file_id: MediaFileId,
    /// 1 active (default), 0 inactive.
    #[field(rule = FLAG, default = 1, column)]
    pub active: i64,
    /// ISO 8601 date or date-time.
    #[field(rule = IsoDate, column)]
    pub start_date: String,
    /// ISO 8601 date or date-time after `startDate`.
    #[field(rule = IsoDate, column)]
    pub end_date: String,
    /// The IVRs to attach, each once.
    #[field(rule = IVR_LINKS, default = Vec::new())]
    pub ivrs: Vec<IvrLink>,
}

impl CreateAnnouncement {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        check_links_and_dates(
            Some(&self.ivrs),
            Some(&self.start_date),
            Some(&self.end_date),
            r,
        )
    }

    fn example_body() -> Value {
        json!({"tenantId": 1, "branchId": 1, "name": "Holiday closure", "mediaFileId": 1,
               "startDate": "2026-12-24", "endDate": "2026-12-27", "ivrs": [{"id": 1}]})
    }
}

impl UpdateAnnouncement {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        check_links_and_dates(
            self.ivrs.as_deref(),
            self.start_date.as_deref(),
            self.end_date.as_deref(),
            r,
        )
    }

    fn example_body() -> Value {
        json!({"name": "Holiday closure", "endDate": "2026-12-28"})
    }
}

/// Filters of the announcement list.
#[derive(Clone, Debug, Default, Filter)]
pub struct AnnouncementFilter {
    /// The tenant and branch.
    #[field(flatten)]
    pub place: BranchedFilter,
    /// 1 active, 0 inactive.
    #[field(rule = Switch)]
    pub active: Option<bool>,
}
