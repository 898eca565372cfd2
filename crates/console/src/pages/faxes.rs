//! Faxes: those sent and received, paged and filtered by direction and status, with each
//! one's attempts; a fax sent from one of the tenant's fax lines (a PDF or TIFF uploaded
//! and posted to the API as its multipart form), and a failed one retried with the API's
//! retry. Which document, line and recipient are acceptable is the API's to say. The
//! tenant's automatic retry policy (attempts, the wait between them, the result codes
//! worth another attempt) is read and set on a page of its own, reached from the list.

use askama::Template;
use axum::Form;
use axum::Router;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::extract::{DefaultBodyLimit, Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::check_post;
use super::uploads::{Upload, multipart_body, read_multipart};
use super::{
    Chrome, Fields, Listing, Paging, Problems, every, field, for_acting_tenant, html, html_as,
    item_error, number_or_text, query, record_id, records, tenant_pair, text,
};
use crate::session::Person;
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The console's fax routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route(
            "/console/faxes",
            get(list)
                .post(send)
                .layer(DefaultBodyLimit::max(UPLOAD_LIMIT)),
        )
        .route("/console/faxes/new", get(new_form))
        .route("/console/faxes/{id}/retry", post(retry))
        .route(
            "/console/faxes/retry-policy",
            get(policy_page).post(set_policy),
        )
}

/// The largest form the send page takes: the API's largest document (20 MiB) and the
/// form around it.
const UPLOAD_LIMIT: usize = 21 * 1024 * 1024;

/// The send form's fields, by their API names.
const FIELDS: [&str; 3] = ["from", "to", "document"];

/// A fax as the list shows it.
struct Row {
    id: i64,
    time: String,
    direction: &'static str,
    from: String,
    to: String,
    pages: i64,
    status: String,
    attempts: usize,
    /// The last attempt's outcome and message, when there is one.
    last_attempt: String,
    document: Option<String>,
    retryable: bool,
}

#[derive(Template)]
#[template(path = "faxes.html")]
struct ListPage {
    chrome: Chrome,
    direction: String,
    status: String,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

/// `GET /console/faxes`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing = Listing::new("/console/faxes", params)
        .with("direction", field(params, "direction"))
        .with("status", field(params, "status"));
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "time".to_owned()));
    order.push(("sortDirection", "desc".to_owned()));
    let answer = visit.get(&listing.api("/v2/admin/faxes", order)).await?;
    let rows = records(&answer).iter().map(row_of).collect();
    let paging = listing.paging(&answer);
    let note = match field(params, "done") {
        "sent" => Some("The fax is queued to be sent."),
        "retried" => Some("The fax is queued to be sent again."),
        _ => None,
    };
    html(&ListPage {
        chrome: visit.chrome("faxes"),
        direction: listing.filter("direction").to_owned(),
        status: listing.filter("status").to_owned(),
        rows,
        paging,
        note,
    })
}

/// A fax of the API as a row.
fn row_of(fax: &Value) -> Row {
    let attempts = fax["attempts"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let last_attempt = attempts
        .last()
        .map(|a| {
            [
                a["outcome"].as_str(),
                a["resultCode"].as_str(),
                a["message"].as_str(),
            ]
            .into_iter()
            .flatten()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(", ")
        })
        .unwrap_or_default();
    let outbound = fax["direction"] == "outbound";
    Row {
        id: fax["id"].as_i64().unwrap_or(0),
        time: text(&fax["time"]),
        direction: if outbound { "sent" } else { "received" },
        from: text(&fax["from"]),
        to: text(&fax["to"]),
        pages: fax["pages"].as_i64().unwrap_or(0),
        status: text(&fax["status"]),
        attempts: attempts.len(),
        last_attempt,
        document: fax["documentURL"].as_str().map(str::to_owned),
        // A failed fax sent out is offered a retry; the API judges it again.
        retryable: outbound && fax["status"] == "failed",
    }
}

/// A fax line of the tenant.
struct Line {
    number: String,
    label: String,
}

#[derive(Template)]
#[template(path = "fax_form.html")]
struct SendPage {
    chrome: Chrome,
    lines: Vec<Line>,
    from: String,
    to: String,
    problems: Problems,
}

/// The tenant's fax lines, as the API lists them to the person.
async fn lines(visit: &mut Visit, person: &Person) -> Result<Vec<Line>, PageError> {
    Ok(
        every(visit, person, "/v2/admin/phone-numbers/", &[("fax", "1")])
            .await?
            .iter()
            .map(|n| {
                let number = text(&n["number"]);
                let comment = text(&n["diCommentName"]);
                Line {
                    label: if comment.is_empty() {
                        number.clone()
                    } else {
                        format!("{number} {comment}")
                    },
                    number,
                }
            })
            .collect(),
    )
}

/// `GET /console/faxes/new`.
async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        let person = visit.acting().await?;
        let lines = lines(&mut visit, &person).await?;
        let from = lines.first().map(|l| l.number.clone()).unwrap_or_default();
        html(&SendPage {
            chrome: visit.chrome("faxes"),
            lines,
            from,
            to: String::new(),
            problems: Problems::default(),
        })
    }
    .await;
    visit.finish(page)
}

/// `POST /console/faxes`: the uploaded document posted to the API with the line and
/// the recipient; a refusal shows each broken field, what was typed kept.
async fn send(mut visit: Visit, form: Result<Multipart, MultipartRejection>) -> Response {
    let page = async {
        let (fields, uploads) = read_multipart(form).await?;
        check_post(&visit, &fields)?;
        let person = visit.acting().await?;
        let tenant = tenant_pair(&person);
        let mut texts: Vec<(&str, &str)> = vec![
            ("from", field(&fields, "from").trim()),
            ("to", field(&fields, "to").trim()),
        ];
        if let Some((name, id)) = tenant.first() {
            texts.push((name, id.as_str()));
        }
        let files: Vec<&Upload> = uploads.iter().filter(|u| u.name == "document").collect();
        let (content_type, body) = multipart_body(&texts, &files);
        let answer = visit
            .call_with(Method::POST, "/v2/admin/faxes", &content_type, body)
            .await?;
        if answer.status.is_success() {
            return Ok(Redirect::to("/console/faxes?done=sent").into_response());
        }
        if !answer.status.is_client_error() || answer.status == StatusCode::NOT_FOUND {
            return Err(refusal(&answer));
        }
        let mut problems = Problems::of_refusal(&answer.json(), &FIELDS);
        // What the document is (no PDF, no TIFF) is answered as an unsupported type: it
        // is about the document field.
        if answer.status == StatusCode::UNSUPPORTED_MEDIA_TYPE {
            let messages = std::mem::take(&mut problems.general);
            problems.fields.insert("document".to_owned(), messages);
        }
        let lines = lines(&mut visit, &person).await?;
        html_as(
            &SendPage {
                chrome: visit.chrome("faxes"),
                lines,
                from: field(&fields, "from").to_owned(),
                to: field(&fields, "to").to_owned(),
                problems,
            },
            answer.status,
        )
    }
    .await;
    visit.finish(page)
}

/// `POST /console/faxes/{id}/retry`: the API's retry of a failed fax (it refuses one that
/// is not failed, or whose document is gone, in its own words).
async fn retry(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        visit.acting().await?;
        let answer = visit
            .call(
                Method::POST,
                &format!("/v2/admin/faxes/{id}/retry"),
                Some(serde_json::json!({})),
            )
            .await?;
        if !answer.status.is_success() {
            return Err(refusal(&answer));
        }
        Ok(Redirect::to("/console/faxes?done=retried").into_response())
    }
    .await;
    visit.finish(page)
}

/// The retry policy form's fields, by their API names.
const POLICY_FIELDS: [&str; 3] = ["maxAttempts", "delaySeconds", "retryCodes"];

/// What the retry policy form holds: the saved policy, or what was typed.
struct PolicyForm {
    max_attempts: String,
    delay_seconds: String,
    /// One result code a line.
    retry_codes: String,
}

#[derive(Template)]
#[template(path = "fax_retry_policy.html")]
struct PolicyPage {
    chrome: Chrome,
    form: PolicyForm,
    problems: Problems,
    note: Option<&'static str>,
}

/// `GET /console/faxes/retry-policy`: the tenant's policy as the API answers it (its
/// default until one is set).
async fn policy_page(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = async {
        let person = visit.acting().await?;
        let mut path = "/v2/admin/faxes/retry-policy".to_owned();
        let tenant = tenant_pair(&person);
        if !tenant.is_empty() {
            path = format!("{path}?{}", query(&tenant));
        }
        let policy = visit.get(&path).await?;
        let codes: Vec<String> = policy["retryCodes"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(text)
            .collect();
        html(&PolicyPage {
            chrome: visit.chrome("faxes"),
            form: PolicyForm {
                max_attempts: policy["maxAttempts"].to_string(),
                delay_seconds: policy["delaySeconds"].to_string(),
                retry_codes: codes.join("\n"),
            },
            problems: Problems::default(),
            note: (field(&params, "done") == "saved").then_some("The retry policy is saved."),
        })
    }
    .await;
    visit.finish(page)
}

/// The result codes typed, one a line (commas separate them too); blank ones left out.
fn codes_of(typed: &str) -> Vec<&str> {
    typed
        .split(['\n', ','])
        .map(str::trim)
        .filter(|code| !code.is_empty())
        .collect()
}

/// The `PUT` body of the form: numbers as numbers, anything else as typed for the API
/// to refuse in its words; an empty number left out (the API says it is required).
fn policy_body(fields: &Fields) -> Value {
    let mut body = json!({"retryCodes": codes_of(field(fields, "retryCodes"))});
    for name in ["maxAttempts", "delaySeconds"] {
        if let Some(value) = number_or_text(field(fields, name)) {
            body[name] = value;
        }
    }
    body
}

/// The problems of a refused policy, each next to its field; an error about one result
/// code (`'body/retryCodes/2' …`) names the code, since all of them share one field.
fn policy_problems(refusal: &Value, codes: &[&str]) -> Problems {
    let mut refusal = refusal.clone();
    if let Some(errors) = refusal["validationErrors"].as_array_mut() {
        for error in errors.iter_mut() {
            let Some((index, _, message)) =
                error.as_str().and_then(|e| item_error(e, "retryCodes"))
            else {
                continue;
            };
            let code = codes.get(index).copied().unwrap_or_default();
            *error = json!(format!("'body/retryCodes' the code \"{code}\" {message}"));
        }
    }
    Problems::of_refusal(&refusal, &POLICY_FIELDS)
}

/// `POST /console/faxes/retry-policy`: the policy sent to the API; a refusal shows each
/// broken field, what was typed kept, with the API's status.
async fn set_policy(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let person = visit.acting().await?;
        let mut body = policy_body(&fields);
        for_acting_tenant(&person, &mut body);
        let answer = visit
            .call(Method::PUT, "/v2/admin/faxes/retry-policy", Some(body))
            .await?;
        if answer.status.is_success() {
            return Ok(Redirect::to("/console/faxes/retry-policy?done=saved").into_response());
        }
        // A 403 is about the person, never a field: the API's refusal page.
        if !answer.status.is_client_error()
            || matches!(answer.status, StatusCode::NOT_FOUND | StatusCode::FORBIDDEN)
        {
            return Err(refusal(&answer));
        }
        let typed = field(&fields, "retryCodes");
        html_as(
            &PolicyPage {
                chrome: visit.chrome("faxes"),
                form: PolicyForm {
                    max_attempts: field(&fields, "maxAttempts").to_owned(),
                    delay_seconds: field(&fields, "delaySeconds").to_owned(),
                    retry_codes: typed.to_owned(),
                },
                problems: policy_problems(&answer.json(), &codes_of(typed)),
                note: None,
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
    fn the_policy_form_becomes_the_apis_body() {
        let body = policy_body(&fields(&[
            ("maxAttempts", " 4 "),
            ("delaySeconds", "two minutes"),
            ("retryCodes", "busy\r\n\r\nno-answer, line-error\n"),
        ]));
        assert_eq!(
            body,
            json!({"maxAttempts": 4, "delaySeconds": "two minutes", "retryCodes": ["busy", "no-answer", "line-error"]})
        );
        // Empty: no codes (every failure retried), the numbers left for the API to ask for.
        let body = policy_body(&fields(&[("maxAttempts", ""), ("retryCodes", " \n ")]));
        assert_eq!(body, json!({"retryCodes": []}));
    }

    #[test]
    fn an_error_about_one_code_names_it() {
        let refusal = json!({"validationErrors": [
            "'body/retryCodes/1' must be at most 64 characters",
            "'body/maxAttempts' must be at most 10",
        ]});
        let problems = policy_problems(&refusal, &["busy", "xxxx"]);
        assert_eq!(
            problems.of("retryCodes").as_deref(),
            Some("the code \"xxxx\" must be at most 64 characters")
        );
        assert_eq!(
            problems.of("maxAttempts").as_deref(),
            Some("must be at most 10")
        );
        assert!(problems.general.is_empty());
    }
}
