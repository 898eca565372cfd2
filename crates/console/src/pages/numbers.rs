//! Phone numbers with where their calls go, as the API lists them (paged, searched).

use askama::Template;
use axum::extract::Query;
use axum::response::Response;
use serde_json::Value;

use super::{Chrome, Fields, Paging, field, html, query, tenant_pair};
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
    let search = field(params, "query").trim().to_owned();
    let page_number = field(params, "page").parse::<i64>().unwrap_or(1).max(1);
    let mut pairs = tenant_pair(&person);
    pairs.push(("page", page_number.to_string()));
    pairs.push(("recordsPerPage", "25".to_owned()));
    if !search.is_empty() {
        pairs.push(("query", search.clone()));
    }
    let answer = visit
        .get(&format!("/v2/admin/phone-numbers/?{}", query(&pairs)))
        .await?;
    let rows = answer["records"]
        .as_array()
        .map(|records| {
            records
                .iter()
                .map(|n| Row {
                    id: n["id"].as_i64().unwrap_or_default(),
                    number: n["number"].as_str().unwrap_or_default().to_owned(),
                    destination: destination(&n["destination"]),
                    comment: n["diCommentName"].as_str().unwrap_or_default().to_owned(),
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
        format!("/console/phone-numbers?{}", query(&pairs))
    });
    html(&NumbersPage {
        chrome: visit.chrome("numbers"),
        search,
        rows,
        paging,
    })
}

/// A resolved destination in words: `Extension 201 Front desk`, `External 5551234`.
fn destination(destination: &Value) -> String {
    if destination.is_null() {
        return "routes nowhere".to_owned();
    }
    let kind = match destination["destType"].as_str().unwrap_or_default() {
        "EXT" => "Extension",
        "IVR" => "IVR menu",
        "PAGING_GROUP" => "Paging group",
        "VOICEMAIL" => "Voicemail of",
        "EXTERNAL" => "External number",
        "HANGUP" => "Hang up",
        "QUEUE" => "Queue",
        "BUSINESS_HOURS" => "Business hours",
        other => other,
    };
    [
        Some(kind),
        destination["number"].as_str(),
        destination["name"].as_str(),
    ]
    .into_iter()
    .flatten()
    .filter(|part| !part.is_empty())
    .collect::<Vec<_>>()
    .join(" ")
}
