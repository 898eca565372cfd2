//! Phone numbers with where their calls go, as the API lists them (paged, searched), and
//! one number's settings a tenant administrator may change — where its calls go (the
//! shared destination picker), the branch it belongs to, the conduit (carrier trunk) its
//! calls arrive on, the extension its texts go to, its comment, caller name and recording
//! and fax switches — saved with `PATCH` (the fields left out of the form are left as they
//! are). The tenant and the number itself never change here: the API keeps that to
//! provisioning.

use askama::Template;
use axum::Form;
use axum::Router;
use axum::extract::{Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use serde_json::{Value, json};

use super::Choice;
use super::check_post;
use super::destinations::{Picked, TargetGroup, in_words, targets};
use super::{
    Chrome, Fields, Listing, Paging, Problems, every, field, html, html_as, record_id, records,
    tenant_pair,
};
use crate::session::Person;
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The phone-number pages' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/phone-numbers", get(list))
        .route("/console/phone-numbers/{id}", get(edit_form).post(update))
}

/// The text fields of the form, by their API names.
const TEXTS: [&str; 4] = [
    "diCommentName",
    "registeredCNAM",
    "namePrefix",
    "storeAndForwardNumber",
];

/// The `yes`/`no` switches of the form (checkboxes), by their API names.
const SWITCHES: [&str; 3] = ["recording", "emailRecording", "fax"];

/// The records the number names by id, each picked in a list: its branch, the conduit
/// its calls arrive on, the extension its texts go to (API names; 0 or null: none).
const LINKS: [&str; 3] = ["branchId", "conduitId", "smsExtId"];

/// Every field the form shows, by its API name: an error about one goes next to it.
const FIELDS: [&str; 13] = [
    "destination",
    "branchId",
    "conduitId",
    "smsExtId",
    "diCommentName",
    "registeredCNAM",
    "namePrefix",
    "storeAndForwardNumber",
    "recording",
    "emailRecording",
    "fax",
    "faxEmail",
    "faxStore",
];

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
    note: Option<&'static str>,
}

/// `GET /console/phone-numbers`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
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
            number: text(&n["number"]),
            destination: in_words(&n["destination"]),
            comment: text(&n["diCommentName"]),
        })
        .collect();
    let paging = listing.paging(&answer);
    html(&NumbersPage {
        chrome: visit.chrome("numbers"),
        search: listing.filter("query").to_owned(),
        rows,
        paging,
        note: (field(params, "done") == "saved").then_some("The phone number is saved."),
    })
}

/// A JSON string, or empty.
fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// One text field of the form: its API name, its label, what it holds.
struct TextField {
    name: &'static str,
    label: &'static str,
    hint: &'static str,
    value: String,
    problem: Option<String>,
}

/// One pick list of the form naming another record of the tenant ([`LINKS`]).
struct Link {
    name: &'static str,
    label: &'static str,
    hint: &'static str,
    /// What "none" reads as.
    none: &'static str,
    choices: Vec<Choice>,
    /// The id picked, or empty for none.
    picked: String,
    problem: Option<String>,
}

/// One `yes`/`no` switch of the form.
struct Switch {
    name: &'static str,
    label: &'static str,
    on: bool,
    problem: Option<String>,
}

#[derive(Template)]
#[template(path = "number_form.html")]
struct FormPage {
    chrome: Chrome,
    id: i64,
    number: String,
    /// Where its calls go as saved, in words.
    routes_to: String,
    picked: Picked,
    groups: Vec<TargetGroup>,
    links: Vec<Link>,
    texts: Vec<TextField>,
    switches: Vec<Switch>,
    fax_email: String,
    fax_store: bool,
    problems: Problems,
}

/// The label and hint of each text field.
fn text_label(name: &str) -> (&'static str, &'static str) {
    match name {
        "diCommentName" => ("Comment", "What the number is for, as the lists show it."),
        "registeredCNAM" => (
            "Caller name (CNAM)",
            "The name callers see, at most 15 characters.",
        ),
        "namePrefix" => (
            "Prefix before the caller's name",
            "Shown to whoever answers, so they know which number was called.",
        ),
        _ => ("Store-and-forward number", "Digits, *, # and +, or empty."),
    }
}

/// The label, hint and "none" of each pick list of [`LINKS`].
fn link_label(name: &str) -> (&'static str, &'static str, &'static str) {
    match name {
        "branchId" => (
            "Branch",
            "The branch it belongs to: its administrators see and manage it.",
            "No branch",
        ),
        "conduitId" => (
            "Arrives on conduit",
            "The carrier trunk or connection its calls come in through.",
            "No conduit",
        ),
        _ => (
            "Texts go to extension",
            "The extension that receives the text messages sent to this number.",
            "Nobody: texts are not delivered",
        ),
    }
}

/// What the number's pick lists offer: the tenant's branches, conduits and extensions,
/// as the API lists them to the person (a list they may not read offers nothing but
/// what is saved).
struct Offer {
    groups: Vec<TargetGroup>,
    branches: Vec<Choice>,
    conduits: Vec<Choice>,
    extensions: Vec<Choice>,
}

async fn offer(visit: &mut Visit, person: &Person) -> Result<Offer, PageError> {
    let groups = targets(visit, person, &[]).await?;
    // The extensions are those the destination picker already read (`EXT:12`).
    let extensions = groups
        .iter()
        .flat_map(|g| &g.targets)
        .filter_map(|t| {
            Some(Choice {
                value: t.value.strip_prefix("EXT:")?.to_owned(),
                label: t.label.clone(),
            })
        })
        .collect();
    let named = |records: Vec<Value>, label: &dyn Fn(&Value) -> String| {
        records
            .iter()
            .map(|r| Choice {
                value: r["id"].as_i64().unwrap_or(0).to_string(),
                label: label(r),
            })
            .collect::<Vec<_>>()
    };
    let branches = named(
        every(visit, person, "/v2/admin/branches/", &[("sortBy", "name")]).await?,
        &|b| text(&b["name"]),
    );
    let conduits = named(
        every(visit, person, "/v2/admin/conduits/", &[("sortBy", "name")]).await?,
        &|c| format!("{} ({})", text(&c["name"]), text(&c["kind"])),
    );
    Ok(Offer {
        groups,
        branches,
        conduits,
        extensions,
    })
}

/// An id of the API's answer as a pick list holds it: empty for none (0 or null).
fn picked_id(value: &Value) -> String {
    value
        .as_i64()
        .filter(|id| *id > 0)
        .map(|id| id.to_string())
        .unwrap_or_default()
}

/// The label of each switch.
fn switch_label(name: &str) -> &'static str {
    match name {
        "recording" => "Record its calls",
        "emailRecording" => "E-mail the recordings",
        _ => "Receive faxes on this number",
    }
}

/// The form's values: `get(name)` of each field, `picked` its destination.
fn form_page(
    chrome: Chrome,
    id: i64,
    saved: &Value,
    picked: Picked,
    offer: Offer,
    get: impl Fn(&str) -> String,
    problems: Problems,
) -> FormPage {
    let Offer {
        groups,
        branches,
        conduits,
        extensions,
    } = offer;
    let mut lists = [branches, conduits, extensions].into_iter();
    let links = LINKS
        .iter()
        .map(|&name| {
            let (label, hint, none) = link_label(name);
            let mut choices = lists.next().unwrap_or_default();
            let picked = get(name);
            // A saved record the person's lists leave out (another branch's extension
            // for a branch administrator) stays picked, by its id.
            if !picked.is_empty() && !choices.iter().any(|c| c.value == picked) {
                choices.push(Choice {
                    value: picked.clone(),
                    label: format!("#{picked}"),
                });
            }
            Link {
                name,
                label,
                hint,
                none,
                choices,
                picked,
                problem: problems.of(name),
            }
        })
        .collect();
    FormPage {
        chrome,
        id,
        number: text(&saved["number"]),
        routes_to: in_words(&saved["destination"]),
        picked,
        groups,
        links,
        texts: TEXTS
            .iter()
            .map(|&name| {
                let (label, hint) = text_label(name);
                TextField {
                    name,
                    label,
                    hint,
                    value: get(name),
                    problem: problems.of(name),
                }
            })
            .collect(),
        switches: SWITCHES
            .iter()
            .map(|&name| Switch {
                name,
                label: switch_label(name),
                on: get(name) == "yes",
                problem: problems.of(name),
            })
            .collect(),
        fax_email: get("faxEmail"),
        fax_store: get("faxStore") == "yes",
        problems,
    }
}

/// `GET /console/phone-numbers/{id}`.
async fn edit_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        let person = visit.acting().await?;
        let number = visit.get(&format!("/v2/admin/phone-numbers/{id}")).await?;
        let offer = offer(&mut visit, &person).await?;
        let page = form_page(
            visit.chrome("numbers"),
            id,
            &number,
            Picked::of_answer(&number["destination"]),
            offer,
            |name| match name {
                "branchId" | "conduitId" | "smsExtId" => picked_id(&number[name]),
                _ => text(&number[name]),
            },
            Problems::default(),
        );
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// The `PATCH` body of the form: the destination (null: routes nowhere), each pick list
/// sent as its id (null: none; anything else as sent, for the API to refuse), the texts as typed,
/// each switch `yes` when ticked and `no` otherwise.
fn body_of(fields: &Fields) -> Value {
    let mut body = json!({
        "destination": Picked::of_form(fields, "destination").body(),
        "faxEmail": field(fields, "faxEmail").trim(),
        "faxStore": yes_no(fields, "faxStore"),
    });
    for name in TEXTS {
        body[name] = json!(field(fields, name).trim());
    }
    for name in SWITCHES {
        body[name] = json!(yes_no(fields, name));
    }
    // A pick list the form did not send is left as saved; "none" sent clears it.
    for name in LINKS.into_iter().filter(|name| fields.contains_key(*name)) {
        body[name] = match field(fields, name).trim() {
            "" => Value::Null,
            picked => picked
                .parse::<i64>()
                .map_or_else(|_| json!(picked), |id| json!(id)),
        };
    }
    body
}

/// A checkbox as the API's `yes`/`no`.
fn yes_no(fields: &Fields, name: &str) -> &'static str {
    if field(fields, name) == "yes" {
        "yes"
    } else {
        "no"
    }
}

/// `POST /console/phone-numbers/{id}`: saves the number's settings.
async fn update(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = save(&mut visit, &id, &fields).await;
    visit.finish(page)
}

async fn save(visit: &mut Visit, id: &str, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    let id = record_id(id)?;
    let person: Person = visit.acting().await?;
    let answer = visit
        .call(
            Method::PATCH,
            &format!("/v2/admin/phone-numbers/{id}"),
            Some(body_of(fields)),
        )
        .await?;
    if answer.status.is_success() {
        return Ok(Redirect::to("/console/phone-numbers?done=saved").into_response());
    }
    if !answer.status.is_client_error()
        || answer.status == StatusCode::NOT_FOUND
        || answer.status == StatusCode::FORBIDDEN
    {
        return Err(refusal(&answer));
    }
    let problems = Problems::of_refusal(&answer.json(), &FIELDS);
    let saved = visit.get(&format!("/v2/admin/phone-numbers/{id}")).await?;
    let offer = offer(visit, &person).await?;
    let page = form_page(
        visit.chrome("numbers"),
        id,
        &saved,
        Picked::of_form(fields, "destination"),
        offer,
        |name| match name {
            // An unticked box is absent from the form: `no`.
            "recording" | "emailRecording" | "fax" | "faxStore" => yes_no(fields, name).to_owned(),
            _ => field(fields, name).to_owned(),
        },
        problems,
    );
    html_as(&page, answer.status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_becomes_the_apis_patch() {
        let fields: Fields = [
            ("destination", "IVR:3"),
            ("destination-number", ""),
            ("diCommentName", " Main line "),
            ("recording", "yes"),
            ("faxEmail", ""),
            ("branchId", "4"),
            ("conduitId", ""),
            ("smsExtId", " 12 "),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let body = body_of(&fields);
        assert_eq!(body["destination"], json!({"destType": "IVR", "id": 3}));
        assert_eq!(body["diCommentName"], "Main line");
        assert_eq!(body["recording"], "yes");
        assert_eq!(body["fax"], "no");
        assert_eq!(body["faxStore"], "no");
        assert_eq!(body["branchId"], 4);
        assert_eq!(body["conduitId"], Value::Null, "none picked: none");
        assert_eq!(body["smsExtId"], 12);
        // Nothing picked: the number routes nowhere; a pick list not sent stays as saved.
        let empty = body_of(&Fields::new());
        assert_eq!(empty["destination"], Value::Null);
        assert!(empty.get("branchId").is_none(), "{empty}");
    }
}
