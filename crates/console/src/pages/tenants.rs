//! The tenant picker of platform and partner admins: the tenants the API lists for them
//! (their scope, paged), the one picked kept in the session and named on every page.
//! Tenant-scoped people have no picker: they act on their own tenant.

use askama::Template;
use axum::Form;
use axum::extract::Query;
use axum::response::{IntoResponse, Redirect, Response};
use serde_json::Value;

use super::check_post;
use super::{Chrome, Fields, Listing, Paging, field, html, records};
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
    let listing = Listing::new("/console/tenants", params).with("query", field(params, "query"));
    let answer = visit
        .get(&listing.api("/v2/admin/tenants/", vec![("sortBy", "name".to_owned())]))
        .await?;
    let rows = records(&answer)
        .iter()
        .map(|t| Row {
            id: t["id"].as_i64().unwrap_or(0),
            name: t["name"].as_str().unwrap_or_default().to_owned(),
            timezone: t["timezone"].as_str().unwrap_or_default().to_owned(),
        })
        .collect();
    let paging = listing.paging(&answer);
    html(&TenantsPage {
        chrome: visit.chrome("tenants"),
        search: listing.filter("query").to_owned(),
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
