//! Opt-out (do-not-call) lists: the entries the person may see, paged, searched and
//! filtered by level; a number added to the tenant's list or a campaign's, removed, and
//! imported from a CSV (every row the API did not create shown with its reason), and the
//! API's CSV export streamed as a download. Which numbers may be entered, and who may
//! touch which list, is the API's to say.

use std::collections::HashMap;

use askama::Template;
use axum::Form;
use axum::Router;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::extract::{Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use switchboard_domain::records::opt_out::OptOutLevel;

use super::check_post;
use super::uploads::{ImportView, Upload, multipart_body, read_multipart};
use super::{
    Chrome, Fields, Listing, Paging, Problems, every, field, html, html_as, query, records,
    tenant_pair, text,
};
use crate::session::Person;
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The console's opt-out routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/opt-outs", get(list).post(add))
        .route("/console/opt-outs/{id}/delete", post(remove))
        .route("/console/opt-outs/import", post(import))
        .route("/console/opt-outs/export", get(export))
}

/// The add form's fields, by their API names.
const FIELDS: [&str; 5] = ["number", "level", "campaignId", "reason", "expiresAt"];

/// The levels of a list, with their words.
const LEVELS: [(&str, &str); OptOutLevel::ALL.len()] = [
    (OptOutLevel::Tenant.as_str(), "The tenant's list"),
    (OptOutLevel::Campaign.as_str(), "A campaign's list"),
    (OptOutLevel::Platform.as_str(), "The platform's list"),
];

/// An entry as the list shows it.
struct Row {
    id: i64,
    number: String,
    list: String,
    source: String,
    reason: String,
    added: String,
    expires: String,
}

/// A campaign to pick.
struct CampaignOption {
    id: String,
    name: String,
}

/// What the add form holds.
#[derive(Default)]
struct AddForm {
    number: String,
    level: String,
    campaign_id: String,
    reason: String,
    expires_at: String,
}

#[derive(Template)]
#[template(path = "opt_outs.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    level: String,
    levels: [(&'static str, &'static str); 3],
    rows: Vec<Row>,
    paging: Paging,
    export: String,
    campaigns: Vec<CampaignOption>,
    form: AddForm,
    problems: Problems,
    import: Option<ImportView>,
    import_problems: Problems,
    note: Option<&'static str>,
}

/// The campaigns of the tenant acted on, as the API lists them to the person (empty when
/// they may not list them).
async fn campaigns(visit: &mut Visit, person: &Person) -> Result<Vec<CampaignOption>, PageError> {
    Ok(every(
        visit,
        person,
        "/v2/admin/call-campaigns/",
        &[("sortBy", "name")],
    )
    .await?
    .iter()
    .map(|c| CampaignOption {
        id: c["id"].as_i64().unwrap_or(0).to_string(),
        name: text(&c["name"]),
    })
    .collect())
}

/// `GET /console/opt-outs`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = async {
        let mut page = list_page(&mut visit, &params).await?;
        page.note = match field(&params, "done") {
            "added" => Some("The number is added to the list."),
            "removed" => Some("The number is removed from the list."),
            _ => None,
        };
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// The list page for `params` (its page, search and level), with empty forms.
async fn list_page(visit: &mut Visit, params: &Fields) -> Result<ListPage, PageError> {
    let person = visit.acting().await?;
    let listing = Listing::new("/console/opt-outs", params)
        .with("query", field(params, "query"))
        .with("level", field(params, "level"));
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "id".to_owned()));
    order.push(("sortDirection", "desc".to_owned()));
    let answer = visit
        .get(&listing.api("/v2/admin/opt-outs/", order))
        .await?;
    let campaigns = campaigns(visit, &person).await?;
    let names: HashMap<&str, &str> = campaigns
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str()))
        .collect();
    let rows = records(&answer)
        .iter()
        .map(|entry| Row {
            id: entry["id"].as_i64().unwrap_or(0),
            number: text(&entry["number"]),
            list: list_in_words(entry, &names),
            source: text(&entry["source"]),
            reason: text(&entry["reason"]),
            added: text(&entry["createdAt"]),
            expires: text(&entry["expiresAt"]),
        })
        .collect();
    let paging = listing.paging(&answer);
    let mut filters = Vec::new();
    for name in ["query", "level"] {
        let value = listing.filter(name);
        if !value.is_empty() {
            filters.push((name, value.to_owned()));
        }
    }
    let export = if filters.is_empty() {
        "/console/opt-outs/export".to_owned()
    } else {
        format!("/console/opt-outs/export?{}", query(&filters))
    };
    Ok(ListPage {
        chrome: visit.chrome("opt-outs"),
        search: listing.filter("query").to_owned(),
        level: listing.filter("level").to_owned(),
        levels: LEVELS,
        rows,
        paging,
        export,
        campaigns,
        form: AddForm {
            level: "tenant".to_owned(),
            ..AddForm::default()
        },
        problems: Problems::default(),
        import: None,
        import_problems: Problems::default(),
        note: None,
    })
}

/// The list an entry is on, in words: `the tenant's`, `campaign Refill reminders`.
fn list_in_words(entry: &Value, campaigns: &HashMap<&str, &str>) -> String {
    match entry["level"].as_str().unwrap_or_default() {
        "platform" => "the platform's".to_owned(),
        "campaign" => {
            let id = entry["campaignId"].as_i64().unwrap_or(0).to_string();
            match campaigns.get(id.as_str()) {
                Some(name) => format!("campaign {name}"),
                None => format!("campaign {id}"),
            }
        }
        _ => "the tenant's".to_owned(),
    }
}

/// The body the add form makes: `campaignId` only for a campaign's list, an expiry date
/// as the end of that day's UTC start.
fn body_of(fields: &Fields, person: &Person) -> Value {
    let level = field(fields, "level").trim();
    let mut body = json!({
        "number": field(fields, "number").trim(),
        "level": level,
    });
    if level == "tenant" {
        super::for_acting_tenant(person, &mut body);
    }
    let campaign = field(fields, "campaignId").trim();
    if level == "campaign" {
        body["campaignId"] = if campaign.is_empty() {
            Value::Null
        } else {
            campaign
                .parse::<i64>()
                .map_or_else(|_| json!(campaign), |id| json!(id))
        };
    }
    let reason = field(fields, "reason").trim();
    if !reason.is_empty() {
        body["reason"] = json!(reason);
    }
    let expires = field(fields, "expiresAt").trim();
    if !expires.is_empty() {
        body["expiresAt"] = if chrono::NaiveDate::parse_from_str(expires, "%Y-%m-%d").is_ok() {
            json!(format!("{expires}T00:00:00Z"))
        } else {
            json!(expires)
        };
    }
    body
}

/// `POST /console/opt-outs`: adds a number to a list.
async fn add(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let person = visit.acting().await?;
        let answer = visit
            .call(
                Method::POST,
                "/v2/admin/opt-outs/",
                Some(body_of(&fields, &person)),
            )
            .await?;
        if answer.status.is_success() {
            return Ok(Redirect::to("/console/opt-outs?done=added").into_response());
        }
        if !answer.status.is_client_error() || answer.status == StatusCode::NOT_FOUND {
            return Err(refusal(&answer));
        }
        let mut page = list_page(&mut visit, &Fields::new()).await?;
        page.form = AddForm {
            number: field(&fields, "number").to_owned(),
            level: field(&fields, "level").to_owned(),
            campaign_id: field(&fields, "campaignId").to_owned(),
            reason: field(&fields, "reason").to_owned(),
            expires_at: field(&fields, "expiresAt").to_owned(),
        };
        page.problems = Problems::of_refusal(&answer.json(), &FIELDS);
        html_as(&page, answer.status)
    }
    .await;
    visit.finish(page)
}

/// `POST /console/opt-outs/{id}/delete`: removes an entry.
async fn remove(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = super::delete_record(
        &mut visit,
        &fields,
        &id,
        "/v2/admin/opt-outs/",
        "/console/opt-outs?done=removed",
    )
    .await;
    visit.finish(page)
}

/// `POST /console/opt-outs/import`: the uploaded CSV posted to the API's import as its
/// `file`; the rows it did not create shown one by one.
async fn import(mut visit: Visit, form: Result<Multipart, MultipartRejection>) -> Response {
    let page = async {
        let (fields, uploads) = read_multipart(form).await?;
        check_post(&visit, &fields)?;
        visit.acting().await?;
        let files: Vec<&Upload> = uploads.iter().filter(|u| u.name == "file").collect();
        let (content_type, body) = multipart_body(&[], &files);
        let answer = visit
            .call_with(
                Method::POST,
                "/v2/admin/opt-outs/import",
                &content_type,
                body,
            )
            .await?;
        if !answer.status.is_success()
            && (!answer.status.is_client_error() || answer.status == StatusCode::NOT_FOUND)
        {
            return Err(refusal(&answer));
        }
        let mut page = list_page(&mut visit, &Fields::new()).await?;
        if answer.status.is_success() {
            page.import = Some(ImportView::of(&answer.json()));
        } else {
            page.import_problems = Problems::of_refusal(&answer.json(), &["file"]);
        }
        html_as(&page, answer.status)
    }
    .await;
    visit.finish(page)
}

/// `GET /console/opt-outs/export`: the API's CSV export (with the search and level
/// asked), streamed through as a download.
async fn export(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page: PageResult = async {
        let person = visit.acting().await?;
        let mut pairs = tenant_pair(&person);
        for name in ["query", "level"] {
            let value = field(&params, name).trim();
            if !value.is_empty() {
                pairs.push((name, value.to_owned()));
            }
        }
        visit
            .stream(&format!("/v2/admin/opt-outs/export?{}", query(&pairs)))
            .await
    }
    .await;
    visit.finish(page)
}
