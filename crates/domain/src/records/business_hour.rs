//! Business hours: a branch's weekly opening hours in its IANA time zone, the destinations
//! for calls inside and outside them, and the holidays that close it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use utoipa::openapi::schema::{ArrayBuilder, Object, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use super::NAME;
use super::destination::{ANY_DESTINATION, Destination, DestinationInput};
use crate::declare::{Body, Filter, ID_OR_NONE, Listed, OptionalRef};
use crate::ids::{BranchId, BusinessHourId, HolidayId, MediaFileId, TenantId};
use crate::list::BranchedFilter;
use crate::schedule::{self, Closure, Interval, LocalBound, WeeklyHours};
use crate::validation::{
    At, DATE_PATTERN, Date, Field, ID, Instant, ListOf, Nested, ObjectReader, Raw, Rule, TimeZone,
    as_str, list_of, nested,
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
    pub id: BranchId,
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
    pub media_file_id: OptionalRef<MediaFileId>,
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
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, timezone, tenant_id), filter = BranchedFilter, table = "h", search("name"))]
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
    // Kept as the JSON text the store holds, which is the answer's form (the body's
    // `#[field(column, json)]` writes what `Hours` read): answered as it is, not parsed
    // and written out again on every read (issue 32); `BusinessHour::hours` and `weekly`
    // read it.
    #[schema(value_type = BTreeMap<String, Vec<HoursInterval>>)]
    pub hours: Box<RawValue>,
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
    /// The weekly hours as written (`"0"`–`"6"` to `{from, to}` lists); none when the
    /// stored text does not read as such.
    pub fn hours(&self) -> BTreeMap<String, Vec<HoursInterval>> {
        serde_json::from_str(self.hours.get()).unwrap_or_default()
    }

    /// The weekly hours as minutes, for the schedule computation.
    pub fn weekly(&self) -> WeeklyHours {
        weekly_hours(&self.hours())
    }
}

/// The stored weekly hours `text` as a record answers them: the text itself when it is
/// JSON, else no hours (`{}`), as a record whose stored hours do not read has none.
pub fn stored_hours(text: String) -> Box<RawValue> {
    RawValue::from_string(text)
        .unwrap_or_else(|_| RawValue::from_string("{}".to_owned()).expect("{} is JSON"))
}

/// Weekly hours as written (`"0"`–`"6"` to `{from, to}` lists) as minutes, for the
/// schedule computation.
pub fn weekly_hours(hours: &BTreeMap<String, Vec<HoursInterval>>) -> WeeklyHours {
    let mut weekly = WeeklyHours::default();
    for (day, intervals) in hours {
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

/// A local date or date-time as written in a holiday's `from`/`to`.
#[derive(Clone, Copy, Debug)]
pub struct LocalText;

impl Rule for LocalText {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let text = as_str(raw)?;
        schedule::parse_local_bound(text)
            .map(|_| text.to_owned())
            .ok_or_else(|| {
                "must be a date (YYYY-MM-DD) or a local date-time (YYYY-MM-DDTHH:MM)".into()
            })
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(format!(
                "^{DATE_PATTERN}(T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?)?$"
            )))
            .into()
    }
    fn example(&self) -> Value {
        json!("2026-12-24T13:00")
    }
}

/// A holiday as sent: a whole day, with no media file.
fn holiday_example() -> Value {
    json!({"name": "Christmas Day", "date": "2026-12-25", "mediaFileId": 0})
}

/// A holiday as created (`POST …/holidays`, and each of a business hour's `holidays`):
/// a whole local day (`date`) or a local range (`from` and `to`).
#[derive(Clone, Debug, PartialEq, Eq, Body)]
#[body(check = CreateHoliday::check, schema = CreateHoliday::schema_rules, example = holiday_example)]
pub struct CreateHoliday {
    /// Its name.
    #[field(rule = NAME)]
    pub name: String,
    /// A whole local day, `YYYY-MM-DD`; or give `from` and `to` (null: not given, as
    /// answers show the form not used).
    #[field(rule = Date, nullable)]
    pub date: Option<String>,
    /// Start of a local range: a date (inclusive) or a date-time `YYYY-MM-DDTHH:MM`.
    #[field(rule = LocalText, nullable)]
    pub from: Option<String>,
    /// End of a local range: a date (inclusive) or a date-time (exclusive), after `from`.
    #[field(rule = LocalText, nullable)]
    pub to: Option<String>,
    /// A media file of the same tenant played during the holiday; 0 (default) for none.
    #[field(rule = ID_OR_NONE, default = OptionalRef(None))]
    pub media_file_id: OptionalRef<MediaFileId>,
}

impl CreateHoliday {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        check_when(
            self.date.as_deref(),
            self.from.as_deref(),
            self.to.as_deref(),
            false,
            r,
        )
    }

    fn schema_rules(object: &mut Object) {
        when_rules(object);
        crate::declare::rule(object, json!({"anyOf": [sent(&["date"]), sent(&["from"])]}));
    }
}

/// The body of `PATCH /v2/admin/business-hours/{id}/holidays/{holidayId}`: sending `date`,
/// or `from` and `to`, replaces when it is.
#[derive(Clone, Debug, Default, Body)]
#[body(check = UpdateHoliday::check, schema = when_rules, example = holiday_example)]
pub struct UpdateHoliday {
    /// Its name.
    #[field(rule = NAME)]
    pub name: Option<String>,
    /// A whole local day, `YYYY-MM-DD` (null: not given, as answers show the form not
    /// used).
    #[field(rule = Date, nullable)]
    pub date: Option<String>,
    /// Start of a local range.
    #[field(rule = LocalText, nullable)]
    pub from: Option<String>,
    /// End of a local range, after `from`.
    #[field(rule = LocalText, nullable)]
    pub to: Option<String>,
    /// A media file of the same tenant; 0 for none.
    #[field(rule = ID_OR_NONE)]
    pub media_file_id: Option<OptionalRef<MediaFileId>>,
}

impl UpdateHoliday {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        check_when(
            self.date.as_deref(),
            self.from.as_deref(),
            self.to.as_deref(),
            true,
            r,
        )
    }

    /// The change as the store applies it.
    pub fn into_patch(self) -> HolidayPatch {
        let when = match (self.date, self.from, self.to) {
            (Some(date), _, _) => Some(When::Day(date)),
            (None, Some(from), Some(to)) => Some(When::Range(from, to)),
            _ => None,
        };
        HolidayPatch {
            name: self.name,
            when,
            media_file_id: self.media_file_id,
        }
    }
}

/// A schema matching an object that gives `keys`: present and not null (a null one is
/// the form an answer does not use, and counts as not given).
fn sent(keys: &[&str]) -> serde_json::Value {
    let strings: serde_json::Map<String, serde_json::Value> = keys
        .iter()
        .map(|k| ((*k).to_owned(), json!({"type": "string"})))
        .collect();
    json!({"required": keys, "properties": strings})
}

/// What a schema states of when a holiday is: `date` or `from` with `to`, not both.
fn when_rules(object: &mut Object) {
    crate::declare::rule(object, json!({"not": sent(&["date", "from"])}));
    crate::declare::rule(object, json!({"not": sent(&["date", "to"])}));
    crate::declare::rule(
        object,
        json!({"if": sent(&["from"]), "then": sent(&["to"])}),
    );
    crate::declare::rule(
        object,
        json!({"if": sent(&["to"]), "then": sent(&["from"])}),
    );
}

/// Checks when a holiday is: a date, or a range whose end is after its start; on a patch
/// (`partial`) neither may be sent.
fn check_when(
    date: Option<&str>,
    from: Option<&str>,
    to: Option<&str>,
    partial: bool,
    r: &mut ObjectReader<'_>,
) -> bool {
    match (date, from, to) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            r.problem("date", "must not be sent together with from/to");
            false
        }
        (Some(_), None, None) => true,
        (None, Some(from), Some(to)) => {
            let valid = schedule::parse_local_bound(from)
                .zip(schedule::parse_local_bound(to))
                .and_then(|(from, to)| schedule::closure_for_range("", from, to))
                .is_some();
            if !valid {
                r.problem("to", "must be after from");
            }
            valid
        }
        (None, Some(_), None) => {
            r.problem("to", "is required with from");
            false
        }
        (None, None, Some(_)) => {
            r.problem("from", "is required with to");
            false
        }
        (None, None, None) if partial => true,
        (None, None, None) => {
            r.problem("date", "is required (or from and to)");
            false
        }
    }
}

/// When a holiday is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum When {
    /// A whole local day.
    Day(String),
    /// A local range.
    Range(String, String),
}

/// A holiday's changes as the store applies them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HolidayPatch {
    /// New name.
    pub name: Option<String>,
    /// New day or range.
    pub when: Option<When>,
    /// New media file (or none).
    pub media_file_id: Option<OptionalRef<MediaFileId>>,
}

/// Weekly opening hours: an object keyed `"0"` (Sunday) to `"6"` (Saturday), each a list of
/// `{from, to}` intervals that do not overlap; days left out are closed.
#[derive(Clone, Copy, Debug)]
pub struct Hours;

impl Field for Hours {
    type Output = BTreeMap<String, Vec<HoursInterval>>;

    fn read(&self, value: &Value, at: &mut At<'_>) -> Option<Self::Output> {
        let Value::Object(days) = value else {
            at.problem("must be an object keyed by day, \"0\" (Sunday) to \"6\" (Saturday)");
            return None;
        };
        let mut hours = BTreeMap::new();
        let mut broken = false;
        for (day, intervals) in days {
            let mut day_at = at.child(day);
            if !matches!(day.as_str(), "0" | "1" | "2" | "3" | "4" | "5" | "6") {
                day_at.problem("is not a day: use \"0\" (Sunday) to \"6\" (Saturday)");
                broken = true;
                continue;
            }
            let Value::Array(items) = intervals else {
                day_at.problem("must be an array of {from, to}");
                broken = true;
                continue;
            };
            if items.len() > MAX_INTERVALS_PER_DAY {
                day_at.problem(format!(
                    "must hold at most {MAX_INTERVALS_PER_DAY} intervals"
                ));
                broken = true;
                continue;
            }
            let mut parsed = Vec::new();
            let mut written = Vec::new();
            for (index, item) in items.iter().enumerate() {
                let mut item_at = day_at.child(&index.to_string());
                let (Some(from), Some(to)) = (item.get("from"), item.get("to")) else {
                    item_at.problem("must be an object with from and to");
                    broken = true;
                    continue;
                };
                let from_min = from.as_str().and_then(|s| schedule::parse_minute(s, false));
                let to_min = to.as_str().and_then(|s| schedule::parse_minute(s, true));
                if from_min.is_none() {
                    item_at
                        .child("from")
                        .problem("must be a time HH:MM (00:00 to 23:59)");
                }
                if to_min.is_none() {
                    item_at
                        .child("to")
                        .problem("must be a time HH:MM (00:01 to 24:00)");
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
                    day_at.child(&index.to_string()).problem(message);
                    broken = true;
                }
            }
            written.sort_by(|a, b| a.from.cmp(&b.from));
            hours.insert(day.clone(), written);
        }
        for day in 0..7 {
            hours.entry(day.to_string()).or_default();
        }
        (!broken).then_some(hours)
    }

    fn field_schema(&self) -> RefOr<Schema> {
        let days = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(["0", "1", "2", "3", "4", "5", "6"]));
        let intervals = ArrayBuilder::new()
            .items(RefOr::Ref(Ref::from_schema_name("HoursInterval")))
            .max_items(Some(MAX_INTERVALS_PER_DAY));
        RefOr::T(
            ObjectBuilder::new()
                .schema_type(Type::Object)
                .property_names(Some(days))
                .additional_properties(Some(intervals))
                .into(),
        )
    }

    fn field_example(&self) -> Value {
        json!({"1": [{"from": "09:00", "to": "17:00"}], "6": []})
    }

    fn components(&self, out: &mut Vec<(String, RefOr<Schema>)>) {
        if out.iter().all(|(name, _)| name != "HoursInterval") {
            out.push((
                "HoursInterval".into(),
                <HoursInterval as PartialSchema>::schema(),
            ));
        }
    }
}

/// Most holidays one business-hours record may hold (a year of closed days), so one
/// status evaluation has bounded work.
pub const MAX_HOLIDAYS: usize = 366;

/// Most opening intervals one day may hold (every half hour), for the same reason.
pub const MAX_INTERVALS_PER_DAY: usize = 48;

/// The holidays of a business hour.
const HOLIDAYS: ListOf<Nested<CreateHoliday>> = list_of(nested::<CreateHoliday>(), 0, MAX_HOLIDAYS);

/// The body of `POST /v2/admin/business-hours/`.
// `UpdateBusinessHour`, the body of `PATCH`, is generated from it; a field with `column`
// is stored in that column, the weekly hours as their JSON text (docs/decisions.md,
// "Declared once").
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant, branch),
    update(
        name = UpdateBusinessHour,
        doc = "The body of `PATCH /v2/admin/business-hours/{id}`: a sent list replaces the current one.",
        fixed(tenantId = "cannot be changed"),
    )
)]
pub struct CreateBusinessHour {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// The branch, of the same tenant; on a create, required unless the caller is a branch
    /// admin, whose own branch it then is.
    #[field(rule = ID, column)]
    pub branch_id: Option<BranchId>,
    /// Its name.
    #[field(rule = NAME, column)]
    pub name: String,
    /// IANA time zone such as `America/New_York`.
    #[field(rule = TimeZone, column)]
    pub timezone: String,
    /// Weekly hours keyed `"0"` (Sunday) to `"6"` (Saturday); days left out are closed (a
    /// change replaces every day).
    #[field(rule = Hours, column, json)]
    pub hours: BTreeMap<String, Vec<HoursInterval>>,
    /// Inside-hours destinations.
    #[field(rule = ANY_DESTINATION, default = Vec::new())]
    pub match_destinations: Vec<DestinationInput>,
    /// Outside-hours destinations.
    #[field(rule = ANY_DESTINATION, default = Vec::new())]
    pub not_match_destinations: Vec<DestinationInput>,
    /// Holidays (a change replaces every holiday).
    #[field(rule = HOLIDAYS, default = Vec::new())]
    pub holidays: Vec<CreateHoliday>,
}

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
    /// When the line next opens or closes (RFC 3339, UTC): on a holiday, when it reopens,
    /// not when the holiday ends; null if not within 400 days.
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
#[derive(Clone, Debug, Default, Filter)]
pub struct StatusQuery {
    /// The instant to answer for (RFC 3339); now when left out.
    #[field(rule = Instant)]
    pub at: Option<chrono::DateTime<chrono::Utc>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_hours_answer_as_the_map_they_were_written_from() {
        let mut problems = crate::Problems::new();
        let read = Hours
            .read(
                &json!({"1": [{"from": "13:00", "to": "17:00"}, {"from": "09:00", "to": "12:00"}]}),
                &mut At::new(crate::Location::Body, String::new(), &mut problems),
            )
            .expect("valid hours");
        // As the create's `#[field(column, json)]` stores them: compact JSON, days in
        // order (what `Hours` reads has every day), intervals as written.
        let crate::declare::ColumnValue::Text(Some(text)) = crate::declare::json_column(&read)
        else {
            panic!("weekly hours are written as JSON text");
        };
        let stored = stored_hours(text);
        assert_eq!(
            stored.get(),
            serde_json::to_string(&read).expect("hours write")
        );
        let record = BusinessHour {
            id: BusinessHourId(1),
            name: "Open".into(),
            tenant_id: TenantId(1),
            timezone: "UTC".into(),
            hours: stored,
            match_destinations: Vec::new(),
            not_match_destinations: Vec::new(),
            branch: BranchRef {
                id: BranchId(1),
                name: "Main".into(),
            },
            holidays: Vec::new(),
        };
        assert_eq!(record.hours(), read);
        assert_eq!(
            serde_json::to_value(&record).expect("a record writes")["hours"],
            json!(read)
        );
        assert_eq!(stored_hours("not json".into()).get(), "{}");
    }
}
