//! Phone numbers with where their calls go, as the API lists them (paged, searched).

use askama::Template;
use axum::extract::Query;
use axum::response::Response;

use super::{Chrome, Fields, Listing, Paging, field, html, records, tenant_pair};
use crate::visit::{PageResult, Visit};

/// A number as the list shows it.
struct Row {
    id: i64,
    number: String,
    destination: String,
    comment: String,
}

#[derive(Template)]
#[template(path = "numbers.html")]
struct NumbersPage {
    chrome: Chrome,
    search: String,
    rows: Vec<Row>,
    paging: Paging,
}

/// `GET /console/phone-numbers`.
pub(crate) async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing =
        Listing::new("/console/phone-numbers", params).with("query", field(params, "query"));
    let answer = visit
        .get(&listing.api("/v2/admin/phone-numbers/", tenant_pair(&person)))
        .await?;
    let rows = records(&answer)
        .iter()
        .map(|n| Row {
            id: n["id"].as_i64().unwrap_or_default(),
            number: n["number"].as_str().unwrap_or_default().to_owned(),
            destination: super::destinations::in_words(&n["destination"]),
            comment: n["diCommentName"].as_str().unwrap_or_default().to_owned(),
        })
        .collect();
    let paging = listing.paging(&answer);
    html(&NumbersPage {
        chrome: visit.chrome("numbers"),
        search: listing.filter("query").to_owned(),
        rows,
        paging,
    })
}
