//! The voicemail inbox: the tenant's messages as the API lists them (paged, newest
//! first, unread or read), each with a player of `/console/voicemail/{id}/audio` (the
//! message's audio streamed with byte ranges from either store, [`Visit::play`]), marked
//! read or unread through the API.

use askama::Template;
use axum::Form;
use axum::extract::{Path, Query};
use axum::http::Method;
use axum::response::{IntoResponse, Redirect, Response};
use serde_json::json;

use super::check_post;
use super::{Chrome, Fields, Listing, Paging, field, html, query, record_id, records, tenant_pair};
use crate::visit::{PageError, PageResult, Visit, refusal};

/// A message as the inbox shows it.
struct Row {
    id: i64,
    caller: String,
    mailbox: String,
    date: String,
    duration: i64,
    read: bool,
    media: String,
    transcript: String,
}

#[derive(Template)]
#[template(path = "voicemail.html")]
struct InboxPage {
    chrome: Chrome,
    /// `""` all, `"0"` unread, `"1"` read.
    read_filter: String,
    rows: Vec<Row>,
    paging: Paging,
    unread: i64,
}

/// `GET /console/voicemail`.
pub(crate) async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let read_filter = match field(params, "read") {
        "0" => "0",
        "1" => "1",
        _ => "",
    };
    let listing = Listing::new("/console/voicemail", params).with("read", read_filter);
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "dateUnix".to_owned()));
    order.push(("sortDirection", "desc".to_owned()));
    order.push(("stats", "1".to_owned()));
    let answer = visit
        .get(&listing.api("/v2/admin/voicemail-messages/", order))
        .await?;
    let rows = records(&answer)
        .iter()
        .map(|m| {
            let text = |key: &str| m[key].as_str().unwrap_or_default().to_owned();
            Row {
                id: m["id"].as_i64().unwrap_or(0),
                caller: text("callerId"),
                mailbox: text("mailboxUser"),
                date: text("date"),
                duration: m["duration"].as_i64().unwrap_or(0),
                read: m["read"].as_bool().unwrap_or(false) || m["read"] == 1,
                media: if text("mediaURL").is_empty() {
                    String::new()
                } else {
                    format!("/console/voicemail/{}/audio", m["id"].as_i64().unwrap_or(0))
                },
                transcript: text("transcript"),
            }
        })
        .collect();
    // The statistics are the filter's: the unread count of the whole inbox is asked
    // without it when a filter is on.
    let unread = if read_filter.is_empty() {
        answer["stats"]["unread"].as_i64().unwrap_or(0)
    } else {
        let mut pairs = tenant_pair(&person);
        pairs.push(("recordsPerPage", "1".to_owned()));
        pairs.push(("stats", "1".to_owned()));
        let all = visit
            .get(&format!("/v2/admin/voicemail-messages/?{}", query(&pairs)))
            .await?;
        all["stats"]["unread"].as_i64().unwrap_or(0)
    };
    let paging = listing.paging(&answer);
    html(&InboxPage {
        chrome: visit.chrome("voicemail"),
        read_filter: read_filter.to_owned(),
        rows,
        paging,
        unread,
    })
}

/// `GET /console/voicemail/{id}/audio`: the message's audio, read through the API with
/// the person's token (only a message they may see; reading it marks nothing) and
/// streamed with byte ranges ([`Visit::play`]).
pub(crate) async fn audio(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        visit.acting().await?;
        let message = visit
            .get(&format!("/v2/admin/voicemail-messages/{id}"))
            .await?;
        let link = message["mediaURL"]
            .as_str()
            .filter(|url| !url.is_empty())
            .ok_or(PageError::NotFound)?
            .to_owned();
        visit.play(&link).await
    }
    .await;
    visit.finish(page)
}

/// `POST /console/voicemail/{id}`: marks a message read (`read=1`) or unread (`read=0`).
pub(crate) async fn mark(
    mut visit: Visit,
    Path(id): Path<String>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        visit.acting().await?;
        let read = field(&fields, "read") == "1";
        let answer = visit
            .call(
                Method::PATCH,
                &format!("/v2/admin/voicemail-messages/{id}"),
                Some(json!({"read": read})),
            )
            .await?;
        if !answer.status.is_success() {
            return Err(refusal(&answer));
        }
        let back = match field(&fields, "filter") {
            "0" => "/console/voicemail?read=0",
            "1" => "/console/voicemail?read=1",
            _ => "/console/voicemail",
        };
        Ok(Redirect::to(back).into_response())
    }
    .await;
    visit.finish(page)
}
