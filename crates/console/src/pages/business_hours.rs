//! Business hours: listed with the API's paging, each with the API's "open now?" answer;
//! one record's weekly grid, edited as one text field per day and saved with `PATCH`
//! (destinations left as they are); its holidays listed, added and removed. Every rule
//! about what an interval may be is the API's: the page only splits what was typed into
//! `{from, to}` pairs and shows the API's errors next to the day they name.

use askama::Template;
use axum::Form;
use axum::extract::{Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use serde_json::{Map, Value, json};

use super::check_post;
use super::{
    Chrome, Fields, Listing, Paging, Problems, field, html, html_as, record_id, records,
    tenant_pair,
};
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The days as the API keys them, `"0"` (Sunday) to `"6"` (Saturday).
const DAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// The record's own fields of the form, by their API names (the days are `day0`…`day6`).
const FIELDS: [&str; 2] = ["name", "timezone"];

/// The fields of the holiday form, by their API names.
const HOLIDAY_FIELDS: [&str; 2] = ["name", "date"];

/// A business-hours record as the list shows it.
struct Row {
    id: i64,
    name: String,
    timezone: String,
    branch: String,
    open_now: OpenNow,
}

/// The API's "open now?" answer, in words.
struct OpenNow {
    open: bool,
    words: String,
}

impl OpenNow {
    /// The words of a `/status` answer: open or closed, and why.
    fn of(status: &Value) -> OpenNow {
        let open = status["open"].as_bool().unwrap_or(false);
        let why = match status["reason"].as_str().unwrap_or_default() {
            "inside-hours" => "inside hours".to_owned(),
            "holiday" => match status["holiday"]["name"].as_str() {
                Some(name) => format!("holiday ({name})"),
                None => "holiday".to_owned(),
            },
            _ => "outside hours".to_owned(),
        };
        let state = if open { "Open" } else { "Closed" };
        OpenNow {
            open,
            words: format!("{state}: {why}"),
        }
    }
}

#[derive(Template)]
#[template(path = "business_hours.html")]
struct ListPage {
    chrome: Chrome,
    rows: Vec<Row>,
    paging: Paging,
}

/// One day of the record: its saved intervals for the grid, and its form field.
struct Day {
    /// The form field's name, `day0`…`day6`.
    key: String,
    name: &'static str,
    /// The saved intervals, `09:00–17:00`.
    saved: Vec<String>,
    /// What the field holds: the saved intervals, or what was typed.
    typed: String,
    /// What the API said is wrong with the typed intervals.
    error: Option<String>,
}

/// A holiday as the page lists it.
struct HolidayRow {
    id: i64,
    name: String,
    when: String,
}

#[derive(Template)]
#[template(path = "business_hour.html")]
struct DetailPage {
    chrome: Chrome,
    id: i64,
    branch: String,
    open_now: Option<OpenNow>,
    name: String,
    timezone: String,
    days: Vec<Day>,
    problems: Problems,
    holidays: Vec<HolidayRow>,
    holiday_name: String,
    holiday_date: String,
    holiday_problems: Problems,
    note: Option<&'static str>,
}

/// `GET /console/business-hours`.
pub(crate) async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing = Listing::new("/console/business-hours", params);
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "name".to_owned()));
    let answer = visit
        .get(&listing.api("/v2/admin/business-hours/", order))
        .await?;
    let mut rows = Vec::new();
    for record in records(&answer) {
        let id = record["id"].as_i64().unwrap_or(0);
        let status = visit
            .get(&format!("/v2/admin/business-hours/{id}/status"))
            .await?;
        rows.push(Row {
            id,
            name: text(&record["name"]),
            timezone: text(&record["timezone"]),
            branch: text(&record["branch"]["name"]),
            open_now: OpenNow::of(&status),
        });
    }
    let paging = listing.paging(&answer);
    html(&ListPage {
        chrome: visit.chrome("hours"),
        rows,
        paging,
    })
}

/// A JSON string, or empty.
fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// `GET /console/business-hours/{id}`.
pub(crate) async fn show(
    mut visit: Visit,
    Path(id): Path<String>,
    Query(params): Query<Fields>,
) -> Response {
    let page = async {
        let id = record_id(&id)?;
        visit.acting().await?;
        let note = match field(&params, "done") {
            "saved" => Some("The business hours are saved."),
            "holiday-added" => Some("The holiday is added."),
            "holiday-removed" => Some("The holiday is removed."),
            _ => None,
        };
        let mut page = detail(&mut visit, id).await?;
        page.note = note;
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// The page of record `id` as saved, its form holding the saved values.
async fn detail(visit: &mut Visit, id: i64) -> Result<DetailPage, PageError> {
    let record = visit.get(&format!("/v2/admin/business-hours/{id}")).await?;
    let status = visit
        .get(&format!("/v2/admin/business-hours/{id}/status"))
        .await?;
    let days = DAY_NAMES
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let intervals = record["hours"][index.to_string()]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let pair = |i: &Value| (text(&i["from"]), text(&i["to"]));
            Day {
                key: format!("day{index}"),
                name,
                saved: intervals
                    .iter()
                    .map(pair)
                    .map(|(from, to)| format!("{from}–{to}"))
                    .collect(),
                typed: intervals
                    .iter()
                    .map(pair)
                    .map(|(from, to)| format!("{from}-{to}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                error: None,
            }
        })
        .collect();
    let holidays = record["holidays"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|h| HolidayRow {
            id: h["id"].as_i64().unwrap_or(0),
            name: text(&h["name"]),
            when: match (h["date"].as_str(), h["from"].as_str(), h["to"].as_str()) {
                (Some(date), _, _) => date.to_owned(),
                (None, Some(from), Some(to)) => format!("{from} to {to}"),
                _ => String::new(),
            },
        })
        .collect();
    Ok(DetailPage {
        chrome: visit.chrome("hours"),
        id,
        branch: text(&record["branch"]["name"]),
        open_now: Some(OpenNow::of(&status)),
        name: text(&record["name"]),
        timezone: text(&record["timezone"]),
        days,
        problems: Problems::default(),
        holidays,
        holiday_name: String::new(),
        holiday_date: String::new(),
        holiday_problems: Problems::default(),
        note: None,
    })
}

/// A day's field as the API's intervals: `09:00-12:00, 13:00-17:00` (a hyphen or an en
/// dash between the times; empty is closed). A piece that is no pair is sent as it is, so
/// the API names what is wrong with it.
fn intervals_of(typed: &str) -> Vec<Value> {
    typed
        .split(',')
        .map(str::trim)
        .filter(|piece| !piece.is_empty())
        .map(|piece| {
            let (from, to) = piece
                .split_once('-')
                .or_else(|| piece.split_once('–'))
                .unwrap_or((piece, ""));
            json!({"from": from.trim(), "to": to.trim()})
        })
        .collect()
}

/// The `PATCH` body of the form: name, time zone and every day's intervals.
fn body_of(fields: &Fields) -> Value {
    let hours: Map<String, Value> = (0..DAY_NAMES.len())
        .map(|day| {
            let typed = field(fields, &format!("day{day}"));
            (day.to_string(), Value::Array(intervals_of(typed)))
        })
        .collect();
    json!({
        "name": field(fields, "name").trim(),
        "timezone": field(fields, "timezone").trim(),
        "hours": hours,
    })
}

/// `'body/hours/2/0/from' must be …` → (2, `interval 1, from: must be …`): an error about
/// the hours goes to the field of its day.
fn day_error(error: &str) -> Option<(usize, String)> {
    let (day, path, message) = super::item_error(error, "hours")?;
    let mut segments = path.split('/').filter(|segment| !segment.is_empty());
    if day >= DAY_NAMES.len() {
        return None;
    }
    let message = match (segments.next(), segments.next()) {
        (Some(index), part) => {
            let number = index.parse::<usize>().map_or(0, |i| i + 1);
            match part {
                Some(part) => format!("interval {number}, {part}: {message}"),
                None => format!("interval {number}: {message}"),
            }
        }
        (None, _) => message.to_owned(),
    };
    Some((day, message))
}

/// `POST /console/business-hours/{id}`: saves the name, time zone and weekly hours.
pub(crate) async fn update(
    mut visit: Visit,
    Path(id): Path<String>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = save(&mut visit, &id, &fields).await;
    visit.finish(page)
}

async fn save(visit: &mut Visit, id: &str, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    let id = record_id(id)?;
    visit.acting().await?;
    let answer = visit
        .call(
            Method::PATCH,
            &format!("/v2/admin/business-hours/{id}"),
            Some(body_of(fields)),
        )
        .await?;
    if answer.status.is_success() {
        return Ok(
            Redirect::to(&format!("/console/business-hours/{id}?done=saved")).into_response(),
        );
    }
    if !answer.status.is_client_error() || answer.status == StatusCode::NOT_FOUND {
        return Err(refusal(&answer));
    }
    let mut problems = Problems::of_refusal(&answer.json(), &FIELDS);
    let mut day_errors: Vec<Vec<String>> = vec![Vec::new(); DAY_NAMES.len()];
    problems.general.retain(|error| match day_error(error) {
        Some((day, message)) => {
            day_errors[day].push(message);
            false
        }
        None => true,
    });
    let mut page = detail(visit, id).await?;
    page.name = field(fields, "name").to_owned();
    page.timezone = field(fields, "timezone").to_owned();
    for (day, errors) in page.days.iter_mut().zip(day_errors) {
        day.typed = field(fields, &day.key).to_owned();
        day.error = (!errors.is_empty()).then(|| errors.join("; "));
    }
    page.problems = problems;
    html_as(&page, answer.status)
}

/// `POST /console/business-hours/{id}/holidays`: adds a whole-day holiday.
pub(crate) async fn add_holiday(
    mut visit: Visit,
    Path(id): Path<String>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        visit.acting().await?;
        let answer = visit
            .call(
                Method::POST,
                &format!("/v2/admin/business-hours/{id}/holidays"),
                Some(json!({
                    "name": field(&fields, "name").trim(),
                    "date": field(&fields, "date").trim(),
                })),
            )
            .await?;
        if answer.status.is_success() {
            return Ok(
                Redirect::to(&format!("/console/business-hours/{id}?done=holiday-added"))
                    .into_response(),
            );
        }
        if !answer.status.is_client_error() || answer.status == StatusCode::NOT_FOUND {
            return Err(refusal(&answer));
        }
        let mut page = detail(&mut visit, id).await?;
        page.holiday_name = field(&fields, "name").to_owned();
        page.holiday_date = field(&fields, "date").to_owned();
        page.holiday_problems = Problems::of_refusal(&answer.json(), &HOLIDAY_FIELDS);
        html_as(&page, answer.status)
    }
    .await;
    visit.finish(page)
}

/// `POST /console/business-hours/{id}/holidays/{holiday}/delete`: removes a holiday.
pub(crate) async fn remove_holiday(
    mut visit: Visit,
    Path((id, holiday)): Path<(String, String)>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        let holiday = record_id(&holiday)?;
        visit.acting().await?;
        let answer = visit
            .call(
                Method::DELETE,
                &format!("/v2/admin/business-hours/{id}/holidays/{holiday}"),
                None,
            )
            .await?;
        if !answer.status.is_success() {
            return Err(refusal(&answer));
        }
        Ok(Redirect::to(&format!(
            "/console/business-hours/{id}?done=holiday-removed"
        ))
        .into_response())
    }
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_day_becomes_the_apis_intervals() {
        assert_eq!(
            intervals_of(" 09:00-12:00, 13:00 – 17:00 ,"),
            vec![
                json!({"from": "09:00", "to": "12:00"}),
                json!({"from": "13:00", "to": "17:00"}),
            ]
        );
        assert!(intervals_of("  ").is_empty());
        assert_eq!(
            intervals_of("nine"),
            vec![json!({"from": "nine", "to": ""})]
        );
    }

    #[test]
    fn an_hours_error_goes_to_its_day() {
        assert_eq!(
            day_error("'body/hours/2/0/from' must be a time"),
            Some((2, "interval 1, from: must be a time".to_owned()))
        );
        assert_eq!(
            day_error("'body/hours/5/1' overlaps"),
            Some((5, "interval 2: overlaps".to_owned()))
        );
        assert_eq!(day_error("'body/hours/9' is not a day"), None);
        assert_eq!(day_error("'body/name' is empty"), None);
    }
}
