//! IVR menus: listed with the API's paging and search, created, edited and deleted through
//! the API. The form holds the whole menu — a greeting picked from the tenant's media files
//! and announcements, one destination per key (0–9, *, #; none is a key unused), the
//! timeout and invalid paths — and is sent as one body, so a refused form comes back with
//! every broken field named at once, a key's problem next to that key.

use askama::Template;
use axum::Form;
use axum::Router;
use axum::extract::{Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use switchboard_domain::records::ivr::MenuKey;

use super::check_post;
use super::destinations::{Picked, TargetGroup, in_words, targets};
use super::{
    Chrome, Fields, Listing, Paging, Problems, every, field, html, html_as, record_id, records,
    tenant_pair,
};
use crate::session::Person;
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The IVR pages' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/ivrs", get(list).post(create))
        .route("/console/ivrs/new", get(new_form))
        .route("/console/ivrs/{id}", get(edit_form).post(update))
        .route("/console/ivrs/{id}/delete", post(delete))
}

/// The fields the form shows by their API names (the greeting's two ids are one field,
/// `greeting`; the keys are `key-0` … `key-hash`).
const FIELDS: [&str; 9] = [
    "name",
    "number",
    "greetingMediaFileId",
    "greetingAnnouncementId",
    "timeoutSeconds",
    "timeoutDestination",
    "invalidRetries",
    "invalidDestination",
    "directDial",
];

/// The menu's keys in the API's order, each with the form field holding its destination
/// (`*` and `#` spelled out: they are no good in an element id).
const KEYS: [(&str, &str); MenuKey::ALL.len()] = [
    (MenuKey::Zero.as_str(), "key-0"),
    (MenuKey::One.as_str(), "key-1"),
    (MenuKey::Two.as_str(), "key-2"),
    (MenuKey::Three.as_str(), "key-3"),
    (MenuKey::Four.as_str(), "key-4"),
    (MenuKey::Five.as_str(), "key-5"),
    (MenuKey::Six.as_str(), "key-6"),
    (MenuKey::Seven.as_str(), "key-7"),
    (MenuKey::Eight.as_str(), "key-8"),
    (MenuKey::Nine.as_str(), "key-9"),
    (MenuKey::Star.as_str(), "key-star"),
    (MenuKey::Hash.as_str(), "key-hash"),
];

/// One thing a sound picker may pick: its value in the form and its label.
pub(crate) struct Choice {
    /// `media:4`, `announcement:2`, `moh:1`: the kind and the record's id.
    pub value: String,
    /// What the person reads.
    pub label: String,
}

/// The choices of one kind, for an `<optgroup>`.
pub(crate) struct ChoiceGroup {
    /// The kind in words.
    pub label: &'static str,
    /// Its choices, in the order the API lists them.
    pub choices: Vec<Choice>,
}

/// The records of the API list `endpoint` (every page) as choices `prefix:id` named by
/// their `name`; empty when the person may not list them (the API leaves them out).
pub(crate) async fn choices(
    visit: &mut Visit,
    person: &Person,
    endpoint: &str,
    prefix: &str,
    label: &'static str,
) -> Result<ChoiceGroup, PageError> {
    let choices = every(visit, person, endpoint, &[])
        .await?
        .iter()
        .filter_map(|record| {
            Some(Choice {
                value: format!("{prefix}:{}", record["id"].as_i64()?),
                label: text(&record["name"]),
            })
        })
        .collect();
    Ok(ChoiceGroup { label, choices })
}

/// The label of the choice `value` among `groups`, or empty.
pub(crate) fn label_of(groups: &[ChoiceGroup], value: &str) -> String {
    groups
        .iter()
        .flat_map(|group| &group.choices)
        .find(|choice| choice.value == value)
        .map(|choice| choice.label.clone())
        .unwrap_or_default()
}

/// A number typed in a form as the API's JSON: the number, or what was typed (even
/// nothing) for the API to refuse in its own words.
pub(crate) fn integer_of(typed: &str) -> Value {
    let typed = typed.trim();
    typed
        .parse::<i64>()
        .map_or_else(|_| json!(typed), |number| json!(number))
}

/// A JSON string, or empty.
fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// A JSON number as a form field shows it, or empty.
fn number_text(value: &Value) -> String {
    value.as_i64().map(|n| n.to_string()).unwrap_or_default()
}

/// One key of a menu as the list shows it.
struct KeyWords {
    digit: String,
    words: String,
}

/// An IVR as the list shows it.
struct Row {
    id: i64,
    number: String,
    name: String,
    greeting: String,
    keys: Vec<KeyWords>,
    timeout: String,
    invalid: String,
}

#[derive(Template)]
#[template(path = "ivrs.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

/// One key of the form.
struct KeyRow {
    /// The key: `0`…`9`, `*`, `#`.
    digit: &'static str,
    /// Its form field (`key-1`).
    field: &'static str,
    /// Its picker's label.
    label: String,
    /// Where it sends the caller (none: the key is unused).
    picked: Picked,
    /// What the API said is wrong with it.
    problem: Option<String>,
}

#[derive(Template)]
#[template(path = "ivr_form.html")]
struct FormPage {
    chrome: Chrome,
    /// `None` for a new menu.
    id: Option<i64>,
    name: String,
    number: String,
    /// `media:4`, `announcement:2`, or empty for none.
    greeting: String,
    greetings: Vec<ChoiceGroup>,
    keys: Vec<KeyRow>,
    timeout_seconds: String,
    timeout: Picked,
    invalid_retries: String,
    invalid: Picked,
    direct_dial: bool,
    /// The targets a destination may pick.
    groups: Vec<TargetGroup>,
    problems: Problems,
}

/// The greetings the person may pick: the tenant's media files and announcements.
async fn greetings(visit: &mut Visit, person: &Person) -> Result<Vec<ChoiceGroup>, PageError> {
    Ok(vec![
        choices(
            visit,
            person,
            "/v2/admin/media-files/",
            "media",
            "Media files",
        )
        .await?,
        choices(
            visit,
            person,
            "/v2/admin/announcements/",
            "announcement",
            "Announcements",
        )
        .await?,
    ])
}

/// The greeting an API answer holds, as the form's value.
fn greeting_of(ivr: &Value) -> String {
    match (
        ivr["greetingMediaFileId"].as_i64().unwrap_or(0),
        ivr["greetingAnnouncementId"].as_i64().unwrap_or(0),
    ) {
        (media, _) if media > 0 => format!("media:{media}"),
        (_, announcement) if announcement > 0 => format!("announcement:{announcement}"),
        _ => String::new(),
    }
}

/// `GET /console/ivrs`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing = Listing::new("/console/ivrs", params).with("query", field(params, "query"));
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "number".to_owned()));
    let answer = visit.get(&listing.api("/v2/admin/ivrs/", order)).await?;
    let greetings = greetings(visit, &person).await?;
    let rows = records(&answer)
        .iter()
        .map(|ivr| Row {
            id: ivr["id"].as_i64().unwrap_or(0),
            number: text(&ivr["number"]),
            name: text(&ivr["name"]),
            greeting: label_of(&greetings, &greeting_of(ivr)),
            keys: ivr["options"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(|option| KeyWords {
                    digit: text(&option["digit"]),
                    words: in_words(&option["destination"]),
                })
                .collect(),
            timeout: in_words(&ivr["timeoutDestination"]),
            invalid: in_words(&ivr["invalidDestination"]),
        })
        .collect();
    let paging = listing.paging(&answer);
    let note = match field(params, "done") {
        "created" => Some("The IVR menu is created."),
        "updated" => Some("The IVR menu is saved."),
        "deleted" => Some("The IVR menu is deleted."),
        _ => None,
    };
    html(&ListPage {
        chrome: visit.chrome("ivrs"),
        search: listing.filter("query").to_owned(),
        rows,
        paging,
        note,
    })
}

/// The keys of the form, each picking what `pick(field)` says.
fn key_rows(mut pick: impl FnMut(&'static str, &'static str) -> Picked) -> Vec<KeyRow> {
    KEYS.iter()
        .map(|&(digit, field)| KeyRow {
            digit,
            field,
            label: format!("Key {digit} sends the caller to"),
            picked: pick(digit, field),
            problem: None,
        })
        .collect()
}

/// `GET /console/ivrs/new`: an empty menu with the API's defaults filled in.
async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        let person = visit.acting().await?;
        let greetings = greetings(&mut visit, &person).await?;
        let groups = targets(&mut visit, &person, &[]).await?;
        html(&FormPage {
            chrome: visit.chrome("ivrs"),
            id: None,
            name: String::new(),
            number: String::new(),
            greeting: String::new(),
            greetings,
            keys: key_rows(|_, _| Picked::default()),
            timeout_seconds: "10".to_owned(),
            timeout: Picked::default(),
            invalid_retries: "3".to_owned(),
            invalid: Picked::default(),
            direct_dial: false,
            groups,
            problems: Problems::default(),
        })
    }
    .await;
    visit.finish(page)
}

/// `GET /console/ivrs/{id}`.
async fn edit_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        let person = visit.acting().await?;
        let ivr = visit.get(&format!("/v2/admin/ivrs/{id}")).await?;
        let greetings = greetings(&mut visit, &person).await?;
        let groups = targets(&mut visit, &person, &[]).await?;
        let options = ivr["options"].as_array().cloned().unwrap_or_default();
        html(&FormPage {
            chrome: visit.chrome("ivrs"),
            id: Some(id),
            name: text(&ivr["name"]),
            number: text(&ivr["number"]),
            greeting: greeting_of(&ivr),
            greetings,
            keys: key_rows(|digit, _| {
                options
                    .iter()
                    .find(|option| option["digit"] == digit)
                    .map(|option| Picked::of_answer(&option["destination"]))
                    .unwrap_or_default()
            }),
            timeout_seconds: number_text(&ivr["timeoutSeconds"]),
            timeout: Picked::of_answer(&ivr["timeoutDestination"]),
            invalid_retries: number_text(&ivr["invalidRetries"]),
            invalid: Picked::of_answer(&ivr["invalidDestination"]),
            direct_dial: ivr["directDial"].as_i64() == Some(1),
            groups,
            problems: Problems::default(),
        })
    }
    .await;
    visit.finish(page)
}

/// The body the form's fields make, and the key of each option sent (in the order sent:
/// the API's errors name an option by its place in the body).
fn body_of(fields: &Fields) -> (Value, Vec<&'static str>) {
    let mut sent = Vec::new();
    let options: Vec<Value> = KEYS
        .iter()
        .filter_map(|&(digit, name)| {
            let destination = Picked::of_form(fields, name).body()?;
            sent.push(digit);
            Some(json!({"digit": digit, "destination": destination}))
        })
        .collect();
    let greeting = field(fields, "greeting").trim();
    let id_of = |prefix: &str| greeting.strip_prefix(prefix).map_or(json!(0), integer_of);
    let body = json!({
        "name": field(fields, "name").trim(),
        "number": field(fields, "number").trim(),
        "greetingMediaFileId": id_of("media:"),
        "greetingAnnouncementId": id_of("announcement:"),
        "options": options,
        "timeoutSeconds": integer_of(field(fields, "timeoutSeconds")),
        "timeoutDestination": Picked::of_form(fields, "timeoutDestination").body(),
        "invalidRetries": integer_of(field(fields, "invalidRetries")),
        "invalidDestination": Picked::of_form(fields, "invalidDestination").body(),
        "directDial": i64::from(field(fields, "directDial") == "1"),
    });
    (body, sent)
}

/// `'body/options/3/destination/id' must …` → (3, `must …`): an error about the option at
/// place 3 of the body; one about the menu as a whole is none.
fn option_error(error: &str) -> Option<(usize, String)> {
    let (index, path, message) = super::item_error(error, "options")?;
    let message = match path.rsplit('/').next() {
        Some("number") => format!("the outside number {message}"),
        _ => message.to_owned(),
    };
    Some((index, message))
}

/// What the API said of a refused body, each problem next to its field: the greeting's
/// two ids to the greeting, an option's to its key.
fn problems_of(answer: &Value, sent: &[&'static str], keys: &mut [KeyRow]) -> Problems {
    let mut problems = Problems::of_refusal(answer, &FIELDS);
    for id in ["greetingMediaFileId", "greetingAnnouncementId"] {
        if let Some(messages) = problems.fields.remove(id) {
            problems
                .fields
                .entry("greeting".to_owned())
                .or_default()
                .extend(messages);
        }
    }
    problems.general.retain(|error| {
        let Some((index, message)) = option_error(error) else {
            return true;
        };
        let Some(key) = sent
            .get(index)
            .and_then(|digit| keys.iter_mut().find(|key| key.digit == *digit))
        else {
            return true;
        };
        key.problem = Some(match key.problem.take() {
            Some(before) => format!("{before}; {message}"),
            None => message,
        });
        false
    });
    problems
}

/// `POST /console/ivrs`: creates one.
async fn create(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = save(&mut visit, None, &fields).await;
    visit.finish(page)
}

/// `POST /console/ivrs/{id}`: saves one.
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
    let (mut body, sent) = body_of(fields);
    let answer = match id {
        None => {
            super::for_acting_tenant(&person, &mut body);
            visit
                .call(Method::POST, "/v2/admin/ivrs/", Some(body))
                .await?
        }
        Some(id) => {
            visit
                .call(Method::PATCH, &format!("/v2/admin/ivrs/{id}"), Some(body))
                .await?
        }
    };
    if answer.status.is_success() {
        let done = if id.is_some() { "updated" } else { "created" };
        return Ok(Redirect::to(&format!("/console/ivrs?done={done}")).into_response());
    }
    if !answer.status.is_client_error()
        || answer.status == StatusCode::NOT_FOUND
        || answer.status == StatusCode::FORBIDDEN
    {
        return Err(refusal(&answer));
    }
    let mut keys = key_rows(|_, name| Picked::of_form(fields, name));
    let problems = problems_of(&answer.json(), &sent, &mut keys);
    let greetings = greetings(visit, &person).await?;
    let groups = targets(visit, &person, &[]).await?;
    let page = FormPage {
        chrome: visit.chrome("ivrs"),
        id,
        name: field(fields, "name").to_owned(),
        number: field(fields, "number").to_owned(),
        greeting: field(fields, "greeting").to_owned(),
        greetings,
        keys,
        timeout_seconds: field(fields, "timeoutSeconds").to_owned(),
        timeout: Picked::of_form(fields, "timeoutDestination"),
        invalid_retries: field(fields, "invalidRetries").to_owned(),
        invalid: Picked::of_form(fields, "invalidDestination"),
        direct_dial: field(fields, "directDial") == "1",
        groups,
        problems,
    };
    html_as(&page, answer.status)
}

/// `POST /console/ivrs/{id}/delete`: the API refuses (409, naming them) while something
/// still routes to the menu.
async fn delete(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = super::delete_record(
        &mut visit,
        &fields,
        &id,
        "/v2/admin/ivrs/",
        "/console/ivrs?done=deleted",
    )
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::pages::form_of as fields;

    #[test]
    fn the_form_becomes_the_apis_body() {
        let (body, sent) = body_of(&fields(&[
            ("name", " Main "),
            ("number", "500"),
            ("greeting", "announcement:4"),
            ("key-0", "EXT:1"),
            ("key-hash", "EXTERNAL"),
            ("key-hash-number", "5551234"),
            ("key-3", ""),
            ("timeoutSeconds", "8"),
            ("timeoutDestination", "QUEUE:2"),
            ("invalidRetries", "three"),
            ("directDial", "1"),
        ]));
        assert_eq!(
            body,
            json!({
                "name": "Main", "number": "500",
                "greetingMediaFileId": 0, "greetingAnnouncementId": 4,
                "options": [
                    {"digit": "0", "destination": {"destType": "EXT", "id": 1}},
                    {"digit": "#", "destination": {"destType": "EXTERNAL", "id": 0, "number": "5551234"}},
                ],
                "timeoutSeconds": 8,
                "timeoutDestination": {"destType": "QUEUE", "id": 2},
                "invalidRetries": "three",
                "invalidDestination": null,
                "directDial": 1,
            })
        );
        assert_eq!(sent, vec!["0", "#"]);
    }

    #[test]
    fn an_options_error_goes_to_its_key() {
        assert_eq!(
            option_error("'body/options/1/destination/id' must be a record of the tenant"),
            Some((1, "must be a record of the tenant".to_owned()))
        );
        assert_eq!(
            option_error("'body/options/0/destination/number' is too long"),
            Some((0, "the outside number is too long".to_owned()))
        );
        assert_eq!(option_error("'body/options' has a key twice"), None);
        let answer = json!({"validationErrors": [
            "'body/options/1/destination/id' is foreign",
            "'body/greetingMediaFileId' is foreign",
            "'body/options' has a key twice",
        ]});
        let mut keys = key_rows(|_, _| Picked::default());
        let problems = problems_of(&answer, &["2", "*"], &mut keys);
        let star = keys.iter().find(|key| key.digit == "*").expect("the key *");
        assert_eq!(star.problem.as_deref(), Some("is foreign"));
        assert_eq!(problems.of("greeting").as_deref(), Some("is foreign"));
        assert_eq!(problems.general, vec!["'body/options' has a key twice"]);
    }
}
