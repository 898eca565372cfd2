//! Phones (the API's devices): listed with the API's paging, search and registration
//! filter; added by MAC in any notation (the API normalises it), with a model of the
//! API's catalogue, its lines picked among the tenant's extensions, a branch and a button
//! layout; edited and deleted; its provisioning password rotated. A new password (on
//! creation or rotation) is shown once, on the answer to the form that made it: the API
//! never answers it again, so neither does the console.

use std::collections::HashMap;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde_json::{Value, json};

use super::button_layouts::{Model, models};
use super::check_post;
use super::{
    Choice, Chrome, Fields, Listing, Paging, Problems, every, field, html, html_as, record_id,
    records, take_list_errors, tenant_pair,
};
use crate::session::Person;
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The phone pages' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/phones", get(list).post(create))
        .route("/console/phones/new", get(new_form))
        .route("/console/phones/{id}", get(edit_form).post(update))
        .route("/console/phones/{id}/delete", post(delete))
        .route("/console/phones/{id}/password", post(rotate))
}

/// The fields of the form, by their API names (the lines are `line1`…`line16`).
const FIELDS: [&str; 6] = [
    "name",
    "mac",
    "model",
    "branchId",
    "buttonLayoutId",
    "description",
];

/// The most lines a phone has in the API (`LINES`: 0 to 16).
const MAX_LINES: usize = 16;

/// The models of one vendor, for an `<optgroup>`.
struct ModelGroup {
    vendor: String,
    models: Vec<Choice>,
}

/// A phone as the list shows it.
struct Row {
    id: i64,
    name: String,
    mac: String,
    model: String,
    branch: String,
    lines: String,
    registered: bool,
    last_registered: String,
    last_fetched: String,
}

#[derive(Template)]
#[template(path = "phones.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    registered: String,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

/// One line of the form: its field and the extension it names.
struct LineField {
    /// `line1`…: the field's name.
    key: String,
    /// 1 for the primary line.
    number: usize,
    /// The extension as the field shows it (`101 — Front desk`), or as typed, or empty.
    picked: String,
    /// What the API said is wrong with it.
    error: Option<String>,
}

/// What the API says of a phone beyond its form: registration and provisioning.
struct Facts {
    registered: bool,
    last_registered: String,
    last_fetched: String,
    address: String,
    user_agent: String,
    config_version: i64,
    username: String,
    url: String,
}

#[derive(Template)]
#[template(path = "phone_form.html")]
struct FormPage {
    chrome: Chrome,
    /// `None` for a new phone.
    id: Option<i64>,
    name: String,
    mac: String,
    model: String,
    branch_id: String,
    layout_id: String,
    description: String,
    lines: Vec<LineField>,
    lines_error: Option<String>,
    models: Vec<ModelGroup>,
    /// The tenant's extensions, once for every line field (one `<datalist>`).
    extensions: Vec<Known>,
    branches: Vec<Choice>,
    layouts: Vec<Choice>,
    facts: Option<Facts>,
    problems: Problems,
    note: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "phone_password.html")]
struct PasswordPage {
    chrome: Chrome,
    id: i64,
    name: String,
    mac: String,
    /// The phone was just added (else: its password was rotated).
    added: bool,
    username: String,
    password: String,
    url: String,
}

/// A JSON string, or empty.
fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// An ISO 8601 instant as the page shows it (`2026-11-27 10:03 UTC`), or `never`.
pub(crate) fn when(value: &Value) -> String {
    match value.as_str() {
        None => "never".to_owned(),
        Some(instant) => chrono::DateTime::parse_from_rfc3339(instant).map_or_else(
            |_| instant.to_owned(),
            |at| {
                at.with_timezone(&chrono::Utc)
                    .format("%Y-%m-%d %H:%M UTC")
                    .to_string()
            },
        ),
    }
}

/// A model as a person names it: `Yealink T54W`, or its id when the catalogue lacks it.
fn model_name(catalogue: &[Model], id: &str) -> String {
    catalogue
        .iter()
        .find(|m| m.id == id)
        .map_or_else(|| id.to_owned(), Model::name)
}

/// `GET /console/phones`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let registered = match field(params, "registered") {
        value @ ("0" | "1") => value,
        _ => "",
    };
    let listing = Listing::new("/console/phones", params)
        .with("query", field(params, "query"))
        .with("registered", registered);
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "name".to_owned()));
    let answer = visit.get(&listing.api("/v2/admin/devices/", order)).await?;
    let catalogue = models(visit).await?;
    let rows = records(&answer)
        .iter()
        .map(|d| Row {
            id: d["id"].as_i64().unwrap_or(0),
            name: text(&d["name"]),
            mac: text(&d["mac"]),
            model: model_name(&catalogue, d["model"].as_str().unwrap_or_default()),
            branch: text(&d["branch"]["name"]),
            lines: d["lines"]
                .as_array()
                .map(|lines| {
                    lines
                        .iter()
                        .map(|l| text(&l["number"]))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default(),
            registered: d["registered"].as_bool().unwrap_or(false),
            last_registered: when(&d["lastRegisteredAt"]),
            last_fetched: when(&d["lastFetchedAt"]),
        })
        .collect();
    let paging = listing.paging(&answer);
    let note = match field(params, "done") {
        "updated" => Some("The phone is saved."),
        "deleted" => Some("The phone is deleted."),
        _ => None,
    };
    html(&ListPage {
        chrome: visit.chrome("phones"),
        search: listing.filter("query").to_owned(),
        registered: registered.to_owned(),
        rows,
        paging,
        note,
    })
}

/// An extension a line field may name.
struct Known {
    /// Its id, what the API's `lines` take.
    id: i64,
    /// Its number, what a person types.
    number: String,
    /// `101 — Front desk`: what the list offers and a saved line shows.
    label: String,
}

impl Known {
    /// The extension of the API record `extension`.
    fn of(extension: &Value) -> Known {
        let number = text(&extension["number"]);
        let name = text(&extension["name"]);
        Known {
            id: extension["id"].as_i64().unwrap_or(0),
            label: if name.is_empty() {
                number.clone()
            } else {
                format!("{number} — {name}")
            },
            number,
        }
    }
}

/// The extension among `known` a line field's text names: its number, alone or as the
/// list offers it (`101 — Front desk`: the number before the dash, the name ignored).
fn resolve<'a>(typed: &str, known: &'a [Known]) -> Option<&'a Known> {
    let number = typed
        .split(|c: char| c.is_whitespace() || c == '—')
        .next()
        .unwrap_or_default();
    known
        .iter()
        .find(|k| !number.is_empty() && k.number == number)
}

/// What the form offers: models by vendor, extensions, branches and button layouts.
struct Offer {
    models: Vec<ModelGroup>,
    catalogue: Vec<Model>,
    extensions: Vec<Known>,
    branches: Vec<Choice>,
    layouts: Vec<Choice>,
}

async fn offer(visit: &mut Visit, person: &Person) -> Result<Offer, PageError> {
    let catalogue = models(visit).await?;
    let mut groups: Vec<ModelGroup> = Vec::new();
    for model in &catalogue {
        let choice = Choice {
            value: model.id.clone(),
            label: format!(
                "{} ({} lines, {} keys)",
                model.name(),
                model.accounts,
                model.line_keys
            ),
        };
        match groups.iter_mut().find(|g| g.vendor == model.vendor) {
            Some(group) => group.models.push(choice),
            None => groups.push(ModelGroup {
                vendor: model.vendor.clone(),
                models: vec![choice],
            }),
        }
    }
    let labelled = |records: Vec<Value>, label: &dyn Fn(&Value) -> String| {
        records
            .iter()
            .map(|r| Choice {
                value: r["id"].as_i64().unwrap_or(0).to_string(),
                label: label(r),
            })
            .collect::<Vec<_>>()
    };
    let extensions = every(
        visit,
        person,
        "/v2/admin/extensions/",
        &[("sortBy", "number")],
    )
    .await?
    .iter()
    .map(Known::of)
    .collect();
    let branches = labelled(
        every(visit, person, "/v2/admin/branches/", &[("sortBy", "name")]).await?,
        &|b| text(&b["name"]),
    );
    let layouts = labelled(
        every(
            visit,
            person,
            "/v2/admin/button-layouts/",
            &[("sortBy", "name")],
        )
        .await?,
        &|l| {
            format!(
                "{} (for {})",
                text(&l["name"]),
                model_name(&catalogue, l["deviceModel"].as_str().unwrap_or_default())
            )
        },
    );
    Ok(Offer {
        models: groups,
        catalogue,
        extensions,
        branches,
        layouts,
    })
}

/// The line fields of a form holding `picked` (extension ids, in order): at least four,
/// one free after the last picked, at most the API's sixteen.
fn line_fields(picked: &[String]) -> Vec<LineField> {
    let last = picked
        .iter()
        .rposition(|p| !p.is_empty())
        .map_or(0, |i| i + 1);
    let count = (last + 1).clamp(4, MAX_LINES);
    (1..=count)
        .map(|number| LineField {
            key: format!("line{number}"),
            number,
            picked: picked.get(number - 1).cloned().unwrap_or_default(),
            error: None,
        })
        .collect()
}

/// The lines a posted form holds, by field (`line1` first).
fn posted_lines(fields: &Fields) -> Vec<String> {
    (1..=MAX_LINES)
        .map(|n| field(fields, &format!("line{n}")).trim().to_owned())
        .collect()
}

/// The empty form for a new phone.
fn blank(chrome: Chrome, offer: Offer) -> FormPage {
    FormPage {
        chrome,
        id: None,
        name: String::new(),
        mac: String::new(),
        model: String::new(),
        branch_id: String::new(),
        layout_id: String::new(),
        description: String::new(),
        lines: line_fields(&[]),
        lines_error: None,
        models: offer.models,
        extensions: offer.extensions,
        branches: offer.branches,
        layouts: offer.layouts,
        facts: None,
        problems: Problems::default(),
        note: None,
    }
}

/// `GET /console/phones/new`.
async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        let person = visit.acting().await?;
        let offer = offer(&mut visit, &person).await?;
        html(&blank(visit.chrome("phones"), offer))
    }
    .await;
    visit.finish(page)
}

/// Where the phone of `device` fetches its configuration: the service's public address
/// and the model's file as the API's catalogue names it (`{mac}` its 12 hex digits).
fn provisioning_url(console: &Console, catalogue: &[Model], device: &Value) -> String {
    let mac = text(&device["mac"]).replace(':', "");
    let file = catalogue
        .iter()
        .find(|m| device["model"].as_str() == Some(m.id.as_str()))
        .map_or("{mac}.cfg", |m| m.provisioning_file.as_str())
        .replace("{mac}", &mac);
    format!(
        "{}/provisioning/{file}",
        console.public_url.trim_end_matches('/')
    )
}

/// The form of phone `id` as saved.
async fn saved_form(
    visit: &mut Visit,
    console: &Console,
    person: &Person,
    id: i64,
) -> Result<FormPage, PageError> {
    let device = visit.get(&format!("/v2/admin/devices/{id}")).await?;
    let offer = offer(visit, person).await?;
    // Each line as the list offers its extension (its number alone if the list lacks it).
    let picked: Vec<String> = device["lines"]
        .as_array()
        .map(|lines| {
            lines
                .iter()
                .map(|l| {
                    offer
                        .extensions
                        .iter()
                        .find(|k| l["id"].as_i64() == Some(k.id))
                        .map_or_else(|| text(&l["number"]), |k| k.label.clone())
                })
                .collect()
        })
        .unwrap_or_default();
    let id_text = |value: &Value| value.as_i64().map(|id| id.to_string()).unwrap_or_default();
    let facts = Facts {
        registered: device["registered"].as_bool().unwrap_or(false),
        last_registered: when(&device["lastRegisteredAt"]),
        last_fetched: when(&device["lastFetchedAt"]),
        address: text(&device["ipAddress"]),
        user_agent: text(&device["userAgent"]),
        config_version: device["configVersion"].as_i64().unwrap_or(0),
        username: text(&device["provisioningUsername"]),
        url: provisioning_url(console, &offer.catalogue, &device),
    };
    let mut page = blank(visit.chrome("phones"), offer);
    page.id = Some(id);
    page.name = text(&device["name"]);
    page.mac = text(&device["mac"]);
    page.model = text(&device["model"]);
    page.branch_id = id_text(&device["branchId"]);
    page.layout_id = id_text(&device["buttonLayoutId"]);
    page.description = text(&device["description"]);
    page.lines = line_fields(&picked);
    page.facts = Some(facts);
    Ok(page)
}

/// `GET /console/phones/{id}`.
async fn edit_form(
    mut visit: Visit,
    State(console): State<Console>,
    Path(id): Path<String>,
    Query(params): Query<Fields>,
) -> Response {
    let page = async {
        let id = record_id(&id)?;
        let person = visit.acting().await?;
        let mut page = saved_form(&mut visit, &console, &person, id).await?;
        page.note = match field(&params, "done") {
            "saved" => Some("The phone is saved."),
            _ => None,
        };
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// A number the API reads as an id, or the text as typed (for the API to refuse).
fn id_or_text(text: &str) -> Value {
    text.parse::<i64>()
        .map_or_else(|_| json!(text), |id| json!(id))
}

/// The body the form's fields make, each line's text resolved among the tenant's
/// extensions `known` to the extension's id; for each line sent the number of the field
/// it came from (empty line fields are skipped: the lines close up); and the fields whose
/// text names no extension, with the number read from it. Such a line is sent as typed,
/// so the API refuses the whole form (every other broken field named with it) and
/// nothing is saved.
fn body_of(fields: &Fields, known: &[Known]) -> (Value, Vec<usize>, Vec<(usize, String)>) {
    let optional = |name: &str| match field(fields, name).trim() {
        "" => Value::Null,
        value => id_or_text(value),
    };
    let mut lines = Vec::new();
    let mut from = Vec::new();
    let mut unknown = Vec::new();
    for (n, picked) in posted_lines(fields).iter().enumerate() {
        if picked.is_empty() {
            continue;
        }
        match resolve(picked, known) {
            Some(extension) => lines.push(json!(extension.id)),
            None => {
                lines.push(json!(picked));
                unknown.push((n + 1, picked.clone()));
            }
        }
        from.push(n + 1);
    }
    let body = json!({
        "name": field(fields, "name").trim(),
        "mac": field(fields, "mac").trim(),
        "model": field(fields, "model").trim(),
        "branchId": optional("branchId"),
        "buttonLayoutId": optional("buttonLayoutId"),
        "description": field(fields, "description").trim(),
        "lines": lines,
    });
    (body, from, unknown)
}

/// `POST /console/phones`: adds one, answering its provisioning password once.
async fn create(
    mut visit: Visit,
    State(console): State<Console>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = save(&mut visit, &console, None, &fields).await;
    visit.finish(page)
}

/// `POST /console/phones/{id}`: saves one.
async fn update(
    mut visit: Visit,
    State(console): State<Console>,
    Path(id): Path<String>,
    Form(fields): Form<Fields>,
) -> Response {
    let page = match record_id(&id) {
        Ok(id) => save(&mut visit, &console, Some(id), &fields).await,
        Err(error) => Err(error),
    };
    visit.finish(page)
}

async fn save(
    visit: &mut Visit,
    console: &Console,
    id: Option<i64>,
    fields: &Fields,
) -> PageResult {
    check_post(visit, fields)?;
    let person = visit.acting().await?;
    // The extensions a line may name: read once, for the lines typed as numbers.
    let known: Vec<Known> = if posted_lines(fields).iter().all(String::is_empty) {
        Vec::new()
    } else {
        every(
            visit,
            &person,
            "/v2/admin/extensions/",
            &[("sortBy", "number")],
        )
        .await?
        .iter()
        .map(Known::of)
        .collect()
    };
    let (mut body, from, unknown) = body_of(fields, &known);
    let answer = match id {
        None => {
            super::for_acting_tenant(&person, &mut body);
            visit
                .call(Method::POST, "/v2/admin/devices/", Some(body))
                .await?
        }
        Some(id) => {
            visit
                .call(
                    Method::PATCH,
                    &format!("/v2/admin/devices/{id}"),
                    Some(body),
                )
                .await?
        }
    };
    if answer.status.is_success() {
        let device = answer.json();
        let new_id = device["id"].as_i64().unwrap_or(0);
        return match id {
            Some(id) => {
                Ok(Redirect::to(&format!("/console/phones/{id}?done=saved")).into_response())
            }
            None => {
                let catalogue = models(visit).await?;
                html(&PasswordPage {
                    chrome: visit.chrome("phones"),
                    id: new_id,
                    name: text(&device["name"]),
                    mac: text(&device["mac"]),
                    added: true,
                    username: text(&device["provisioningUsername"]),
                    password: text(&device["provisioningPassword"]),
                    url: provisioning_url(console, &catalogue, &device),
                })
            }
        };
    }
    if !answer.status.is_client_error()
        || matches!(answer.status, StatusCode::NOT_FOUND | StatusCode::FORBIDDEN)
    {
        return Err(refusal(&answer));
    }
    let (line_errors, own, remaining) = take_list_errors(&answer.json(), "lines");
    let mut page = match id {
        Some(id) => saved_form(visit, console, &person, id).await?,
        None => {
            let offer = offer(visit, &person).await?;
            blank(visit.chrome("phones"), offer)
        }
    };
    page.name = field(fields, "name").to_owned();
    page.mac = field(fields, "mac").to_owned();
    page.model = field(fields, "model").to_owned();
    page.branch_id = field(fields, "branchId").to_owned();
    page.layout_id = field(fields, "buttonLayoutId").to_owned();
    page.description = field(fields, "description").to_owned();
    page.lines = line_fields(&posted_lines(fields));
    let mut by_field: HashMap<usize, Vec<String>> = HashMap::new();
    for (position, _, message) in line_errors {
        if let Some(number) = from.get(position) {
            by_field.entry(*number).or_default().push(message);
        }
    }
    // A line naming no extension: the console's own words replace the API's refusal
    // of the text it was sent.
    for (number, typed) in unknown {
        let read = typed.split(|c: char| c.is_whitespace() || c == '—').next();
        by_field.insert(
            number,
            vec![format!(
                "no extension of this tenant has the number {}: pick one from the list",
                read.filter(|n| !n.is_empty()).unwrap_or(&typed)
            )],
        );
    }
    for line in &mut page.lines {
        line.error = by_field.remove(&line.number).map(|m| m.join("; "));
    }
    page.lines_error = (!own.is_empty()).then(|| own.join("; "));
    page.problems = Problems::of_refusal(&remaining, &FIELDS);
    page.problems.general.retain(|m| !m.is_empty());
    if page.lines_error.is_some() || page.lines.iter().any(|l| l.error.is_some()) {
        // The lines' problems are shown next to them; the notice above says so.
        page.problems.fields.entry("lines".to_owned()).or_default();
    }
    html_as(&page, answer.status)
}

/// `POST /console/phones/{id}/delete`.
async fn delete(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = super::delete_record(
        &mut visit,
        &fields,
        &id,
        "/v2/admin/devices/",
        "/console/phones?done=deleted",
    )
    .await;
    visit.finish(page)
}

/// `POST /console/phones/{id}/password`: a new provisioning password, shown this once;
/// the old one stops working at once.
async fn rotate(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        visit.acting().await?;
        let answer = visit
            .call(
                Method::POST,
                &format!("/v2/admin/devices/{id}/provisioning-credentials"),
                None,
            )
            .await?;
        if !answer.status.is_success() {
            return Err(refusal(&answer));
        }
        let credentials = answer.json();
        let device = visit.get(&format!("/v2/admin/devices/{id}")).await?;
        html(&PasswordPage {
            chrome: visit.chrome("phones"),
            id,
            name: text(&device["name"]),
            mac: text(&device["mac"]),
            added: false,
            username: text(&credentials["username"]),
            password: text(&credentials["password"]),
            url: text(&credentials["url"]),
        })
    }
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::pages::form_of as fields;

    #[test]
    fn empty_line_fields_close_up_and_remember_where_each_line_came_from() {
        let known = [
            Known::of(&json!({"id": 7, "number": "101", "name": "Front desk"})),
            Known::of(&json!({"id": 9, "number": "102", "name": ""})),
        ];
        assert_eq!(known[0].label, "101 — Front desk");
        assert_eq!(known[1].label, "102");
        let (body, from, unknown) = body_of(
            &fields(&[
                ("mac", " aa-bb-cc-dd-ee-ff "),
                ("line1", "101 — Front desk"),
                ("line3", " 102 "),
                ("line4", "7"),
                ("line5", "101—Renamed"),
                ("branchId", ""),
                ("buttonLayoutId", "3"),
            ]),
            &known,
        );
        assert_eq!(body["mac"], "aa-bb-cc-dd-ee-ff");
        // A number is never read as an id: `7` is no extension's number.
        assert_eq!(body["lines"], json!([7, 9, "7", 7]));
        assert_eq!(from, vec![1, 3, 4, 5]);
        assert_eq!(unknown, vec![(4, "7".to_owned())]);
        assert_eq!(body["branchId"], Value::Null);
        assert_eq!(body["buttonLayoutId"], 3);
    }

    #[test]
    fn a_list_items_errors_are_taken_by_position() {
        let refusal = json!({"validationErrors": [
            "'body/lines/1' is listed twice",
            "'body/lines' must hold at most 2 lines (the accounts of yealink-t31p)",
            "'body/keys/3/index' is already used by keys/2",
            "'body/mac' must be a MAC address",
        ]});
        let (items, own, rest) = take_list_errors(&refusal, "lines");
        assert_eq!(
            items,
            vec![(1, String::new(), "is listed twice".to_owned())]
        );
        assert_eq!(own.len(), 1);
        assert_eq!(rest["validationErrors"].as_array().map(Vec::len), Some(2));
        let (items, _, _) = take_list_errors(&refusal, "keys");
        assert_eq!(
            items,
            vec![(
                3,
                "index".to_owned(),
                "is already used by keys/2".to_owned()
            )]
        );
    }

    #[test]
    fn a_form_shows_at_least_four_lines_and_one_free() {
        assert_eq!(line_fields(&[]).len(), 4);
        let picked: Vec<String> = (1..=5).map(|n| n.to_string()).collect();
        assert_eq!(line_fields(&picked).len(), 6);
        let all: Vec<String> = (1..=16).map(|n| n.to_string()).collect();
        assert_eq!(line_fields(&all).len(), 16);
    }

    #[test]
    fn an_instant_reads_in_utc() {
        assert_eq!(
            when(&json!("2026-11-27T10:03:00+01:00")),
            "2026-11-27 09:03 UTC"
        );
        assert_eq!(when(&Value::Null), "never");
    }
}
