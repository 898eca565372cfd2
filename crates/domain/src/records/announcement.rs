//! Announcements: a media file played on the IVRs it is attached to, while active and
//! between its start and end dates.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::NAME;
use super::business_hour::BranchRef;
use crate::ids::{AnnouncementId, BranchId, MediaFileId, TenantId};
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{
    FLAG, FromBody, FromQuery, ID, ObjectReader, Problems, QueryReader, Raw, Rule, int, text,
};

/// The attached media file, resolved.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnnouncementMediaFile {
    /// The media file's id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Its tenant.
    pub tenant_id: i64,
}

/// An IVR the announcement is attached to, resolved.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct AnnouncementIvr {
    /// The IVR's id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Its tenant.
    pub tenant_id: i64,
    /// Position among the announcement's IVRs.
    pub order: i64,
}

/// An announcement, as the spec.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
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
        if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
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
        let text = match raw {
            Raw::Json(Value::String(s)) => s.as_str(),
            Raw::Text(s) => s,
            Raw::Json(_) => return Err("must be a string".into()),
        };
        let is_date = text.len() == 10 && NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok();
        if is_date {
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
}

/// An IVR to attach, as sent: `{id, order?}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IvrLink {
    /// The IVR's id.
    pub id: i64,
    /// Position (defaults to the array position, from 1).
    pub order: i64,
}

/// An IVR to attach, for the API document.
#[derive(Clone, Debug, ToSchema)]
pub struct IvrLinkBody {
    /// The IVR's id, of the same tenant.
    #[schema(minimum = 1)]
    pub id: i64,
    /// Position among the announcement's IVRs (defaults to the array position).
    #[schema(nullable = false, minimum = 0, maximum = 1000000)]
    pub order: Option<i64>,
}

/// The announcement body, for the API document.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct AnnouncementBody {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[schema(nullable = false, minimum = 1)]
    pub tenant_id: Option<i64>,
    /// The branch, of the same tenant (required on create, except for branch admins).
    #[schema(nullable = false, minimum = 1)]
    pub branch_id: Option<i64>,
    /// Its name (required on create).
    #[schema(nullable = false, min_length = 1, max_length = 255)]
    pub name: Option<String>,
    /// What it is for (default empty).
    #[schema(nullable = false, max_length = 2000)]
    pub description: Option<String>,
    /// The media file it plays, of the same tenant (required on create).
    #[schema(nullable = false, minimum = 1)]
    pub media_file_id: Option<i64>,
    /// 1 active (default), 0 inactive.
    #[schema(nullable = false, minimum = 0, maximum = 1)]
    pub active: Option<i64>,
    /// ISO 8601 date or date-time (required on create).
    #[schema(nullable = false)]
    pub start_date: Option<String>,
    /// ISO 8601 date or date-time after `startDate` (required on create).
    #[schema(nullable = false)]
    pub end_date: Option<String>,
    /// The IVRs to attach (replace the current ones when sent).
    #[schema(nullable = false)]
    pub ivrs: Option<Vec<IvrLinkBody>>,
}

/// An announcement body, parsed: every field optional (a create checks the required ones).
#[derive(Clone, Debug, Default)]
pub struct AnnouncementFields {
    /// Tenant.
    pub tenant_id: Option<TenantId>,
    /// Branch.
    pub branch_id: Option<BranchId>,
    /// Name.
    pub name: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// Media file.
    pub media_file_id: Option<MediaFileId>,
    /// Active flag.
    pub active: Option<i64>,
    /// Start.
    pub start_date: Option<String>,
    /// End.
    pub end_date: Option<String>,
    /// IVRs.
    pub ivrs: Option<Vec<IvrLink>>,
}

fn read(body: &Value, create: bool) -> Result<AnnouncementFields, Problems> {
    let mut problems = Problems::new();
    let fields = ObjectReader::body(body, &mut problems).and_then(|mut r| {
        let tenant = r.optional("tenantId", &ID);
        let branch = r.optional("branchId", &ID);
        let name = r.required_if(create, "name", &NAME);
        let description = r.optional("description", &text(0, 2000));
        let media = r.required_if(create, "mediaFileId", &ID);
        let active = r.optional("active", &FLAG);
        let start = r.required_if(create, "startDate", &IsoDate);
        let end = r.required_if(create, "endDate", &IsoDate);
        let ivrs = {
            let mut position = 0;
            let mut seen = std::collections::HashSet::new();
            r.objects("ivrs", |item| {
                position += 1;
                let id = item.required("id", &ID);
                let order = item.optional("order", &int(0, 1_000_000));
                let id = id?;
                if !seen.insert(id) {
                    item.problem("id", "is listed twice");
                    return None;
                }
                Some(IvrLink {
                    id,
                    order: order.ok()?.unwrap_or(position),
                })
            })
        };
        if let (Ok(Some(start)), Ok(Some(end))) = (&start, &end)
            && IsoDate::instant(end) <= IsoDate::instant(start)
        {
            r.problem("endDate", "must be after startDate");
        }
        Some(AnnouncementFields {
            tenant_id: tenant.ok()?.map(TenantId),
            branch_id: branch.ok()?.map(BranchId),
            name: name.ok()?,
            description: description.ok()?,
            media_file_id: media.ok()?.map(MediaFileId),
            active: active.ok()?,
            start_date: start.ok()?,
            end_date: end.ok()?,
            ivrs: ivrs.ok()?,
        })
    });
    problems.finish(|| fields)
}

/// The body of `POST /v2/admin/announcements/`.
#[derive(Clone, Debug)]
pub struct CreateAnnouncement(pub AnnouncementFields);

/// The body of `PATCH /v2/admin/announcements/{id}`.
#[derive(Clone, Debug)]
pub struct UpdateAnnouncement(pub AnnouncementFields);

impl FromBody for CreateAnnouncement {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        read(body, true).map(CreateAnnouncement)
    }
}

impl FromBody for UpdateAnnouncement {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        if body.get("tenantId").is_some() {
            let mut problems = Problems::new();
            problems.add(crate::Location::Body, "tenantId", "cannot be changed");
            return Err(problems);
        }
        read(body, false).map(UpdateAnnouncement)
    }
}

documented_as!(AnnouncementBody => CreateAnnouncement, UpdateAnnouncement);

/// Filters of the announcement list.
#[derive(Clone, Debug, Default)]
pub struct AnnouncementFilter {
    /// Only the announcements of this tenant.
    pub tenant_id: Option<TenantId>,
    /// Only the announcements of this branch.
    pub branch_id: Option<BranchId>,
    /// Only active (1) or inactive (0) ones.
    pub active: Option<i64>,
}

impl FromQuery for AnnouncementFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mut q = QueryReader::new(params, &mut problems);
        let tenant_id = q.optional("tenantId", &ID).map(TenantId);
        let branch_id = q.optional("branchId", &ID).map(BranchId);
        let active = q.optional("active", &FLAG);
        problems.finish(|| {
            Some(AnnouncementFilter {
                tenant_id,
                branch_id,
                active,
            })
        })
    }
}

/// Sorting and search of the announcement list.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "a.id",
        },
        SortField {
            name: "name",
            column: "a.name",
        },
        SortField {
            name: "startDate",
            column: "a.start_date",
        },
        SortField {
            name: "endDate",
            column: "a.end_date",
        },
        SortField {
            name: "active",
            column: "a.active",
        },
    ],
    search_columns: &["a.name", "a.description"],
    search_index: None,
};

impl crate::list::ListFilter for AnnouncementFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[
        FilterDoc {
            name: "tenantId",
            description: "Only the announcements of this tenant.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "branchId",
            description: "Only the announcements of this branch.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "active",
            description: "1 active, 0 inactive.",
            kind: FilterKind::Int(0, 1),
        },
    ];
}
