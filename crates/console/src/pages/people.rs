//! People: the accounts of the tenant acted on, as the API lists them to the person (a
//! branch administrator gets their own branch's), each with its role and branch in words;
//! created, changed (role, branch, disabled) and deleted through the API, whose rules
//! decide who may grant which role: a refusal comes back on the form in its words.

use askama::Template;
use axum::extract::{Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde_json::{Value, json};

use super::check_post;
use super::extensions::{BranchOption, branches};
use super::{
    Chrome, Fields, Listing, Paging, Problems, field, html, html_as, record_id, records, role_name,
    tenant_pair,
};
use crate::session::Person;
use crate::shared::Console;
use crate::visit::{PageResult, Visit, refusal};

/// The fields of the forms, by their API names.
const FIELDS: [&str; 5] = ["email", "password", "userRole", "branchId", "disabled"];

/// The roles of a tenant's people, highest first: the console offers those at or below
/// the person's own (the API refuses any other, in its words).
const TENANT_ROLES: [i64; 3] = [3, 4, 5];

/// The people pages' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/people", get(list).post(create))
        .route("/console/people/new", get(new_form))
        .route("/console/people/{id}", get(edit_form).post(update))
        .route("/console/people/{id}/delete", post(delete))
}

/// A person as the list shows them.
struct Row {
    id: i64,
    email: String,
    role: &'static str,
    branch: String,
    extension: String,
    disabled: bool,
}

/// A role to pick.
struct RoleOption {
    value: String,
    name: &'static str,
}

#[derive(Template)]
#[template(path = "people.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    role_filter: String,
    roles: Vec<RoleOption>,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "person_form.html")]
struct FormPage {
    chrome: Chrome,
    /// `None` for a new account.
    id: Option<i64>,
    email: String,
    user_role: String,
    branch_id: String,
    disabled: bool,
    roles: Vec<RoleOption>,
    branches: Vec<BranchOption>,
    problems: Problems,
}

/// The roles `person` is offered: the tenant's roles at or below their own, and the
/// account's `current` one (so the form shows what it is, even when the person may not
/// give it).
fn roles_for(person: &Person, current: Option<i64>) -> Vec<RoleOption> {
    TENANT_ROLES
        .into_iter()
        .filter(|role| *role >= person.role || Some(*role) == current)
        .map(|role| RoleOption {
            value: role.to_string(),
            name: role_name(role),
        })
        .collect()
}

/// Every tenant role, for the list's filter (filtering grants nothing).
fn all_roles() -> Vec<RoleOption> {
    TENANT_ROLES
        .into_iter()
        .map(|role| RoleOption {
            value: role.to_string(),
            name: role_name(role),
        })
        .collect()
}

/// `GET /console/people`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let role_filter = match field(params, "userRole") {
        role @ ("3" | "4" | "5") => role,
        _ => "",
    };
    let listing = Listing::new("/console/people", params)
        .with("query", field(params, "query"))
        .with("userRole", role_filter);
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "email".to_owned()));
    let answer = visit.get(&listing.api("/v2/admin/users/", order)).await?;
    let rows = records(&answer)
        .iter()
        .map(|u| {
            let text = |key: &str| u[key].as_str().unwrap_or_default().to_owned();
            Row {
                id: u["id"].as_i64().unwrap_or(0),
                email: text("email"),
                role: role_name(u["userRole"].as_i64().unwrap_or(5)),
                branch: text("branchName"),
                extension: format!("{} {}", text("extNum"), text("extName"))
                    .trim()
                    .to_owned(),
                disabled: u["disabled"].as_i64() == Some(1),
            }
        })
        .collect();
    let paging = listing.paging(&answer);
    let note = match field(params, "done") {
        "created" => Some("The account is created."),
        "updated" => Some("The account is saved."),
        "deleted" => Some("The account is deleted."),
        _ => None,
    };
    html(&ListPage {
        chrome: visit.chrome("people"),
        search: listing.filter("query").to_owned(),
        role_filter: role_filter.to_owned(),
        roles: all_roles(),
        rows,
        paging,
        note,
    })
}

/// `GET /console/people/new`.
async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        let person = visit.acting().await?;
        let branches = branches(&mut visit, &person).await?;
        html(&FormPage {
            chrome: visit.chrome("people"),
            id: None,
            email: String::new(),
            user_role: "5".to_owned(),
            branch_id: String::new(),
            disabled: false,
            roles: roles_for(&person, None),
            branches,
            problems: Problems::default(),
        })
    }
    .await;
    visit.finish(page)
}

/// `GET /console/people/{id}`.
async fn edit_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        let person = visit.acting().await?;
        let account = visit.get(&format!("/v2/admin/users/{id}")).await?;
        let branches = branches(&mut visit, &person).await?;
        html(&FormPage {
            chrome: visit.chrome("people"),
            id: Some(id),
            email: account["email"].as_str().unwrap_or_default().to_owned(),
            user_role: account["userRole"].as_i64().unwrap_or(5).to_string(),
            branch_id: match account["branchId"].as_i64().unwrap_or(0) {
                0 => String::new(),
                branch => branch.to_string(),
            },
            disabled: account["disabled"].as_i64() == Some(1),
            roles: roles_for(&person, account["userRole"].as_i64()),
            branches,
            problems: Problems::default(),
        })
    }
    .await;
    visit.finish(page)
}

/// A number field as the API takes it: a number when it reads as one, else the text as
/// typed (the API then names what is wrong with it).
fn number_or_text(text: &str) -> Value {
    text.parse::<i64>()
        .map_or_else(|_| json!(text), |n| json!(n))
}

/// The body the form's fields make: `branchId` empty is no branch; a new account's
/// e-mail and password, a changed account's disabled state.
fn body_of(fields: &Fields, new: bool) -> Value {
    let branch = field(fields, "branchId").trim();
    let mut body = json!({
        "userRole": number_or_text(field(fields, "userRole").trim()),
        "branchId": if branch.is_empty() { Value::Null } else { number_or_text(branch) },
    });
    if new {
        body["email"] = json!(field(fields, "email").trim());
        body["password"] = json!(field(fields, "password"));
    } else {
        body["disabled"] = json!(i64::from(field(fields, "disabled") == "1"));
    }
    body
}

/// `POST /console/people`: creates an account.
async fn create(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = save(&mut visit, None, &fields).await;
    visit.finish(page)
}

/// `POST /console/people/{id}`: saves an account's role, branch and disabled state.
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
    let (answer, email) = match id {
        None => {
            super::for_acting_tenant(&person, &mut body);
            let answer = visit
                .call(Method::POST, "/v2/admin/users/", Some(body))
                .await?;
            (answer, field(fields, "email").to_owned())
        }
        Some(id) => {
            // The form does not carry the e-mail: the page names the account by it.
            let account = visit.get(&format!("/v2/admin/users/{id}")).await?;
            let answer = visit
                .call(Method::PATCH, &format!("/v2/admin/users/{id}"), Some(body))
                .await?;
            let email = account["email"].as_str().unwrap_or_default().to_owned();
            (answer, email)
        }
    };
    if answer.status.is_success() {
        let done = if id.is_some() { "updated" } else { "created" };
        return Ok(Redirect::to(&format!("/console/people?done={done}")).into_response());
    }
    if answer.status == StatusCode::NOT_FOUND || !answer.status.is_client_error() {
        return Err(refusal(&answer));
    }
    // A role or a scope the person may not give is a 403 with the API's words: shown on
    // the form like a broken field, what was typed kept.
    let branches = branches(visit, &person).await?;
    let page = FormPage {
        chrome: visit.chrome("people"),
        id,
        email,
        user_role: field(fields, "userRole").to_owned(),
        branch_id: field(fields, "branchId").to_owned(),
        disabled: field(fields, "disabled") == "1",
        roles: roles_for(&person, field(fields, "userRole").parse().ok()),
        branches,
        problems: Problems::of_refusal(&answer.json(), &FIELDS),
    };
    html_as(&page, answer.status)
}

/// `POST /console/people/{id}/delete`.
async fn delete(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = super::delete_record(
        &mut visit,
        &fields,
        &id,
        "/v2/admin/users/",
        "/console/people?done=deleted",
    )
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_account_sends_its_credentials_and_a_change_its_disabled_state() {
        let fields: Fields = [
            ("email", " a@b.test "),
            ("password", "a long password"),
            ("userRole", "4"),
            ("branchId", "7"),
            ("disabled", "1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        assert_eq!(
            body_of(&fields, true),
            json!({"email": "a@b.test", "password": "a long password", "userRole": 4, "branchId": 7})
        );
        assert_eq!(
            body_of(&fields, false),
            json!({"userRole": 4, "branchId": 7, "disabled": 1})
        );
        let none: Fields = [("userRole".to_owned(), "x".to_owned())]
            .into_iter()
            .collect();
        assert_eq!(
            body_of(&none, false),
            json!({"userRole": "x", "branchId": null, "disabled": 0})
        );
    }
}
