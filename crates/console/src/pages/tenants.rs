//! The tenant picker of platform and partner admins: the tenants the API lists for them
//! (their scope, paged), the one picked kept in the session and named on every page.
//! Tenant-scoped people have no picker: they act on their own tenant.

use askama::Template;
use axum::Form;
use axum::extract::Query;
use axum::response::{IntoResponse, Redirect, Response};
use serde_json::Value;

use super::account::check_post;
use super::{Chrome, Fields, Paging, field, html, query};
use crate::session::Acting;
use crate::visit::{PageError, PageResult, Visit};

/// A tenant as the list shows it.
struct Row {
    id: i64,
    name: String,
    timezone: String,
}

#[derive(Template)]
#[template(path = "tenants.html")]
struct TenantsPage {
    chrome: Chrome,
    search: String,
    rows: Vec<Row>,
    paging: Paging,
}

/// `GET /console/tenants`.
pub(crate) async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.signed_in().await?;
    if !person.picks_tenant() {
        return Ok(Redirect::to("/console/").into_response());
    }
    let search = field(params, "query").trim().to_owned();
    let page_number = field(params, "page").parse::<i64>().unwrap_or(1).max(1);
    let mut pairs = vec![
        ("page", page_number.to_string()),
        ("recordsPerPage", "25".to_owned()),
        ("sortBy", "name".to_owned()),
    ];
    if !search.is_empty() {
        pairs.push(("query", search.clone()));
    }
    let answer = visit
        .get(&format!("/v2/admin/tenants/?{}", query(&pairs)))
        .await?;
    let rows = answer["records"]
        .as_array()
        .map(|records| {
            records
                .iter()
                .map(|t| Row {
                    id: t["id"].as_i64().unwrap_or(0),
                    name: t["name"].as_str().unwrap_or_default().to_owned(),
                    timezone: t["timezone"].as_str().unwrap_or_default().to_owned(),
                })
                .collect()
        })
        .unwrap_or_default();
    let link_search = search.clone();
    let paging = Paging::of(&answer, |page| {
        let mut pairs = vec![("page", page.to_string())];
        if !link_search.is_empty() {
            pairs.push(("query", link_search.clone()));
        }
        format!("/console/tenants?{}", query(&pairs))
    });
    html(&TenantsPage {
        chrome: visit.chrome("tenants"),
        search,
        rows,
        paging,
    })
}

/// `POST /console/tenants`: acts on the tenant picked, once the API shows it to the
/// person (a tenant outside their scope answers 404 there, and here).
pub(crate) async fn pick(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = pick_page(&mut visit, &fields).await;
    visit.finish(page)
}

async fn pick_page(visit: &mut Visit, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    let mut person = visit.signed_in().await?;
    if !person.picks_tenant() {
        return Ok(Redirect::to("/console/").into_response());
    }
    let id = field(fields, "tenantId")
        .parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or(PageError::NotFound)?;
    let tenant: Value = visit.get(&format!("/v2/admin/tenants/{id}")).await?;
    person.acting = Some(Acting {
        id,
        name: tenant["name"].as_str().unwrap_or_default().to_owned(),
    });
    visit.set_person(person);
    Ok(Redirect::to("/console/").into_response())
}
