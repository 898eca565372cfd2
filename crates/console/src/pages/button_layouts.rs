//! Button layouts: listed, created (a name and a model of the API's catalogue), edited
//! and deleted through the API. The editor lays the keys out as the model has them (its
//! own keys in a left and a right column beside the screen, then each expansion module's),
//! each key a cell with its type, value, label and position; what the API refuses at
//! `'body/keys/N/…'` is shown in the cell that sent key N, other keys it names by their
//! cell too. Every rule about keys is the API's.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use askama::Template;
use axum::extract::{Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde_json::{Value, json};

use super::check_post;
use super::{
    Choice, Chrome, Fields, Listing, Paging, Problems, field, html, html_as, query, record_id,
    records, take_list_errors, tenant_pair,
};
use crate::session::Person;
use crate::shared::Console;
use crate::visit::{PageError, Visit, refusal};

/// The button-layout pages' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/button-layouts", get(list).post(create))
        .route("/console/button-layouts/new", get(new_form))
        .route("/console/button-layouts/{id}", get(editor).post(update))
        .route("/console/button-layouts/{id}/delete", post(delete))
}

/// The layout's own fields, by their API names.
const FIELDS: [&str; 2] = ["name", "deviceModel"];

/// A desk-phone model as `GET /v2/admin/device-models/` answers it.
pub(crate) struct Model {
    /// `yealink-t54w`.
    pub id: String,
    /// `Yealink`.
    pub vendor: String,
    /// `T54W`.
    pub model: String,
    /// Lines (SIP accounts) it registers at most.
    pub accounts: i64,
    /// The phone's own programmable keys.
    pub line_keys: i64,
    /// The highest key index, expansion modules included.
    pub max_keys: i64,
    /// The key types it takes.
    pub key_types: Vec<String>,
    /// The file it fetches (`{mac}.cfg`).
    pub provisioning_file: String,
    /// The expansion module of its largest chain: name, keys on one, most chained.
    pub module: Option<(String, i64, i64)>,
}

impl Model {
    /// `Yealink T54W`.
    pub fn name(&self) -> String {
        format!("{} {}", self.vendor, self.model)
    }

    fn of(value: &Value) -> Model {
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        let module = value["expansionModules"]
            .as_array()
            .and_then(|modules| {
                modules.iter().max_by_key(|m| {
                    m["keys"].as_i64().unwrap_or(0) * m["maxModules"].as_i64().unwrap_or(0)
                })
            })
            .map(|m| {
                (
                    text(&m["id"]),
                    m["keys"].as_i64().unwrap_or(0),
                    m["maxModules"].as_i64().unwrap_or(0),
                )
            });
        Model {
            id: text(&value["id"]),
            vendor: text(&value["vendor"]),
            model: text(&value["model"]),
            accounts: value["accounts"].as_i64().unwrap_or(0),
            line_keys: value["lineKeys"].as_i64().unwrap_or(0),
            max_keys: value["maxKeys"].as_i64().unwrap_or(0),
            key_types: value["keyTypes"]
                .as_array()
                .map(|kinds| kinds.iter().map(text).collect())
                .unwrap_or_default(),
            provisioning_file: text(&value["provisioningFile"]),
            module,
        }
    }
}

/// The API's device-model catalogue.
pub(crate) async fn models(visit: &mut Visit) -> Result<Vec<Model>, PageError> {
    let answer = visit.get("/v2/admin/device-models/").await?;
    Ok(answer
        .as_array()
        .map(|models| models.iter().map(Model::of).collect())
        .unwrap_or_default())
}

/// A key type in words.
fn kind_words(kind: &str) -> &str {
    match kind {
        "line" => "Line",
        "blf" => "Busy lamp (BLF)",
        "speedDial" => "Speed dial",
        "park" => "Call park",
        "voicemail" => "Voicemail",
        "pagingGroup" => "Paging group",
        "dnd" => "Do not disturb",
        "none" => "Nothing (blank key)",
        other => other,
    }
}

/// The key types whose value names a record (as [`targets`] keys them), or none.
fn kind_key(kind: &str) -> &'static str {
    match kind {
        "blf" => "blf",
        "pagingGroup" => "pagingGroup",
        _ => "",
    }
}

/// A layout as the list shows it.
struct Row {
    id: i64,
    name: String,
    model: String,
    keys: usize,
}

#[derive(Template)]
#[template(path = "button_layouts.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "button_layout_new.html")]
struct NewPage {
    chrome: Chrome,
    name: String,
    model: String,
    models: Vec<Choice>,
    problems: Problems,
}

/// One key cell of the editor.
struct Cell {
    /// The key's position on the phone (the cell's place in the grid).
    slot: i64,
    /// Its fields' prefix, `key5`.
    key: String,
    /// The position typed (the slot, unless the key is moved).
    index: String,
    kind: String,
    value: String,
    label: String,
    /// What the API said of this key, in words.
    error: Option<String>,
    /// Which of its fields the API named (`index`, `type`, `value`, `label`).
    broken: BTreeSet<String>,
    /// Whether its type is one the model takes (else it is offered as it is, not lost).
    known: bool,
    /// What its value names, in words (`Extension 101 Front desk`), when it names one.
    names: Option<String>,
}

impl Cell {
    fn empty(slot: i64) -> Cell {
        Cell {
            slot,
            key: format!("key{slot}"),
            index: slot.to_string(),
            kind: String::new(),
            value: String::new(),
            label: String::new(),
            error: None,
            broken: BTreeSet::new(),
            known: true,
            names: None,
        }
    }

    /// Whether the API named its `part`.
    fn bad(&self, part: &str) -> bool {
        self.broken.contains(part)
    }

    /// Whether anything is set on it.
    fn used(&self) -> bool {
        !self.kind.is_empty() || !self.value.is_empty() || !self.label.is_empty()
    }
}

/// A block of keys laid out as on the hardware: a left and a right column.
struct Block {
    /// `Phone keys`, `Expansion module 1 (EXP50)`.
    title: String,
    /// Keys `first`–`last`.
    range: String,
    left: Vec<Cell>,
    right: Vec<Cell>,
    /// Shown open (the phone's own keys; a module with a key set or refused).
    open: bool,
}

#[derive(Template)]
#[template(path = "button_layout.html")]
struct EditorPage {
    chrome: Chrome,
    id: i64,
    name: String,
    model: String,
    model_name: String,
    models: Vec<Choice>,
    kinds: Vec<Choice>,
    targets: Vec<Choice>,
    phone: Block,
    modules: Vec<Block>,
    /// Keys past the model's last (after a change of model).
    beyond: Vec<Cell>,
    keys_error: Option<String>,
    problems: Problems,
    /// The API refused the keys (every broken one is named in its cell).
    refused: bool,
    note: Option<&'static str>,
}

/// `GET /console/button-layouts`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = async {
        let person = visit.acting().await?;
        let listing =
            Listing::new("/console/button-layouts", &params).with("query", field(&params, "query"));
        let mut order = tenant_pair(&person);
        order.push(("sortBy", "name".to_owned()));
        let answer = visit
            .get(&listing.api("/v2/admin/button-layouts/", order))
            .await?;
        let catalogue = models(&mut visit).await?;
        let rows = records(&answer)
            .iter()
            .map(|l| Row {
                id: l["id"].as_i64().unwrap_or(0),
                name: l["name"].as_str().unwrap_or_default().to_owned(),
                model: model_name(&catalogue, l["deviceModel"].as_str().unwrap_or_default()),
                keys: l["keys"].as_array().map_or(0, Vec::len),
            })
            .collect();
        let paging = listing.paging(&answer);
        let note = match field(&params, "done") {
            "deleted" => Some("The button layout is deleted."),
            _ => None,
        };
        html(&ListPage {
            chrome: visit.chrome("layouts"),
            search: listing.filter("query").to_owned(),
            rows,
            paging,
            note,
        })
    }
    .await;
    visit.finish(page)
}

fn model_name(catalogue: &[Model], id: &str) -> String {
    catalogue
        .iter()
        .find(|m| m.id == id)
        .map_or_else(|| id.to_owned(), Model::name)
}

/// The models as a `<select>` offers them.
fn model_choices(catalogue: &[Model]) -> Vec<Choice> {
    catalogue
        .iter()
        .map(|m| Choice {
            value: m.id.clone(),
            label: format!("{} ({} keys)", m.name(), m.line_keys),
        })
        .collect()
}

/// `GET /console/button-layouts/new`.
async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        visit.acting().await?;
        let catalogue = models(&mut visit).await?;
        html(&NewPage {
            chrome: visit.chrome("layouts"),
            name: String::new(),
            model: String::new(),
            models: model_choices(&catalogue),
            problems: Problems::default(),
        })
    }
    .await;
    visit.finish(page)
}

/// `POST /console/button-layouts`: creates a layout whose key 1 is the primary line (as
/// every layout's must be), then opens it in the editor.
async fn create(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let person = visit.acting().await?;
        let mut body = json!({
            "name": field(&fields, "name").trim(),
            "deviceModel": field(&fields, "deviceModel").trim(),
            "keys": [{"index": 1, "type": "line"}],
        });
        super::for_acting_tenant(&person, &mut body);
        let answer = visit
            .call(Method::POST, "/v2/admin/button-layouts/", Some(body))
            .await?;
        if answer.status.is_success() {
            let id = answer.json()["id"].as_i64().unwrap_or(0);
            return Ok(
                Redirect::to(&format!("/console/button-layouts/{id}?done=created")).into_response(),
            );
        }
        if !answer.status.is_client_error()
            || matches!(answer.status, StatusCode::NOT_FOUND | StatusCode::FORBIDDEN)
        {
            return Err(refusal(&answer));
        }
        let catalogue = models(&mut visit).await?;
        html_as(
            &NewPage {
                chrome: visit.chrome("layouts"),
                name: field(&fields, "name").to_owned(),
                model: field(&fields, "deviceModel").to_owned(),
                models: model_choices(&catalogue),
                problems: Problems::of_refusal(&answer.json(), &FIELDS),
            },
            answer.status,
        )
    }
    .await;
    visit.finish(page)
}

/// The records a key's value may name (extensions for BLF, paging groups), for the
/// value fields' suggestions.
/// Each choice is kept under its key type too, to say in words what a saved key names.
async fn targets(
    visit: &mut Visit,
    person: &Person,
) -> Result<(Vec<Choice>, HashMap<(&'static str, String), String>), PageError> {
    let mut pairs = tenant_pair(person);
    pairs.push(("paginated", "0".to_owned()));
    let mut choices = Vec::new();
    let mut named = HashMap::new();
    for (endpoint, kind, key_type) in [
        ("/v2/admin/extensions/", "Extension", "blf"),
        ("/v2/admin/paging-groups/", "Paging group", "pagingGroup"),
    ] {
        let answer = visit
            .call(Method::GET, &format!("{endpoint}?{}", query(&pairs)), None)
            .await?;
        if !answer.status.is_success() {
            continue;
        }
        for record in records(&answer.json()) {
            let choice = Choice {
                value: record["id"].as_i64().unwrap_or(0).to_string(),
                label: format!(
                    "{kind} {} {}",
                    record["number"].as_str().unwrap_or_default(),
                    record["name"].as_str().unwrap_or_default()
                ),
            };
            named.insert((key_type, choice.value.clone()), choice.label.clone());
            choices.push(choice);
        }
    }
    Ok((choices, named))
}

/// The cells of `cells` laid out by `model`: its own keys in two columns, then a block
/// per expansion module, then the keys past its last.
fn lay_out(
    model: Option<&Model>,
    mut cells: BTreeMap<i64, Cell>,
) -> (Block, Vec<Block>, Vec<Cell>) {
    let own = model.map_or(1, |m| m.line_keys.max(1));
    let mut take = |first: i64, last: i64| -> Vec<Cell> {
        (first..=last)
            .map(|slot| cells.remove(&slot).unwrap_or_else(|| Cell::empty(slot)))
            .collect()
    };
    let columns = |first: i64, last: i64, take: &mut dyn FnMut(i64, i64) -> Vec<Cell>| {
        let half = first + (last - first) / 2;
        (take(first, half), take(half + 1, last))
    };
    let (left, right) = columns(1, own, &mut take);
    let phone = Block {
        title: "Phone keys".to_owned(),
        range: format!("keys 1–{own}"),
        left,
        right,
        open: true,
    };
    let mut modules = Vec::new();
    if let Some((m, (name, keys, count))) = model.and_then(|m| Some((m, m.module.clone()?))) {
        // The modules' keys end at the model's last key, as the API counts them.
        for n in 0..count.max(0) {
            let first = own + n * keys + 1;
            let last = (own + (n + 1) * keys).min(m.max_keys);
            if keys < 1 || first > last {
                break;
            }
            let (left, right) = columns(first, last, &mut take);
            let open = left
                .iter()
                .chain(&right)
                .any(|c| c.used() || c.error.is_some());
            modules.push(Block {
                title: format!("Expansion module {} ({name})", n + 1),
                range: format!("keys {first}–{last}"),
                left,
                right,
                open,
            });
        }
    }
    (phone, modules, cells.into_values().collect())
}

/// The cells of a saved layout's keys, by position.
fn saved_cells(layout: &Value) -> BTreeMap<i64, Cell> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    layout["keys"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(|key| {
            let slot = key["index"].as_i64()?;
            Some((
                slot,
                Cell {
                    kind: text(&key["type"]),
                    value: text(&key["value"]),
                    label: text(&key["label"]),
                    ..Cell::empty(slot)
                },
            ))
        })
        .collect()
}

/// The cells a posted editor holds (`key5-type`, `key5-value` …), by the slot they sit in.
fn posted_cells(fields: &Fields) -> BTreeMap<i64, Cell> {
    let slots: BTreeSet<i64> = fields
        .keys()
        .filter_map(|name| {
            name.strip_prefix("key")?
                .strip_suffix("-type")?
                .parse()
                .ok()
        })
        .filter(|slot| *slot > 0)
        .collect();
    slots
        .into_iter()
        .map(|slot| {
            let part = |name: &str| {
                field(fields, &format!("key{slot}-{name}"))
                    .trim()
                    .to_owned()
            };
            let index = part("index");
            let cell = Cell {
                index: if index.is_empty() {
                    slot.to_string()
                } else {
                    index
                },
                kind: part("type"),
                value: part("value"),
                label: part("label"),
                ..Cell::empty(slot)
            };
            (slot, cell)
        })
        .collect()
}

/// The API's `keys` of the used cells, in the order of their slots, and the slot of each
/// key sent. A position that is no number is sent as typed, for the API to refuse.
fn keys_of(cells: &BTreeMap<i64, Cell>) -> (Vec<Value>, Vec<i64>) {
    let used: Vec<&Cell> = cells.values().filter(|c| c.used()).collect();
    let keys = used
        .iter()
        .map(|cell| {
            let optional = |text: &str| (!text.is_empty()).then(|| text.to_owned());
            json!({
                "index": cell.index.parse::<i64>().map_or_else(|_| json!(cell.index), |i| json!(i)),
                "type": cell.kind,
                "value": optional(&cell.value),
                "label": optional(&cell.label),
            })
        })
        .collect();
    (keys, used.iter().map(|c| c.slot).collect())
}

/// A field of a key in words.
fn part_words(part: &str) -> &str {
    match part {
        "index" => "position",
        "type" => "type",
        "value" => "value",
        "label" => "label",
        other => other,
    }
}

/// `keys/2` in an API message → `key 5`: the cell that sent key 2.
fn name_keys(message: &str, slots: &[i64]) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find("keys/") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 5..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        match after[..digits]
            .parse::<usize>()
            .ok()
            .and_then(|n| slots.get(n))
        {
            Some(slot) => out.push_str(&format!("key {slot}")),
            None => out.push_str(&rest[at..at + 5 + digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The editor of `layout` with `cells` in it.
async fn editor_page(
    visit: &mut Visit,
    person: &Person,
    id: i64,
    layout: &Value,
    mut cells: BTreeMap<i64, Cell>,
) -> Result<EditorPage, PageError> {
    let catalogue = models(visit).await?;
    let model_id = layout["deviceModel"].as_str().unwrap_or_default();
    let model = catalogue.iter().find(|m| m.id == model_id);
    let kinds: Vec<Choice> = model
        .map(|m| m.key_types.clone())
        .unwrap_or_default()
        .iter()
        .map(|k| Choice {
            value: k.clone(),
            label: kind_words(k).to_owned(),
        })
        .collect();
    for cell in cells.values_mut() {
        cell.known = cell.kind.is_empty() || kinds.iter().any(|k| k.value == cell.kind);
    }
    let (targets, named) = targets(visit, person).await?;
    for cell in cells.values_mut() {
        cell.names = named
            .get(&(kind_key(&cell.kind), cell.value.clone()))
            .cloned();
    }
    let (phone, modules, beyond) = lay_out(model, cells);
    Ok(EditorPage {
        chrome: visit.chrome("layouts"),
        id,
        name: layout["name"].as_str().unwrap_or_default().to_owned(),
        model: model_id.to_owned(),
        model_name: model_name(&catalogue, model_id),
        models: model_choices(&catalogue),
        kinds,
        targets,
        phone,
        modules,
        beyond,
        keys_error: None,
        problems: Problems::default(),
        refused: false,
        note: None,
    })
}

/// `GET /console/button-layouts/{id}`.
async fn editor(
    mut visit: Visit,
    Path(id): Path<String>,
    Query(params): Query<Fields>,
) -> Response {
    let page = async {
        let id = record_id(&id)?;
        let person = visit.acting().await?;
        let layout = visit.get(&format!("/v2/admin/button-layouts/{id}")).await?;
        let mut page = editor_page(&mut visit, &person, id, &layout, saved_cells(&layout)).await?;
        page.note = match field(&params, "done") {
            "created" => Some("The button layout is created: set its keys below."),
            "saved" => Some("The button layout is saved."),
            _ => None,
        };
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// `POST /console/button-layouts/{id}`: saves the name, the model and every key.
async fn update(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        let person = visit.acting().await?;
        let cells = posted_cells(&fields);
        let (keys, slots) = keys_of(&cells);
        let body = json!({
            "name": field(&fields, "name").trim(),
            "deviceModel": field(&fields, "deviceModel").trim(),
            "keys": keys,
        });
        let answer = visit
            .call(
                Method::PATCH,
                &format!("/v2/admin/button-layouts/{id}"),
                Some(body),
            )
            .await?;
        if answer.status.is_success() {
            return Ok(
                Redirect::to(&format!("/console/button-layouts/{id}?done=saved")).into_response(),
            );
        }
        if !answer.status.is_client_error()
            || matches!(answer.status, StatusCode::NOT_FOUND | StatusCode::FORBIDDEN)
        {
            return Err(refusal(&answer));
        }
        let (key_errors, own, remaining) = take_list_errors(&answer.json(), "keys");
        let mut by_slot: HashMap<i64, Vec<(String, String)>> = HashMap::new();
        let mut unplaced = Vec::new();
        for (position, part, message) in key_errors {
            let message = name_keys(&message, &slots);
            match slots.get(position) {
                Some(slot) => by_slot.entry(*slot).or_default().push((part, message)),
                None => unplaced.push(message),
            }
        }
        let mut cells = cells;
        for (slot, errors) in by_slot {
            if let Some(cell) = cells.get_mut(&slot) {
                cell.error = Some(
                    errors
                        .iter()
                        .map(|(part, message)| match part.as_str() {
                            "" => message.clone(),
                            part => format!("{}: {message}", part_words(part)),
                        })
                        .collect::<Vec<_>>()
                        .join("; "),
                );
                cell.broken = errors.into_iter().map(|(part, _)| part).collect();
            }
        }
        // The page is laid out by the model saved; the name and model typed are kept.
        let layout = visit.get(&format!("/v2/admin/button-layouts/{id}")).await?;
        let mut page = editor_page(&mut visit, &person, id, &layout, cells).await?;
        page.name = field(&fields, "name").to_owned();
        page.model = field(&fields, "deviceModel").to_owned();
        let mut keys_problems = own;
        keys_problems.extend(unplaced);
        page.keys_error = (!keys_problems.is_empty()).then(|| keys_problems.join("; "));
        page.problems = Problems::of_refusal(&remaining, &FIELDS);
        page.problems.general.retain(|m| !m.is_empty());
        page.refused = true;
        html_as(&page, answer.status)
    }
    .await;
    visit.finish(page)
}

/// `POST /console/button-layouts/{id}/delete`: refused by the API while phones use it.
async fn delete(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        visit.acting().await?;
        let answer = visit
            .call(
                Method::DELETE,
                &format!("/v2/admin/button-layouts/{id}"),
                None,
            )
            .await?;
        if !answer.status.is_success() {
            return Err(refusal(&answer));
        }
        Ok(Redirect::to("/console/button-layouts?done=deleted").into_response())
    }
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t54w() -> Model {
        Model::of(&json!({
            "id": "yealink-t54w", "vendor": "Yealink", "model": "T54W", "accounts": 16,
            "lineKeys": 27, "maxKeys": 207, "keyTypes": ["line", "blf"],
            "provisioningFile": "{mac}.cfg",
            "expansionModules": [{"id": "EXP50", "keys": 60, "maxModules": 3}],
        }))
    }

    #[test]
    fn the_keys_are_laid_out_like_the_phone() {
        let mut cells = BTreeMap::new();
        cells.insert(
            90,
            Cell {
                kind: "blf".to_owned(),
                ..Cell::empty(90)
            },
        );
        cells.insert(300, Cell::empty(300));
        let (phone, modules, beyond) = lay_out(Some(&t54w()), cells);
        assert_eq!(phone.left.len(), 14);
        assert_eq!(phone.right.len(), 13);
        assert_eq!(phone.right[0].slot, 15);
        assert_eq!(modules.len(), 3);
        assert_eq!(modules[0].range, "keys 28–87");
        assert!(!modules[0].open);
        assert!(modules[1].open, "key 90 is set");
        assert_eq!(modules[2].right.last().map(|c| c.slot), Some(207));
        assert_eq!(beyond.len(), 1);
    }

    #[test]
    fn used_cells_are_sent_in_order_and_remember_their_slot() {
        let fields: Fields = [
            ("key1-type", "line"),
            ("key1-index", "1"),
            ("key2-type", ""),
            ("key3-type", "speedDial"),
            ("key3-value", "*97"),
            ("key3-index", "2"),
            ("key10-type", ""),
            ("key10-label", "Odd"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let (keys, slots) = keys_of(&posted_cells(&fields));
        assert_eq!(slots, vec![1, 3, 10]);
        assert_eq!(
            keys,
            vec![
                json!({"index": 1, "type": "line", "value": null, "label": null}),
                json!({"index": 2, "type": "speedDial", "value": "*97", "label": null}),
                json!({"index": 10, "type": "", "value": null, "label": "Odd"}),
            ]
        );
    }

    #[test]
    fn keys_named_in_messages_are_their_cells() {
        assert_eq!(
            name_keys("is already used by keys/1", &[1, 3, 10]),
            "is already used by key 3"
        );
        assert_eq!(name_keys("is fine", &[]), "is fine");
        assert_eq!(name_keys("keys/9 and keys/0", &[4]), "keys/9 and key 4");
    }
}
