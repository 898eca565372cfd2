//! Extensions: listed with the API's paging and search, created, edited and deleted
//! through the API. A refused form comes back with every broken field marked next to its
//! input (the API reports them all at once) and what the person typed kept.

use std::collections::HashMap;

use askama::Template;
use axum::Form;
use axum::extract::{Path, Query};
use axum::http::Method;
use axum::response::{IntoResponse, Redirect, Response};
use serde_json::{Value, json};

use super::check_post;
use super::{
    Chrome, Fields, Listing, Paging, Problems, every, field, html, html_as, record_id, records,
    tenant_pair,
};
use crate::session::Person;
use crate::visit::{PageError, PageResult, Visit};

/// The fields of the form, by their API names.
const FIELDS: [&str; 3] = ["number", "name", "branchId"];

/// An extension as the list shows it.
struct Row {
    id: i64,
    number: String,
    name: String,
    branch: String,
}

#[derive(Template)]
#[template(path = "extensions.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

/// A branch to pick.
pub(crate) struct BranchOption {
    /// Its id, as the form sends it.
    pub id: String,
    /// Its name.
    pub name: String,
}

#[derive(Template)]
#[template(path = "extension_form.html")]
struct FormPage {
    chrome: Chrome,
    /// `None` for a new extension.
    id: Option<i64>,
    number: String,
    name: String,
    branch_id: String,
    branches: Vec<BranchOption>,
    problems: Problems,
}

/// The branches of the tenant acted on, as the API lists them to the person (a branch
/// administrator sees their own); empty when they may not list branches.
pub(crate) async fn branches(
    visit: &mut Visit,
    person: &Person,
) -> Result<Vec<BranchOption>, PageError> {
    Ok(every(visit, person, "/v2/admin/branches/", &[])
        .await?
        .iter()
        .map(|b| BranchOption {
            id: b["id"].as_i64().unwrap_or(0).to_string(),
            name: b["name"].as_str().unwrap_or_default().to_owned(),
        })
        .collect())
}

/// `GET /console/extensions`.
pub(crate) async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing = Listing::new("/console/extensions", params).with("query", field(params, "query"));
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "number".to_owned()));
    let answer = visit
        .get(&listing.api("/v2/admin/extensions/", order))
        .await?;
    let names: HashMap<String, String> = branches(visit, &person)
        .await?
        .into_iter()
        .map(|b| (b.id, b.name))
        .collect();
    let rows = records(&answer)
        .iter()
        .map(|e| {
            let branch = e["branchId"].as_i64().unwrap_or(0);
            Row {
                id: e["id"].as_i64().unwrap_or(0),
                number: e["number"].as_str().unwrap_or_default().to_owned(),
                name: e["name"].as_str().unwrap_or_default().to_owned(),
                branch: match branch {
                    0 => String::new(),
                    id => names
                        .get(&id.to_string())
                        .cloned()
                        .unwrap_or_else(|| format!("branch {id}")),
                },
            }
        })
        .collect();
    let paging = listing.paging(&answer);
    let note = match field(params, "done") {
        "created" => Some("The extension is created."),
        "updated" => Some("The extension is saved."),
        "deleted" => Some("The extension is deleted."),
        _ => None,
    };
    html(&ListPage {
        chrome: visit.chrome("extensions"),
        search: listing.filter("query").to_owned(),
        rows,
        paging,
        note,
    })
}

/// `GET /console/extensions/new`.
pub(crate) async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        let person = visit.acting().await?;
        let branches = branches(&mut visit, &person).await?;
        html(&FormPage {
            chrome: visit.chrome("extensions"),
            id: None,
            number: String::new(),
            name: String::new(),
            branch_id: String::new(),
            branches,
            problems: Problems::default(),
        })
    }
    .await;
    visit.finish(page)
}

/// `GET /console/extensions/{id}`.
pub(crate) async fn edit_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        let person = visit.acting().await?;
        let extension = visit.get(&format!("/v2/admin/extensions/{id}")).await?;
        let branches = branches(&mut visit, &person).await?;
        html(&FormPage {
            chrome: visit.chrome("extensions"),
            id: Some(id),
            number: extension["number"].as_str().unwrap_or_default().to_owned(),
            name: extension["name"].as_str().unwrap_or_default().to_owned(),
            branch_id: match extension["branchId"].as_i64().unwrap_or(0) {
                0 => String::new(),
                branch => branch.to_string(),
            },
            branches,
            problems: Problems::default(),
        })
    }
    .await;
    visit.finish(page)
}

/// The body the form's fields make: `branchId` empty is no branch.
fn body_of(fields: &Fields) -> Value {
    let branch = field(fields, "branchId").trim();
    json!({
        "number": field(fields, "number").trim(),
        "name": field(fields, "name").trim(),
        "branchId": if branch.is_empty() {
            Value::Null
        } else {
            branch.parse::<i64>().map_or_else(|_| json!(branch), |id| json!(id))
        },
    })
}

/// `POST /console/extensions`: creates one.
pub(crate) async fn create(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = save(&mut visit, None, &fields).await;
    visit.finish(page)
}

/// `POST /console/extensions/{id}`: saves one.
pub(crate) async fn update(
    mut visit: Visit,
    Path(id): Path<String>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = match record_id(&id) {
        Ok(id) => save(&mut visit, Some(id), &fields).await,
        Err(error) => Err(error),
    };
    visit.finish(page)
}

async fn save(visit: &mut Visit, id: Option<i64>, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    let person = visit.acting().await?;
    let mut body = body_of(fields);
    let answer = match id {
        None => {
            super::for_acting_tenant(&person, &mut body);
            visit
                .call(Method::POST, "/v2/admin/extensions/", Some(body))
                .await?
        }
        Some(id) => {
            visit
                .call(
                    Method::PATCH,
                    &format!("/v2/admin/extensions/{id}"),
                    Some(body),
                )
                .await?
        }
    };
    if answer.status.is_success() {
        let done = if id.is_some() { "updated" } else { "created" };
        return Ok(Redirect::to(&format!("/console/extensions?done={done}")).into_response());
    }
    if answer.status == axum::http::StatusCode::NOT_FOUND {
        return Err(PageError::NotFound);
    }
    let branches = branches(visit, &person).await?;
    let page = FormPage {
        chrome: visit.chrome("extensions"),
        id,
        number: field(fields, "number").to_owned(),
        name: field(fields, "name").to_owned(),
        branch_id: field(fields, "branchId").to_owned(),
        branches,
        problems: Problems::of_refusal(&answer.json(), &FIELDS),
    };
    html_as(&page, answer.status)
}

/// `POST /console/extensions/{id}/delete`.
pub(crate) async fn delete(
    mut visit: Visit,
    Path(id): Path<String>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = super::delete_record(
        &mut visit,
        &fields,
        &id,
        "/v2/admin/extensions/",
        "/console/extensions?done=deleted",
    )
    .await;
    visit.finish(page)
}
