//! Call campaigns: listed with their status and how far their numbers are (the API's
//! record counts by status), created and edited (the destination with the one picker,
//! limited to the kinds a campaign takes), started, paused and stopped with the API's own
//! status steps, deleted after a confirm step saying what goes with it; a campaign's
//! numbers paged and filtered by status, imported from a CSV
//! (every row the API did not create shown with its reason) and exported as the API's
//! CSV, streamed to the browser with the person's own token.
//!
//! Also what the outbound pages share: reading a browser's multipart form, writing the
//! API's multipart body, and an import's answer as the page shows it.

use askama::Template;
use axum::Form;
use axum::Router;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::extract::{Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use futures::future::try_join_all;
use serde_json::{Value, json};
use switchboard_domain::records::call_campaign::RecordStatus;

use super::check_post;
use super::destinations::{Picked, TargetGroup, in_words, targets};
use super::uploads::{ImportView, Upload, multipart_body, read_multipart};
use super::{
    Chrome, Fields, Listing, Paging, Problems, field, html, html_as, number_or_text, query,
    record_id, records, tenant_pair, text,
};
use crate::session::Person;
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The console's campaign routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/campaigns", get(list).post(create))
        .route("/console/campaigns/new", get(new_form))
        .route("/console/campaigns/{id}", get(show).post(update))
        .route("/console/campaigns/{id}/status", post(set_status))
        .route(
            "/console/campaigns/{id}/delete",
            get(delete_form).post(delete),
        )
        .route(
            "/console/campaigns/{id}/import",
            get(import_form).post(import),
        )
}

/// The kinds of record an answered campaign call may be connected to (the API's).
const DESTINATION_KINDS: [&str; 4] = ["EXT", "IVR", "QUEUE", "PAGING_GROUP"];

/// The statuses of a campaign's records, as the API names them, with their words.
pub(crate) const RECORD_STATUSES: [(&str, &str); RecordStatus::ALL.len()] = [
    (RecordStatus::Pending.as_str(), "waiting"),
    (RecordStatus::Dialing.as_str(), "being dialled"),
    (RecordStatus::Completed.as_str(), "completed"),
    (RecordStatus::Failed.as_str(), "failed"),
    (RecordStatus::OptedOut.as_str(), "opted out"),
    (RecordStatus::Skipped.as_str(), "skipped"),
];

/// The statuses of a campaign, for the list's filter.
const STATUSES: [&str; 6] = [
    "draft",
    "scheduled",
    "running",
    "paused",
    "completed",
    "cancelled",
];

/// The form's fields, by the names the page gives the API's errors (the calling
/// window's own fields are `window…`).
const FIELDS: [&str; 11] = [
    "name",
    "callerIdNumber",
    "destination",
    "windowDays",
    "windowFrom",
    "windowTo",
    "windowTimeZone",
    "maxAttempts",
    "retryDelayMinutes",
    "startAt",
    "status",
];

/// The days of the calling window, `0` (Sunday) to `6`.
const DAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// The rows a record page shows.
pub(crate) const PER_PAGE: i64 = 25;

/// How many of a campaign's numbers are in each status, and in all.
pub(crate) struct Progress {
    /// Numbers in all.
    pub total: i64,
    /// Numbers no longer waiting or being dialled.
    pub done: i64,
    /// Each status with its count: (API name, words, count).
    pub by_status: Vec<(&'static str, &'static str, i64)>,
}

impl Progress {
    /// The counts in words, the empty ones left out: `2 completed · 1 failed`.
    pub fn words(&self) -> String {
        let parts: Vec<String> = self
            .by_status
            .iter()
            .filter(|(_, _, n)| *n > 0)
            .map(|(_, words, n)| format!("{n} {words}"))
            .collect();
        if parts.is_empty() {
            "no numbers yet".to_owned()
        } else {
            parts.join(" · ")
        }
    }
}

/// The progress of campaign `id`: one count per record status, asked of the API at once.
async fn progress(visit: &Visit, token: &str, id: i64) -> Result<Progress, PageError> {
    let counts = RECORD_STATUSES.iter().map(|(status, words)| async move {
        let answer = visit
            .send(
                Method::GET,
                &format!("/v2/admin/call-campaigns/{id}/records?recordsPerPage=1&status={status}"),
                Some(token),
                None,
            )
            .await?;
        if !answer.status.is_success() {
            return Err(refusal(&answer));
        }
        let n = answer.json()["totalRecords"].as_i64().unwrap_or(0);
        Ok::<_, PageError>((*status, *words, n))
    });
    let by_status = try_join_all(counts).await?;
    let total = by_status.iter().map(|(_, _, n)| n).sum();
    let waiting: i64 = by_status
        .iter()
        .filter(|(status, _, _)| matches!(*status, "pending" | "dialing"))
        .map(|(_, _, n)| n)
        .sum();
    Ok(Progress {
        total,
        done: total - waiting,
        by_status,
    })
}

/// A campaign as the list shows it.
struct Row {
    id: i64,
    name: String,
    status: String,
    destination: String,
    progress: Progress,
}

#[derive(Template)]
#[template(path = "campaigns.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    status: String,
    statuses: [&'static str; 6],
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

/// `GET /console/campaigns`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing = Listing::new("/console/campaigns", params)
        .with("query", field(params, "query"))
        .with("status", field(params, "status"));
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "id".to_owned()));
    order.push(("sortDirection", "desc".to_owned()));
    let answer = visit
        .get(&listing.api("/v2/admin/call-campaigns/", order))
        .await?;
    let person = visit.signed_in().await?;
    let token = person.access_token.as_str();
    let reads = &*visit;
    let rows = try_join_all(records(&answer).iter().map(|campaign| async move {
        let id = campaign["id"].as_i64().unwrap_or(0);
        Ok::<_, PageError>(Row {
            id,
            name: text(&campaign["name"]),
            status: text(&campaign["status"]),
            destination: in_words(&campaign["destination"]),
            progress: progress(reads, token, id).await?,
        })
    }))
    .await?;
    let paging = listing.paging(&answer);
    let note = (field(params, "done") == "deleted").then_some("The campaign is deleted.");
    html(&ListPage {
        chrome: visit.chrome("campaigns"),
        search: listing.filter("query").to_owned(),
        status: listing.filter("status").to_owned(),
        statuses: STATUSES,
        rows,
        paging,
        note,
    })
}

/// A day of the calling window's checkboxes.
struct Day {
    key: String,
    name: &'static str,
    checked: bool,
}

/// What the campaign form holds: the saved campaign's values, or what was typed.
struct CampaignForm {
    name: String,
    caller_id: String,
    picked: Picked,
    days: Vec<Day>,
    from: String,
    to: String,
    time_zone: String,
    max_attempts: String,
    retry_delay: String,
    start_at: String,
    status: String,
}

impl CampaignForm {
    /// An empty form: every day, nine to five in UTC, the API's defaults.
    fn blank() -> CampaignForm {
        CampaignForm {
            name: String::new(),
            caller_id: String::new(),
            picked: Picked::default(),
            days: days_of(|day| (1..=5).contains(&day)),
            from: "09:00".to_owned(),
            to: "17:00".to_owned(),
            time_zone: "UTC".to_owned(),
            max_attempts: "3".to_owned(),
            retry_delay: "60".to_owned(),
            start_at: String::new(),
            status: "draft".to_owned(),
        }
    }

    /// The form of a campaign as the API answers it.
    fn of_answer(campaign: &Value) -> CampaignForm {
        let window = &campaign["callingWindow"];
        let days: Vec<i64> = window["days"]
            .as_array()
            .map(|days| days.iter().filter_map(Value::as_i64).collect())
            .unwrap_or_default();
        CampaignForm {
            name: text(&campaign["name"]),
            caller_id: text(&campaign["callerIdNumber"]),
            picked: Picked::of_answer(&campaign["destination"]),
            days: days_of(|day| days.contains(&day)),
            from: text(&window["from"]),
            to: text(&window["to"]),
            time_zone: text(&window["timeZone"]),
            max_attempts: campaign["maxAttempts"].to_string(),
            retry_delay: campaign["retryDelayMinutes"].to_string(),
            // `2026-12-01T09:00:00Z` as a `datetime-local` field shows it.
            start_at: campaign["startAt"]
                .as_str()
                .map(|at| at.chars().take(16).collect())
                .unwrap_or_default(),
            status: text(&campaign["status"]),
        }
    }

    /// What the person typed.
    fn of_form(fields: &Fields) -> CampaignForm {
        CampaignForm {
            name: field(fields, "name").to_owned(),
            caller_id: field(fields, "callerIdNumber").to_owned(),
            picked: Picked::of_form(fields, "destination"),
            days: days_of(|day| !field(fields, &format!("day{day}")).is_empty()),
            from: field(fields, "windowFrom").to_owned(),
            to: field(fields, "windowTo").to_owned(),
            time_zone: field(fields, "windowTimeZone").to_owned(),
            max_attempts: field(fields, "maxAttempts").to_owned(),
            retry_delay: field(fields, "retryDelayMinutes").to_owned(),
            start_at: field(fields, "startAt").to_owned(),
            status: field(fields, "status").to_owned(),
        }
    }
}

/// The seven days, checked where `checked` says.
fn days_of(checked: impl Fn(i64) -> bool) -> Vec<Day> {
    DAY_NAMES
        .iter()
        .zip(0_i64..)
        .map(|(name, day)| Day {
            key: format!("day{day}"),
            name,
            checked: checked(day),
        })
        .collect()
}

/// A button that moves the campaign to a status.
struct Move {
    status: &'static str,
    label: &'static str,
    danger: bool,
}

/// The steps the page offers from `status` (the API's own steps: it judges them again).
fn moves(status: &str) -> Vec<Move> {
    let step = |status, label, danger| Move {
        status,
        label,
        danger,
    };
    match status {
        "draft" | "scheduled" => vec![
            step("running", "Start", false),
            step("cancelled", "Cancel the campaign", true),
        ],
        "running" => vec![
            step("paused", "Pause", false),
            step("completed", "Stop", false),
            step("cancelled", "Cancel the campaign", true),
        ],
        "paused" => vec![
            step("running", "Resume", false),
            step("completed", "Stop", false),
            step("cancelled", "Cancel the campaign", true),
        ],
        _ => Vec::new(),
    }
}

#[derive(Template)]
#[template(path = "campaign.html")]
struct CampaignPage {
    chrome: Chrome,
    /// `None` for a new campaign.
    id: Option<i64>,
    /// The saved status (of a campaign that exists).
    saved_status: String,
    progress: Option<Progress>,
    moves: Vec<Move>,
    form: CampaignForm,
    groups: Vec<TargetGroup>,
    problems: Problems,
    note: Option<&'static str>,
}

/// `GET /console/campaigns/new`.
async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        let person = visit.acting().await?;
        let groups = targets(&mut visit, &person, &DESTINATION_KINDS).await?;
        html(&CampaignPage {
            chrome: visit.chrome("campaigns"),
            id: None,
            saved_status: String::new(),
            progress: None,
            moves: Vec::new(),
            form: CampaignForm::blank(),
            groups,
            problems: Problems::default(),
            note: None,
        })
    }
    .await;
    visit.finish(page)
}

/// `GET /console/campaigns/{id}`.
async fn show(mut visit: Visit, Path(id): Path<String>, Query(params): Query<Fields>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        let person = visit.acting().await?;
        let mut page = detail(&mut visit, &person, id).await?;
        page.note = match field(&params, "done") {
            "created" => Some("The campaign is created."),
            "saved" => Some("The campaign is saved."),
            "running" => Some("The campaign is running."),
            "paused" => Some("The campaign is paused."),
            "completed" => Some("The campaign is stopped."),
            "cancelled" => Some("The campaign is cancelled."),
            _ => None,
        };
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// The page of campaign `id` as saved.
async fn detail(visit: &mut Visit, person: &Person, id: i64) -> Result<CampaignPage, PageError> {
    let campaign = visit.get(&format!("/v2/admin/call-campaigns/{id}")).await?;
    let person_now = visit.signed_in().await?;
    let progress = progress(visit, &person_now.access_token, id).await?;
    let groups = targets(visit, person, &DESTINATION_KINDS).await?;
    let status = text(&campaign["status"]);
    Ok(CampaignPage {
        chrome: visit.chrome("campaigns"),
        id: Some(id),
        moves: moves(&status),
        saved_status: status,
        progress: Some(progress),
        form: CampaignForm::of_answer(&campaign),
        groups,
        problems: Problems::default(),
        note: None,
    })
}

/// A `datetime-local` value (`2026-12-01T09:00`, read as UTC) as the API's instant; any
/// other text as typed; `None` when empty.
fn instant_of(typed: &str) -> Option<Value> {
    let typed = typed.trim();
    if typed.is_empty() {
        return None;
    }
    let instant = if chrono::NaiveDateTime::parse_from_str(typed, "%Y-%m-%dT%H:%M").is_ok() {
        format!("{typed}:00Z")
    } else {
        typed.to_owned()
    };
    Some(json!(instant))
}

/// The body the form makes, for a create (`new`) or a `PATCH`.
fn body_of(fields: &Fields, new: bool) -> Value {
    let days: Vec<i64> = (0..7)
        .filter(|day| !field(fields, &format!("day{day}")).is_empty())
        .collect();
    let destination = match Picked::of_form(fields, "destination").body() {
        Some(destination) => json!([destination]),
        None => json!([]),
    };
    let mut body = json!({
        "name": field(fields, "name").trim(),
        "callerIdNumber": field(fields, "callerIdNumber").trim(),
        "destination": destination,
        "callingWindow": {
            "days": days,
            "from": field(fields, "windowFrom").trim(),
            "to": field(fields, "windowTo").trim(),
            "timeZone": field(fields, "windowTimeZone").trim(),
        },
    });
    for name in ["maxAttempts", "retryDelayMinutes"] {
        if let Some(value) = number_or_text(field(fields, name)) {
            body[name] = value;
        }
    }
    match instant_of(field(fields, "startAt")) {
        Some(at) => body["startAt"] = at,
        // A cleared start is sent as none; a new campaign without one leaves it out.
        None if !new => body["startAt"] = Value::Null,
        None => {}
    }
    if new {
        body["status"] = json!(field(fields, "status").trim());
    }
    body
}

/// The problems of a refusal, the calling window's errors next to its own fields
/// (`'body/callingWindow/from'` → `windowFrom`, `'body/callingWindow/days/2'` →
/// `windowDays`).
fn problems_of(refusal: &Value) -> Problems {
    let mut body = refusal.clone();
    if let Some(errors) = body["validationErrors"].as_array_mut() {
        for error in errors.iter_mut() {
            let Some(message) = error.as_str() else {
                continue;
            };
            let renamed = [
                ("'body/callingWindow/days", "'body/windowDays"),
                ("'body/callingWindow/from", "'body/windowFrom"),
                ("'body/callingWindow/to", "'body/windowTo"),
                ("'body/callingWindow/timeZone", "'body/windowTimeZone"),
            ]
            .iter()
            .find_map(|(from, to)| {
                message
                    .strip_prefix(from)
                    .filter(|rest| rest.starts_with(['\'', '/']))
                    .map(|rest| format!("{to}{rest}"))
            });
            if let Some(renamed) = renamed {
                *error = json!(renamed);
            }
        }
    }
    Problems::of_refusal(&body, &FIELDS)
}

/// `POST /console/campaigns`: creates one.
async fn create(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = save(&mut visit, None, &fields).await;
    visit.finish(page)
}

/// `POST /console/campaigns/{id}`: saves one.
async fn update(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = match record_id(&id) {
        Ok(id) => save(&mut visit, Some(id), &fields).await,
        Err(error) => Err(error),
    };
    visit.finish(page)
}

async fn save(visit: &mut Visit, id: Option<i64>, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    let person = visit.acting().await?;
    let mut body = body_of(fields, id.is_none());
    let answer = match id {
        None => {
            super::for_acting_tenant(&person, &mut body);
            visit
                .call(Method::POST, "/v2/admin/call-campaigns/", Some(body))
                .await?
        }
        Some(id) => {
            visit
                .call(
                    Method::PATCH,
                    &format!("/v2/admin/call-campaigns/{id}"),
                    Some(body),
                )
                .await?
        }
    };
    if answer.status.is_success() {
        let saved = answer.json()["id"].as_i64().unwrap_or_default();
        let done = if id.is_some() { "saved" } else { "created" };
        return Ok(
            Redirect::to(&format!("/console/campaigns/{saved}?done={done}")).into_response(),
        );
    }
    if !answer.status.is_client_error() || answer.status == StatusCode::NOT_FOUND {
        return Err(refusal(&answer));
    }
    let mut page = match id {
        Some(id) => detail(visit, &person, id).await?,
        None => CampaignPage {
            chrome: visit.chrome("campaigns"),
            id: None,
            saved_status: String::new(),
            progress: None,
            moves: Vec::new(),
            form: CampaignForm::blank(),
            groups: targets(visit, &person, &DESTINATION_KINDS).await?,
            problems: Problems::default(),
            note: None,
        },
    };
    page.form = CampaignForm::of_form(fields);
    page.problems = problems_of(&answer.json());
    html_as(&page, answer.status)
}

/// `POST /console/campaigns/{id}/status`: starts, pauses, stops or cancels it (the API
/// refuses a step the campaign may not take, in its own words).
async fn set_status(
    mut visit: Visit,
    Path(id): Path<String>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        visit.acting().await?;
        let status = field(&fields, "status").trim().to_owned();
        let answer = visit
            .call(
                Method::PATCH,
                &format!("/v2/admin/call-campaigns/{id}"),
                Some(json!({"status": status})),
            )
            .await?;
        if !answer.status.is_success() {
            return Err(refusal(&answer));
        }
        let done = text(&answer.json()["status"]);
        Ok(Redirect::to(&format!("/console/campaigns/{id}?done={done}")).into_response())
    }
    .await;
    visit.finish(page)
}

#[derive(Template)]
#[template(path = "campaign_delete.html")]
struct DeletePage {
    chrome: Chrome,
    id: i64,
    name: String,
    status: String,
    /// Its numbers, deleted with it.
    numbers: i64,
    /// The entries of its own opt-out list, deleted with it.
    opt_outs: i64,
}

/// `GET /console/campaigns/{id}/delete`: the confirm step, saying what goes with the
/// campaign (its numbers and their calls, its own opt-out list) before anything is
/// deleted. Whether it may be deleted is the API's to say when the form is posted.
async fn delete_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        let person = visit.acting().await?;
        let campaign = visit.get(&format!("/v2/admin/call-campaigns/{id}")).await?;
        let numbers = visit
            .get(&format!(
                "/v2/admin/call-campaigns/{id}/records?recordsPerPage=1"
            ))
            .await?;
        let mut pairs = tenant_pair(&person);
        pairs.push(("campaignId", id.to_string()));
        pairs.push(("recordsPerPage", "1".to_owned()));
        let opt_outs = visit
            .get(&format!("/v2/admin/opt-outs/?{}", query(&pairs)))
            .await?;
        html(&DeletePage {
            chrome: visit.chrome("campaigns"),
            id,
            name: text(&campaign["name"]),
            status: text(&campaign["status"]),
            numbers: numbers["totalRecords"].as_i64().unwrap_or(0),
            opt_outs: opt_outs["totalRecords"].as_i64().unwrap_or(0),
        })
    }
    .await;
    visit.finish(page)
}

/// `POST /console/campaigns/{id}/delete`: the API deletes it with its numbers and its own
/// opt-out list, or refuses in its own words (a running campaign: 409).
async fn delete(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = super::delete_record(
        &mut visit,
        &fields,
        &id,
        "/v2/admin/call-campaigns/",
        "/console/campaigns?done=deleted",
    )
    .await;
    visit.finish(page)
}

#[derive(Template)]
#[template(path = "campaign_import.html")]
struct ImportPage {
    chrome: Chrome,
    id: i64,
    name: String,
    import: Option<ImportView>,
    problems: Problems,
}

/// `GET /console/campaigns/{id}/import`.
async fn import_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        visit.acting().await?;
        let campaign = visit.get(&format!("/v2/admin/call-campaigns/{id}")).await?;
        html(&ImportPage {
            chrome: visit.chrome("campaigns"),
            id,
            name: text(&campaign["name"]),
            import: None,
            problems: Problems::default(),
        })
    }
    .await;
    visit.finish(page)
}

/// `POST /console/campaigns/{id}/import`: the uploaded CSV posted to the API's import
/// as its `file`; the answer's rows that were not created shown one by one.
async fn import(
    mut visit: Visit,
    Path(id): Path<String>,
    form: Result<Multipart, MultipartRejection>,
) -> Response {
    let page = async {
        let (fields, uploads) = read_multipart(form).await?;
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        visit.acting().await?;
        let files: Vec<&Upload> = uploads.iter().filter(|u| u.name == "file").collect();
        let (content_type, body) = multipart_body(&[], &files);
        let answer = visit
            .call_with(
                Method::POST,
                &format!("/v2/admin/call-campaigns/{id}/records/import"),
                &content_type,
                body,
            )
            .await?;
        if !answer.status.is_success()
            && (!answer.status.is_client_error() || answer.status == StatusCode::NOT_FOUND)
        {
            return Err(refusal(&answer));
        }
        let campaign = visit.get(&format!("/v2/admin/call-campaigns/{id}")).await?;
        let (import, problems) = if answer.status.is_success() {
            (Some(ImportView::of(&answer.json())), Problems::default())
        } else {
            (None, Problems::of_refusal(&answer.json(), &["file"]))
        };
        html_as(
            &ImportPage {
                chrome: visit.chrome("campaigns"),
                id,
                name: text(&campaign["name"]),
                import,
                problems,
            },
            answer.status,
        )
    }
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::pages::form_of as fields;

    #[test]
    fn the_form_becomes_the_apis_body() {
        let form = fields(&[
            ("name", " Reminders "),
            ("callerIdNumber", "+12025550100"),
            ("destination", "QUEUE:4"),
            ("day1", "on"),
            ("day3", "on"),
            ("windowFrom", "09:00"),
            ("windowTo", "17:00"),
            ("windowTimeZone", "UTC"),
            ("maxAttempts", "2"),
            ("retryDelayMinutes", "ten"),
            ("startAt", "2026-12-01T09:30"),
            ("status", "scheduled"),
        ]);
        let body = body_of(&form, true);
        assert_eq!(body["name"], "Reminders");
        assert_eq!(body["destination"], json!([{"destType": "QUEUE", "id": 4}]));
        assert_eq!(body["callingWindow"]["days"], json!([1, 3]));
        assert_eq!(body["maxAttempts"], 2);
        assert_eq!(body["retryDelayMinutes"], "ten");
        assert_eq!(body["startAt"], "2026-12-01T09:30:00Z");
        assert_eq!(body["status"], "scheduled");
        // An edit clears a start left empty and sends no status of its own.
        let edit = body_of(&fields(&[("startAt", "")]), false);
        assert_eq!(edit["startAt"], Value::Null);
        assert!(edit.get("status").is_none());
        assert_eq!(edit["destination"], json!([]));
    }

    #[test]
    fn a_calling_window_error_goes_to_its_own_field() {
        let refusal = json!({"validationErrors": [
            "'body/callingWindow/to' must be after from",
            "'body/callingWindow/days/0' must be at most 6",
            "'body/callingWindow/timeZone' must be a time zone",
            "'body/name' must not be empty",
        ]});
        let problems = problems_of(&refusal);
        assert_eq!(
            problems.of("windowTo").as_deref(),
            Some("must be after from")
        );
        assert_eq!(
            problems.of("windowDays").as_deref(),
            Some("must be at most 6")
        );
        assert!(problems.of("windowTimeZone").is_some());
        assert!(problems.of("name").is_some());
        assert!(problems.general.is_empty(), "{:?}", problems.general);
    }

    #[test]
    fn an_import_shows_every_row_not_created() {
        let summary = json!({"created": 1, "duplicates": 1, "optedOut": 0, "invalid": 1, "results": [
            {"row": 1, "input": "2025550143", "result": "created", "id": 5},
            {"row": 2, "input": "12", "result": "invalid", "reason": "'number' is not a phone number"},
            {"row": 3, "input": "2025550143", "result": "duplicate", "id": 5},
        ]});
        let view = ImportView::of(&summary);
        assert_eq!((view.created, view.duplicates, view.invalid), (1, 1, 1));
        assert_eq!(view.refused.len(), 2);
        assert_eq!(view.refused[0].row, 2);
        assert_eq!(view.refused[0].reason, "'number' is not a phone number");
        assert_eq!(view.refused[1].reason, "already held (record 5)");
    }

    #[test]
    fn a_multipart_body_holds_each_part() {
        let file = Upload {
            name: "file".to_owned(),
            file_name: "a\"b.csv".to_owned(),
            content_type: "text/csv".to_owned(),
            bytes: b"number\n1\n".to_vec(),
        };
        let (content_type, body) = multipart_body(&[("to", "15550001")], &[&file]);
        let boundary = content_type.split("boundary=").nth(1).expect("a boundary");
        let body = String::from_utf8(body).expect("UTF-8");
        assert!(body.starts_with(&format!("--{boundary}\r\n")));
        assert!(body.contains("name=\"to\"\r\n\r\n15550001\r\n"));
        assert!(body.contains(
            "name=\"file\"; filename=\"ab.csv\"\r\nContent-Type: text/csv\r\n\r\nnumber\n1\n\r\n"
        ));
        assert!(body.ends_with(&format!("--{boundary}--\r\n")));
    }
}
