//! One number of a call campaign: its fields and every call placed for it (the API's
//! `attemptHistory`), changed through the API's `PATCH` (its number, its name, and
//! `pending` to dial it again from its first attempt or `skipped` never to dial it), and
//! deleted. The record list of the campaign's page leads here.

use askama::Template;
use axum::Form;
use axum::Router;
use axum::extract::{Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use switchboard_domain::records::call_campaign::RecordStatus;

use super::campaigns::{PER_PAGE, RECORD_STATUSES};
use super::check_post;
use super::phones::when;
use super::{
    Chrome, Fields, Paging, Problems, field, html, html_as, query, record_id, records, text,
};
use crate::shared::Console;
use crate::visit::{PageError, Visit, refusal};

/// The campaign record pages' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/campaigns/{id}/records", get(records_page))
        .route("/console/campaigns/{id}/export", get(export))
        .route(
            "/console/campaigns/{id}/records/{record}",
            get(show).post(update),
        )
        .route(
            "/console/campaigns/{id}/records/{record}/delete",
            post(delete),
        )
}

/// The form's fields, by their API names.
const FIELDS: [&str; 3] = ["number", "name", "status"];

/// The statuses a person may give a record (the API's settable ones), with what each
/// does; the first choice sends none.
const STATUS_CHOICES: [(&str, &str); 3] = [
    ("", "Leave it as it is"),
    (
        RecordStatus::Pending.as_str(),
        "Dial it again, its attempts starting over",
    ),
    (RecordStatus::Skipped.as_str(), "Never dial it"),
];

/// The record as saved, as the page shows it.
struct Saved {
    number: String,
    name: String,
    status: String,
    outcome: String,
    attempts: i64,
    last_attempt: String,
    next_attempt: String,
    created: String,
}

impl Saved {
    /// The record of the API's answer.
    fn of(record: &Value) -> Saved {
        let outcome = text(&record["outcome"]);
        Saved {
            number: text(&record["number"]),
            name: text(&record["name"]),
            status: text(&record["status"]),
            outcome: if outcome.is_empty() {
                "none yet".to_owned()
            } else {
                outcome
            },
            attempts: record["attempts"].as_i64().unwrap_or(0),
            last_attempt: when(&record["lastAttemptAt"]),
            next_attempt: if record["nextAttemptAt"].is_null() {
                "not waiting".to_owned()
            } else {
                when(&record["nextAttemptAt"])
            },
            created: when(&record["createdAt"]),
        }
    }
}

/// One call placed for the record, as the page shows it.
struct Attempt {
    outcome: String,
    started: String,
    ended: String,
    recorded: String,
    duration: String,
    result_code: String,
    reference: String,
    message: String,
}

/// The calls of the API's `attemptHistory`, oldest first.
fn history_of(record: &Value) -> Vec<Attempt> {
    let reported = |value: &Value| {
        if value.is_null() {
            "not reported".to_owned()
        } else {
            when(value)
        }
    };
    record["attemptHistory"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|a| Attempt {
            outcome: text(&a["outcome"]),
            started: reported(&a["startedAt"]),
            ended: reported(&a["endedAt"]),
            recorded: when(&a["recordedAt"]),
            duration: a["durationSeconds"]
                .as_i64()
                .map_or_else(String::new, |s| format!("{s} s")),
            result_code: text(&a["resultCode"]),
            reference: text(&a["reference"]),
            message: text(&a["message"]),
        })
        .collect()
}

/// What the form holds: the saved values, or what was typed, with the saved values it
/// was shown with (a change is what differs from them).
struct RecordForm {
    number: String,
    name: String,
    status: String,
    shown_number: String,
    shown_name: String,
}

#[derive(Template)]
#[template(path = "campaign_record.html")]
struct RecordPage {
    chrome: Chrome,
    campaign: i64,
    campaign_name: String,
    id: i64,
    saved: Saved,
    history: Vec<Attempt>,
    form: RecordForm,
    statuses: [(&'static str, &'static str); 3],
    problems: Problems,
    note: Option<&'static str>,
}

/// The campaign and record ids of a console path, else no page.
fn ids(campaign: &str, record: &str) -> Result<(i64, i64), PageError> {
    Ok((record_id(campaign)?, record_id(record)?))
}

/// The API path of record `id` of `campaign`.
fn api_path(campaign: i64, id: i64) -> String {
    format!("/v2/admin/call-campaigns/{campaign}/records/{id}")
}

/// The page of record `id` of `campaign` as saved, the form holding its values.
async fn detail(visit: &mut Visit, campaign: i64, id: i64) -> Result<RecordPage, PageError> {
    visit.acting().await?;
    let record = visit.get(&api_path(campaign, id)).await?;
    let owner = visit
        .get(&format!("/v2/admin/call-campaigns/{campaign}"))
        .await?;
    let saved = Saved::of(&record);
    Ok(RecordPage {
        chrome: visit.chrome("campaigns"),
        campaign,
        campaign_name: text(&owner["name"]),
        id,
        form: RecordForm {
            number: saved.number.clone(),
            name: saved.name.clone(),
            status: String::new(),
            shown_number: saved.number.clone(),
            shown_name: saved.name.clone(),
        },
        saved,
        history: history_of(&record),
        statuses: STATUS_CHOICES,
        problems: Problems::default(),
        note: None,
    })
}

/// `GET /console/campaigns/{id}/records/{record}`.
async fn show(
    mut visit: Visit,
    Path((campaign, record)): Path<(String, String)>,
    Query(params): Query<Fields>,
) -> Response {
    let page = async {
        let (campaign, id) = ids(&campaign, &record)?;
        let mut page = detail(&mut visit, campaign, id).await?;
        page.note = (field(&params, "done") == "saved").then_some("The number is saved.");
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// The `PATCH` body of the form: only the fields changed from the values the page showed
/// (its hidden `shownNumber` and `shownName`), so a change made elsewhere meanwhile to a
/// field left alone is kept, and a record whose number has since been opted out can still
/// be renamed (the API checks every number it is sent against the opt-out lists). An
/// emptied name is none; a status only when one is picked.
fn body_of(fields: &Fields) -> Value {
    let mut body = Map::new();
    let number = field(fields, "number").trim();
    if number != field(fields, "shownNumber") {
        body.insert("number".to_owned(), json!(number));
    }
    let name = field(fields, "name").trim();
    if name != field(fields, "shownName") {
        let name = if name.is_empty() {
            Value::Null
        } else {
            json!(name)
        };
        body.insert("name".to_owned(), name);
    }
    let status = field(fields, "status").trim();
    if !status.is_empty() {
        body.insert("status".to_owned(), json!(status));
    }
    Value::Object(body)
}

/// The problems of a refused change: each broken field next to its input. A number on
/// an opt-out list is refused with a 403 naming the list, without a field: it is about
/// the number sent, so it goes next to the number.
fn problems_of(status: StatusCode, refusal: &Value, body: &Value) -> Problems {
    let mut problems = Problems::of_refusal(refusal, &FIELDS);
    if status == StatusCode::FORBIDDEN && body.get("number").is_some() {
        let messages = std::mem::take(&mut problems.general);
        problems.fields.insert("number".to_owned(), messages);
    }
    problems
}

/// `POST /console/campaigns/{id}/records/{record}`: the changes sent to the API; a
/// refusal shows each broken field, what was typed kept, with the API's status. A
/// refusal of the person (a 403 with no number sent, or one who may not even read the
/// record) is the API's refusal page.
async fn update(
    mut visit: Visit,
    Path((campaign, record)): Path<(String, String)>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let (campaign, id) = ids(&campaign, &record)?;
        visit.acting().await?;
        let body = body_of(&fields);
        let answer = visit
            .call(Method::PATCH, &api_path(campaign, id), Some(body.clone()))
            .await?;
        if answer.status.is_success() {
            return Ok(Redirect::to(&format!(
                "/console/campaigns/{campaign}/records/{id}?done=saved"
            ))
            .into_response());
        }
        let of_the_person = answer.status == StatusCode::FORBIDDEN && body.get("number").is_none();
        if !answer.status.is_client_error()
            || answer.status == StatusCode::NOT_FOUND
            || of_the_person
        {
            return Err(refusal(&answer));
        }
        let mut page = match detail(&mut visit, campaign, id).await {
            Ok(page) => page,
            Err(PageError::Forbidden(_)) => return Err(refusal(&answer)),
            Err(error) => return Err(error),
        };
        page.form.number = field(&fields, "number").to_owned();
        page.form.name = field(&fields, "name").to_owned();
        page.form.status = field(&fields, "status").to_owned();
        page.problems = problems_of(answer.status, &answer.json(), &body);
        html_as(&page, answer.status)
    }
    .await;
    visit.finish(page)
}

/// `POST /console/campaigns/{id}/records/{record}/delete`: the API deletes the number
/// from the campaign, back to the campaign's numbers.
async fn delete(
    mut visit: Visit,
    Path((campaign, record)): Path<(String, String)>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = async {
        let campaign = record_id(&campaign)?;
        super::delete_record(
            &mut visit,
            &fields,
            &record,
            &format!("/v2/admin/call-campaigns/{campaign}/records/"),
            &format!("/console/campaigns/{campaign}/records?done=deleted"),
        )
        .await
    }
    .await;
    visit.finish(page)
}

/// A record of a campaign as its page lists it (each leads to its own page).
struct RecordRow {
    id: i64,
    number: String,
    name: String,
    status: String,
    outcome: String,
    attempts: i64,
    last_attempt: String,
    next_attempt: String,
}

#[derive(Template)]
#[template(path = "campaign_records.html")]
struct RecordsPage {
    chrome: Chrome,
    id: i64,
    name: String,
    status: String,
    search: String,
    statuses: [(&'static str, &'static str); 6],
    rows: Vec<RecordRow>,
    paging: Paging,
    /// The export's link, with the filters shown.
    export: String,
    note: Option<&'static str>,
}

/// `GET /console/campaigns/{id}/records`: its numbers, paged, filtered by status and
/// searched.
async fn records_page(
    mut visit: Visit,
    Path(id): Path<String>,
    Query(params): Query<Fields>,
) -> Response {
    let page = async {
        let id = record_id(&id)?;
        visit.acting().await?;
        let campaign = visit.get(&format!("/v2/admin/call-campaigns/{id}")).await?;
        let page = field(&params, "page").parse::<i64>().unwrap_or(1).max(1);
        let mut filters = Vec::new();
        for name in ["status", "query"] {
            let value = field(&params, name).trim();
            if !value.is_empty() {
                filters.push((name, value.to_owned()));
            }
        }
        let mut pairs = vec![
            ("sortBy", "id".to_owned()),
            ("page", page.to_string()),
            ("recordsPerPage", PER_PAGE.to_string()),
        ];
        pairs.extend(filters.iter().cloned());
        let answer = visit
            .get(&format!(
                "/v2/admin/call-campaigns/{id}/records?{}",
                query(&pairs)
            ))
            .await?;
        let base = format!("/console/campaigns/{id}/records");
        let paging = Paging::of(&answer, |page| {
            let mut pairs = vec![("page", page.to_string())];
            pairs.extend(filters.iter().cloned());
            format!("{base}?{}", query(&pairs))
        });
        let rows = records(&answer)
            .iter()
            .map(|r| RecordRow {
                id: r["id"].as_i64().unwrap_or(0),
                number: text(&r["number"]),
                name: text(&r["name"]),
                status: text(&r["status"]),
                outcome: text(&r["outcome"]),
                attempts: r["attempts"].as_i64().unwrap_or(0),
                last_attempt: text(&r["lastAttemptAt"]),
                next_attempt: text(&r["nextAttemptAt"]),
            })
            .collect();
        let export = if filters.is_empty() {
            format!("/console/campaigns/{id}/export")
        } else {
            format!("/console/campaigns/{id}/export?{}", query(&filters))
        };
        html(&RecordsPage {
            chrome: visit.chrome("campaigns"),
            id,
            name: text(&campaign["name"]),
            status: field(&params, "status").trim().to_owned(),
            search: field(&params, "query").trim().to_owned(),
            statuses: RECORD_STATUSES,
            rows,
            paging,
            export,
            note: (field(&params, "done") == "deleted")
                .then_some("The number is deleted from the campaign."),
        })
    }
    .await;
    visit.finish(page)
}

/// `GET /console/campaigns/{id}/export`: the API's CSV export of its numbers (with the
/// status and search asked), streamed through as a download.
async fn export(
    mut visit: Visit,
    Path(id): Path<String>,
    Query(params): Query<Fields>,
) -> Response {
    let page = async {
        let id = record_id(&id)?;
        visit.acting().await?;
        let mut filters = vec![("sortBy", "id".to_owned())];
        for name in ["status", "query"] {
            let value = field(&params, name).trim();
            if !value.is_empty() {
                filters.push((name, value.to_owned()));
            }
        }
        visit
            .stream(&format!(
                "/v2/admin/call-campaigns/{id}/records/export?{}",
                query(&filters)
            ))
            .await
    }
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::pages::form_of as fields;

    #[test]
    fn only_what_changed_is_sent() {
        let shown = [("shownNumber", "+12025550143"), ("shownName", "Ann")];
        let with = |typed: &[(&'static str, &'static str)]| {
            let mut all = shown.to_vec();
            all.extend_from_slice(typed);
            body_of(&fields(&all))
        };
        // Sent back as shown: nothing to change.
        let same = with(&[
            ("number", "+12025550143"),
            ("name", " Ann "),
            ("status", ""),
        ]);
        assert_eq!(same, json!({}));
        // A new number as typed (the API normalises it), the name emptied, dialled again.
        let changed = with(&[
            ("number", "(202) 555-0199"),
            ("name", ""),
            ("status", "pending"),
        ]);
        assert_eq!(
            changed,
            json!({"number": "(202) 555-0199", "name": null, "status": "pending"})
        );
        // A record shown without a name given one.
        let named = body_of(&fields(&[
            ("shownNumber", "+12025550143"),
            ("shownName", ""),
            ("number", "+12025550143"),
            ("name", "Bo"),
        ]));
        assert_eq!(named, json!({"name": "Bo"}));
    }

    #[test]
    fn an_opted_out_number_is_refused_at_the_number() {
        let refusal = json!({"message": "+12025550143 is on the tenant's opt-out list: it may not be called"});
        let problems = problems_of(
            StatusCode::FORBIDDEN,
            &refusal,
            &json!({"number": "2025550143"}),
        );
        assert!(
            problems
                .of("number")
                .is_some_and(|message| message.contains("opt-out list"))
        );
        assert!(problems.general.is_empty());
        // A refusal of the person, with no number sent, stays above the form.
        let refusal = json!({"message": "this operation needs the campaigns:write permission"});
        let problems = problems_of(StatusCode::FORBIDDEN, &refusal, &json!({"name": "Bo"}));
        assert!(problems.of("number").is_none());
        assert_eq!(problems.general.len(), 1);
    }
}
