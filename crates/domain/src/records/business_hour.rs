//! Business hours: a branch's weekly opening hours in its IANA time zone, the destinations
//! for calls inside and outside them, and the holidays that close it.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::NAME;
use super::destination::{Destination, DestinationBody, DestinationInput, read_list};
use crate::ids::{BranchId, BusinessHourId, HolidayId, TenantId};
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::schedule::{self, Closure, Interval, LocalBound, WeeklyHours};
use crate::validation::{
    Broken, FromBody, FromQuery, ID, ObjectReader, Problems, QueryReader, Raw, Rule, TimeZone, int,
};

/// One opening interval as written: local `HH:MM` times, `to` after `from` (`24:00` allowed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HoursInterval {
    /// Opening time, `HH:MM`.
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub from: String,
    /// Closing time, `HH:MM` or `24:00`, after `from`.
    #[schema(pattern = "^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$")]
    pub to: String,
}

/// The branch a record belongs to, resolved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct BranchRef {
    /// The branch's id.
    pub id: i64,
    /// The branch's name.
    pub name: String,
}

/// A holiday: a whole local day (`date`) or a local range (`from`/`to`: dates, inclusive,
/// or date-times `YYYY-MM-DDTHH:MM`, end exclusive) during which the business is closed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Holiday {
    /// The holiday's id.
    pub id: HolidayId,
    /// Its name.
    pub name: String,
    /// The day, when it is one whole day.
    pub date: Option<String>,
    /// Start of the range.
    pub from: Option<String>,
    /// End of the range.
    pub to: Option<String>,
    /// A media file played to callers during the holiday; 0 for none.
    pub media_file_id: i64,
}

impl Holiday {
    /// The closure this holiday makes, in local time.
    pub fn closure(&self) -> Option<Closure> {
        match (&self.date, &self.from, &self.to) {
            (Some(date), _, _) => match schedule::parse_local_bound(date)? {
                LocalBound::Date(day) => Some(schedule::closure_for_date(&self.name, day)),
                LocalBound::DateTime(_) => None,
            },
            (None, Some(from), Some(to)) => schedule::closure_for_range(
                &self.name,
                schedule::parse_local_bound(from)?,
                schedule::parse_local_bound(to)?,
            ),
            _ => None,
        }
    }
}

/// A business-hours record.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BusinessHour {
    /// The record's id.
    pub id: BusinessHourId,
    /// Its name.
    pub name: String,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// IANA time zone the hours are in.
    pub timezone: String,
    /// Weekly hours keyed by day, `"0"` (Sunday) to `"6"` (Saturday).
    pub hours: BTreeMap<String, Vec<HoursInterval>>,
    /// Where calls go inside the hours.
    pub match_destinations: Vec<Destination>,
    /// Where calls go outside the hours and on holidays.
    pub not_match_destinations: Vec<Destination>,
    /// The branch, resolved.
    pub branch: BranchRef,
    /// The holidays, by id.
    pub holidays: Vec<Holiday>,
}

impl BusinessHour {
    /// The weekly hours as minutes, for the schedule computation.
    pub fn weekly(&self) -> WeeklyHours {
        let mut weekly = WeeklyHours::default();
        for (day, intervals) in &self.hours {
            let Some(index) = day.parse::<usize>().ok().filter(|d| *d < 7) else {
                continue;
            };
            weekly.days[index] = intervals
                .iter()
                .filter_map(|i| {
                    Some(Interval {
                        from: schedule::parse_minute(&i.from, false)?,
                        to: schedule::parse_minute(&i.to, true)?,
                    })
                })
                .collect();
        }
        weekly
    }
}

/// A holiday in a request body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HolidayInput {
    /// Its name.
    pub name: String,
    /// A whole day.
    pub date: Option<String>,
    /// Start of a range.
    pub from: Option<String>,
    /// End of a range.
    pub to: Option<String>,
    /// The media file played during it (0 = none).
    pub media_file_id: i64,
}

/// A holiday in a request body, for the API document.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct HolidayBody {
    /// Its name.
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
    /// A whole local day, `YYYY-MM-DD`; or give `from` and `to`.
    #[schema(nullable = false, pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$")]
    pub date: Option<String>,
    /// Start of a local range: `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`.
    #[schema(
        nullable = false,
        pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?)?$"
    )]
    pub from: Option<String>,
    /// End of a local range: a date (inclusive) or a date-time (exclusive).
    #[schema(
        nullable = false,
        pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?)?$"
    )]
    pub to: Option<String>,
    /// A media file of the same tenant played during the holiday; 0 (default) for none.
    #[schema(nullable = false, minimum = 0)]
    pub media_file_id: Option<i64>,
}

/// A local date or date-time as written in a holiday.
#[derive(Clone, Copy, Debug)]
struct LocalText;

impl Rule for LocalText {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let text = match raw {
            Raw::Json(Value::String(s)) => s.as_str(),
            Raw::Text(s) => s,
            Raw::Json(_) => return Err("must be a string".into()),
        };
        schedule::parse_local_bound(text)
            .map(|_| text.to_owned())
            .ok_or_else(|| {
                "must be a date (YYYY-MM-DD) or a local date-time (YYYY-MM-DDTHH:MM)".into()
            })
    }
}

/// A local date, `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug)]
struct LocalDate;

impl Rule for LocalDate {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        match LocalText.check(raw) {
            Ok(text)
                if matches!(
                    schedule::parse_local_bound(&text),
                    Some(LocalBound::Date(_))
                ) =>
            {
                Ok(text)
            }
            _ => Err("must be a date (YYYY-MM-DD)".into()),
        }
    }
}

/// Reads a holiday's fields from `r`, checking its shape.
pub fn read_holiday(r: &mut ObjectReader<'_>, partial: bool) -> Option<HolidayPatch> {
    let name = if partial {
        r.optional("name", &NAME).ok()?
    } else {
        r.required("name", &NAME).map(Some)?
    };
    let date = r.optional("date", &LocalDate);
    let from = r.optional("from", &LocalText);
    let to = r.optional("to", &LocalText);
    let media = r.optional("mediaFileId", &int(0, i64::MAX));
    let (date, from, to, media) = (date.ok()?, from.ok()?, to.ok()?, media.ok()?);
    let when = match (date, from, to) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            r.problem("date", "must not be sent together with from/to");
            return None;
        }
        (Some(date), None, None) => Some(When::Day(date)),
        (None, Some(from), Some(to)) => {
            let valid = schedule::closure_for_range(
                "",
                schedule::parse_local_bound(&from)?,
                schedule::parse_local_bound(&to)?,
            )
            .is_some();
            if !valid {
                r.problem("to", "must be after from");
                return None;
            }
            Some(When::Range(from, to))
        }
        (None, Some(_), None) => {
            r.problem("to", "is required with from");
            return None;
        }
        (None, None, Some(_)) => {
            r.problem("from", "is required with to");
            return None;
        }
        (None, None, None) if partial => None,
        (None, None, None) => {
            r.problem("date", "is required (or from and to)");
            return None;
        }
    };
    Some(HolidayPatch {
        name,
        when,
        media_file_id: media,
    })
}

/// When a holiday is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum When {
    /// A whole local day.
    Day(String),
    /// A local range.
    Range(String, String),
}

/// A holiday's fields as sent: all optional on a patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HolidayPatch {
    /// New name.
    pub name: Option<String>,
    /// New day or range.
    pub when: Option<When>,
    /// New media file (0 = none).
    pub media_file_id: Option<i64>,
}

impl HolidayPatch {
    /// The complete holiday of a create body.
    pub fn into_input(self) -> Option<HolidayInput> {
        let (date, from, to) = match self.when? {
            When::Day(date) => (Some(date), None, None),
            When::Range(from, to) => (None, Some(from), Some(to)),
        };
        Some(HolidayInput {
            name: self.name?,
            date,
            from,
            to,
            media_file_id: self.media_file_id.unwrap_or(0),
        })
    }
}

/// The body of `POST /v2/admin/business-hours/{id}/holidays`.
#[derive(Clone, Debug)]
pub struct CreateHoliday(pub HolidayInput);

impl FromBody for CreateHoliday {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let holiday =
            ObjectReader::body(body, &mut problems).and_then(|mut r| read_holiday(&mut r, false));
        problems.finish(|| holiday?.into_input().map(CreateHoliday))
    }
}

/// The body of `PATCH /v2/admin/business-hours/{id}/holidays/{holidayId}`.
#[derive(Clone, Debug)]
pub struct UpdateHoliday(pub HolidayPatch);

documented_as!(HolidayBody => CreateHoliday);

impl FromBody for UpdateHoliday {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let holiday =
            ObjectReader::body(body, &mut problems).and_then(|mut r| read_holiday(&mut r, true));
        problems.finish(|| holiday.map(UpdateHoliday))
    }
}

documented_as!(HolidayBody => UpdateHoliday);

/// All destination types are allowed in business-hours lists.
const ANY_DESTINATION: &[&str] = super::destination::DestType::NAMES;

/// Reads `hours`: an object keyed `"0"`..`"6"`, each a list of `{from, to}`.
fn read_hours(
    r: &mut ObjectReader<'_>,
    problems_key: &str,
    value: Option<&Value>,
) -> Result<Option<BTreeMap<String, Vec<HoursInterval>>>, Broken> {
    let Some(value) = value else { return Ok(None) };
    let Value::Object(days) = value else {
        r.problem_at(
            problems_key,
            "must be an object keyed by day, \"0\" (Sunday) to \"6\" (Saturday)",
        );
        return Err(Broken);
    };
    let mut hours = BTreeMap::new();
    let mut broken = false;
    for (day, intervals) in days {
        let path = format!(
            "{problems_key}/{}",
            day.replace('~', "~0").replace('/', "~1")
        );
        if !matches!(day.as_str(), "0" | "1" | "2" | "3" | "4" | "5" | "6") {
            r.problem_at(
                &path,
                "is not a day: use \"0\" (Sunday) to \"6\" (Saturday)",
            );
            broken = true;
            continue;
        }
        let Value::Array(items) = intervals else {
            r.problem_at(&path, "must be an array of {from, to}");
            broken = true;
            continue;
        };
        let mut parsed = Vec::new();
        let mut written = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let item_path = format!("{path}/{index}");
            let (Some(from), Some(to)) = (item.get("from"), item.get("to")) else {
                r.problem_at(&item_path, "must be an object with from and to");
                broken = true;
                continue;
            };
            let from_min = from.as_str().and_then(|s| schedule::parse_minute(s, false));
            let to_min = to.as_str().and_then(|s| schedule::parse_minute(s, true));
            if from_min.is_none() {
                r.problem_at(
                    &format!("{item_path}/from"),
                    "must be a time HH:MM (00:00 to 23:59)",
                );
            }
            if to_min.is_none() {
                r.problem_at(
                    &format!("{item_path}/to"),
                    "must be a time HH:MM (00:01 to 24:00)",
                );
            }
            match (from_min, to_min) {
                (Some(f), Some(t)) => {
                    parsed.push(Interval { from: f, to: t });
                    written.push(HoursInterval {
                        from: schedule::format_minute(f),
                        to: schedule::format_minute(t),
                    });
                }
                _ => broken = true,
            }
        }
        if parsed.len() == items.len() {
            for (index, message) in schedule::check_day(&parsed) {
                r.problem_at(&format!("{path}/{index}"), message);
                broken = true;
            }
        }
        written.sort_by(|a, b| a.from.cmp(&b.from));
        hours.insert(day.clone(), written);
    }
    for day in 0..7 {
        hours.entry(day.to_string()).or_default();
    }
    if broken { Err(Broken) } else { Ok(Some(hours)) }
}

/// The body of `POST /v2/admin/business-hours/`.
#[derive(Clone, Debug)]
pub struct CreateBusinessHour {
    /// The owning tenant; tenant-scoped callers may omit it.
    pub tenant_id: Option<TenantId>,
    /// The branch; branch admins get their own.
    pub branch_id: Option<BranchId>,
    /// Its name.
    pub name: String,
    /// IANA time zone.
    pub timezone: String,
    /// Weekly hours, every day present.
    pub hours: BTreeMap<String, Vec<HoursInterval>>,
    /// Inside-hours destinations.
    pub match_destinations: Vec<DestinationInput>,
    /// Outside-hours destinations.
    pub not_match_destinations: Vec<DestinationInput>,
    /// Holidays.
    pub holidays: Vec<HolidayInput>,
}

/// The body of `PATCH /v2/admin/business-hours/{id}`: a sent list replaces the current one.
#[derive(Clone, Debug, Default)]
pub struct UpdateBusinessHour {
    /// New branch.
    pub branch_id: Option<BranchId>,
    /// New name.
    pub name: Option<String>,
    /// New time zone.
    pub timezone: Option<String>,
    /// New weekly hours (replaces every day).
    pub hours: Option<BTreeMap<String, Vec<HoursInterval>>>,
    /// New inside-hours destinations.
    pub match_destinations: Option<Vec<DestinationInput>>,
    /// New outside-hours destinations.
    pub not_match_destinations: Option<Vec<DestinationInput>>,
    /// New holidays (replaces every holiday).
    pub holidays: Option<Vec<HolidayInput>>,
}

/// The business-hours body, for the API document.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct BusinessHourBody {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[schema(nullable = false, minimum = 1)]
    pub tenant_id: Option<i64>,
    /// The branch, of the same tenant (required on create, except for branch admins).
    #[schema(nullable = false, minimum = 1)]
    pub branch_id: Option<i64>,
    /// Its name (required on create).
    #[schema(nullable = false, min_length = 1, max_length = 255)]
    pub name: Option<String>,
    /// IANA time zone such as `America/New_York` (required on create).
    #[schema(nullable = false, min_length = 1, max_length = 64)]
    pub timezone: Option<String>,
    /// Weekly hours keyed `"0"` (Sunday) to `"6"` (Saturday); days left out are closed
    /// (required on create).
    #[schema(nullable = false)]
    pub hours: Option<BTreeMap<String, Vec<HoursInterval>>>,
    /// Inside-hours destinations.
    #[schema(nullable = false)]
    pub match_destinations: Option<Vec<DestinationBody>>,
    /// Outside-hours destinations.
    #[schema(nullable = false)]
    pub not_match_destinations: Option<Vec<DestinationBody>>,
    /// Holidays (replace the current ones when sent).
    #[schema(nullable = false)]
    pub holidays: Option<Vec<HolidayBody>>,
}

fn read_holidays(r: &mut ObjectReader<'_>) -> Result<Option<Vec<HolidayInput>>, Broken> {
    r.objects("holidays", |item| read_holiday(item, false)?.into_input())
}

fn read_business_hour(body: &Value, create: bool) -> Result<UpdateBusinessHour, Problems> {
    let mut problems = Problems::new();
    let hours_value = body.get("hours").cloned();
    let parsed = ObjectReader::body(body, &mut problems).map(|mut r| {
        let tenant = r.optional("tenantId", &ID);
        let branch = r.optional("branchId", &ID);
        let name = r.required_if(create, "name", &NAME);
        let timezone = r.required_if(create, "timezone", &TimeZone);
        let hours = if create && hours_value.is_none() {
            r.problem("hours", "is required");
            Err(Broken)
        } else if r.is_null("hours") {
            r.problem("hours", "must not be null");
            Err(Broken)
        } else {
            read_hours(&mut r, "hours", hours_value.as_ref())
        };
        let matching = read_list(&mut r, "matchDestinations", ANY_DESTINATION);
        let not_matching = read_list(&mut r, "notMatchDestinations", ANY_DESTINATION);
        let holidays = read_holidays(&mut r);
        (
            tenant,
            branch,
            name,
            timezone,
            hours,
            matching,
            not_matching,
            holidays,
        )
    });
    problems.finish(|| {
        let (tenant, branch, name, timezone, hours, matching, not_matching, holidays) = parsed?;
        let _ = tenant.ok()?;
        Some(UpdateBusinessHour {
            branch_id: branch.ok()?.map(BranchId),
            name: name.ok()?,
            timezone: timezone.ok()?,
            hours: hours.ok()?,
            match_destinations: matching.ok()?,
            not_match_destinations: not_matching.ok()?,
            holidays: holidays.ok()?,
        })
    })
}

impl FromBody for CreateBusinessHour {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let parsed = read_business_hour(body, true)?;
        // Read again through the id rule, so `2.0` means tenant 2 here as it did there.
        let tenant_id = body
            .get("tenantId")
            .and_then(|v| ID.check(Raw::Json(v)).ok())
            .map(TenantId);
        Ok(CreateBusinessHour {
            tenant_id,
            branch_id: parsed.branch_id,
            name: parsed.name.unwrap_or_default(),
            timezone: parsed.timezone.unwrap_or_default(),
            hours: parsed.hours.unwrap_or_default(),
            match_destinations: parsed.match_destinations.unwrap_or_default(),
            not_match_destinations: parsed.not_match_destinations.unwrap_or_default(),
            holidays: parsed.holidays.unwrap_or_default(),
        })
    }
}

impl FromBody for UpdateBusinessHour {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        if body.get("tenantId").is_some() {
            problems.add(crate::Location::Body, "tenantId", "cannot be changed");
            return Err(problems);
        }
        read_business_hour(body, false)
    }
}

documented_as!(BusinessHourBody => CreateBusinessHour, UpdateBusinessHour);

/// The open-now answer of `GET /v2/admin/business-hours/{id}/status`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BusinessHourStatus {
    /// Whether the business is open at `at`.
    pub open: bool,
    /// `inside-hours`, `outside-hours` or `holiday`.
    pub reason: String,
    /// The holiday that closes it, when `reason` is `holiday`.
    pub holiday: Option<HolidayRef>,
    /// The destination list that applies: `matchDestinations` when open, else
    /// `notMatchDestinations`.
    pub destinations: Vec<Destination>,
    /// Which list `destinations` is: `match` or `notMatch`.
    pub destination_list: String,
    /// The instant asked about (RFC 3339, UTC).
    pub at: String,
    /// `at` in the record's time zone (RFC 3339 with offset).
    pub local_time: String,
    /// When the answer next changes (RFC 3339, UTC); null if not within 400 days.
    pub next_change_at: Option<String>,
}

/// A holiday named in a status answer.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HolidayRef {
    /// The holiday's id.
    pub id: HolidayId,
    /// Its name.
    pub name: String,
}

/// The query of the status endpoint: `at`, an RFC 3339 instant (default now).
#[derive(Clone, Debug)]
pub struct StatusQuery {
    /// The instant to answer for.
    pub at: Option<chrono::DateTime<chrono::Utc>>,
}

impl FromQuery for StatusQuery {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let at = match params.get("at") {
            None => None,
            Some(text) => match chrono::DateTime::parse_from_rfc3339(text) {
                Ok(at) => Some(at.with_timezone(&chrono::Utc)),
                Err(_) => {
                    problems.add(
                        crate::Location::Query,
                        "at",
                        "must be an RFC 3339 date-time such as 2026-03-08T07:30:00Z",
                    );
                    None
                }
            },
        };
        problems.finish(|| Some(StatusQuery { at }))
    }
}

/// Filters of the business-hours list.
#[derive(Clone, Debug, Default)]
pub struct BusinessHourFilter {
    /// Only the records of this tenant.
    pub tenant_id: Option<TenantId>,
    /// Only the records of this branch.
    pub branch_id: Option<BranchId>,
}

impl FromQuery for BusinessHourFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mut q = QueryReader::new(params, &mut problems);
        let tenant_id = q.optional("tenantId", &ID).map(TenantId);
        let branch_id = q.optional("branchId", &ID).map(BranchId);
        problems.finish(|| {
            Some(BusinessHourFilter {
                tenant_id,
                branch_id,
            })
        })
    }
}

/// Sorting and search of the business-hours list.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "h.id",
        },
        SortField {
            name: "name",
            column: "h.name",
        },
        SortField {
            name: "timezone",
            column: "h.timezone",
        },
        SortField {
            name: "tenantId",
            column: "h.tenant_id",
        },
    ],
    search_columns: &["h.name"],
    search_index: None,
};

impl crate::list::ListFilter for BusinessHourFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[
        FilterDoc {
            name: "tenantId",
            description: "Only the records of this tenant.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "branchId",
            description: "Only the records of this branch.",
            kind: FilterKind::Id,
        },
    ];
}
