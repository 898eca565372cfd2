//! Music on hold: the tenant's playlists listed with the API's paging, created, edited
//! and deleted through the API: a name, how it plays (the API's `mode`), whether it is the
//! tenant's default, its branch, and its media files in order (the API's
//! `routingDestinations` of `MEDIA_FILE`s). File rows come and go as a paging group's
//! members do: "Add a file" shows the form again with one more row, "None" leaves a row
//! out. That a playlist needs a file, and which files may be played, is the API's rule.

use askama::Template;
use axum::extract::{Path, Query};
use axum::http::Method;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde_json::{Value, json};
use switchboard_domain::records::music_on_hold::PlayMode;

use super::check_post;
use super::media_files::{MediaOption, on_the_form, options};
use super::{
    Chrome, Fields, Listing, Paging, Problems, every, field, html, html_as, record_id, records,
    tenant_pair,
};
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The record's own fields of the form, by their API names (the files are `file0`…).
const FIELDS: [&str; 5] = [
    "name",
    "mode",
    "isDefault",
    "branchId",
    "routingDestinations",
];

/// The most file rows a form is shown with.
const MAX_ROWS: usize = 200;

/// The ways a playlist plays: the API's `mode` and its words.
const MODES: [(&str, &str); PlayMode::ALL.len()] = [
    (PlayMode::Sequential.as_str(), "In order"),
    (PlayMode::Random.as_str(), "Shuffled"),
    (
        PlayMode::RandomStart.as_str(),
        "In order from a random file",
    ),
];

/// The music on hold routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/music-on-hold", get(list).post(create))
        .route("/console/music-on-hold/new", get(new_form))
        .route("/console/music-on-hold/{id}", get(edit_form).post(update))
        .route("/console/music-on-hold/{id}/delete", post(delete))
}

/// A playlist as the list shows it.
struct Row {
    id: i64,
    name: String,
    mode: String,
    is_default: bool,
    branch: String,
    files: Vec<String>,
}

#[derive(Template)]
#[template(path = "music_on_hold.html")]
struct ListPage {
    chrome: Chrome,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

/// A choice of a `<select>`: its value and its words.
struct Choice {
    value: String,
    label: String,
}

/// One file row of the form.
struct FileRow {
    /// The field's name, `file0`….
    name: String,
    /// Its label, `File 1`.
    label: String,
    /// The media file's id picked, empty for none.
    picked: String,
    /// What the API said is wrong with this file.
    problem: Option<String>,
}

/// What the form holds.
struct Values {
    name: String,
    mode: String,
    is_default: bool,
    branch: String,
    files: Vec<String>,
}

impl Values {
    fn of_answer(record: &Value) -> Values {
        Values {
            name: record["name"].as_str().unwrap_or_default().to_owned(),
            mode: record["mode"].as_str().unwrap_or_default().to_owned(),
            is_default: record["isDefault"].as_bool().unwrap_or(false),
            branch: record["branchId"]
                .as_i64()
                .map(|id| id.to_string())
                .unwrap_or_default(),
            files: record["routingDestinations"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(|file| file["id"].as_i64().unwrap_or(0).to_string())
                .collect(),
        }
    }

    fn of_form(fields: &Fields) -> Values {
        let rows = field(fields, "files")
            .parse::<usize>()
            .unwrap_or(0)
            .min(MAX_ROWS);
        Values {
            name: field(fields, "name").to_owned(),
            mode: field(fields, "mode").to_owned(),
            is_default: field(fields, "isDefault") == "true",
            branch: field(fields, "branchId").to_owned(),
            files: (0..rows)
                .map(|row| field(fields, &format!("file{row}")).trim().to_owned())
                .collect(),
        }
    }

    /// The API body, and for each file sent the row it came from.
    fn body(&self) -> (Value, Vec<usize>) {
        let (rows, files): (Vec<usize>, Vec<Value>) = self
            .files
            .iter()
            .enumerate()
            .filter(|(_, id)| !id.is_empty())
            .map(|(row, id)| {
                let id = id.parse::<i64>().map_or_else(|_| json!(id), |id| json!(id));
                (row, json!({"destType": "MEDIA_FILE", "id": id}))
            })
            .unzip();
        let branch = self.branch.trim();
        let body = json!({
            "name": self.name.trim(),
            "mode": self.mode.trim(),
            "isDefault": self.is_default,
            "branchId": if branch.is_empty() {
                Value::Null
            } else {
                branch.parse::<i64>().map_or_else(|_| json!(branch), |id| json!(id))
            },
            "routingDestinations": files,
        });
        (body, rows)
    }
}

#[derive(Template)]
#[template(path = "music_on_hold_form.html")]
struct FormPage {
    chrome: Chrome,
    /// `None` for a new playlist.
    id: Option<i64>,
    name: String,
    mode: String,
    modes: Vec<Choice>,
    is_default: bool,
    branch: String,
    branches: Vec<Choice>,
    media_files: Vec<MediaOption>,
    files: Vec<FileRow>,
    problems: Problems,
}

/// The branches of the tenant acted on, as the API lists them to the person.
async fn branches(visit: &mut Visit) -> Result<Vec<Choice>, PageError> {
    let person = visit.acting().await?;
    Ok(every(visit, &person, "/v2/admin/branches/", &[])
        .await?
        .iter()
        .map(|branch| Choice {
            value: branch["id"].as_i64().unwrap_or(0).to_string(),
            label: branch["name"].as_str().unwrap_or_default().to_owned(),
        })
        .collect())
}

impl FormPage {
    async fn of(
        visit: &mut Visit,
        id: Option<i64>,
        values: Values,
        problems: Problems,
        mut row_problems: Vec<Option<String>>,
    ) -> Result<FormPage, PageError> {
        let branches = branches(visit).await?;
        let media_files = options(visit).await?;
        row_problems.resize(values.files.len(), None);
        let files = values
            .files
            .into_iter()
            .zip(row_problems)
            .enumerate()
            .map(|(row, (picked, problem))| FileRow {
                name: format!("file{row}"),
                label: format!("File {}", row + 1),
                picked,
                problem,
            })
            .collect();
        Ok(FormPage {
            chrome: visit.chrome("music"),
            id,
            name: values.name,
            mode: values.mode,
            modes: MODES
                .iter()
                .map(|(value, label)| Choice {
                    value: (*value).to_owned(),
                    label: (*label).to_owned(),
                })
                .collect(),
            is_default: values.is_default,
            branch: values.branch,
            branches,
            media_files,
            files,
            problems,
        })
    }
}

/// `GET /console/music-on-hold`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing = Listing::new("/console/music-on-hold", params);
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "name".to_owned()));
    let answer = visit
        .get(&listing.api("/v2/admin/music-on-hold/", order))
        .await?;
    let rows = records(&answer)
        .iter()
        .map(|record| {
            let mode = record["mode"].as_str().unwrap_or_default();
            Row {
                id: record["id"].as_i64().unwrap_or(0),
                name: record["name"].as_str().unwrap_or_default().to_owned(),
                mode: MODES
                    .iter()
                    .find(|(value, _)| *value == mode)
                    .map_or(mode, |(_, words)| words)
                    .to_owned(),
                is_default: record["isDefault"].as_bool().unwrap_or(false),
                branch: record["branch"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                files: record["routingDestinations"]
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .map(|file| match file["name"].as_str() {
                        Some(name) if !name.is_empty() => name.to_owned(),
                        _ => format!("Media file {}", file["id"]),
                    })
                    .collect(),
            }
        })
        .collect();
    let note = match field(params, "done") {
        "created" => Some("The music on hold is created."),
        "updated" => Some("The music on hold is saved."),
        "deleted" => Some("The music on hold is deleted."),
        _ => None,
    };
    html(&ListPage {
        chrome: visit.chrome("music"),
        paging: listing.paging(&answer),
        rows,
        note,
    })
}

/// `GET /console/music-on-hold/new`: an empty form with one file row.
async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        visit.acting().await?;
        let values = Values {
            name: String::new(),
            mode: "sequential".to_owned(),
            is_default: false,
            branch: String::new(),
            files: vec![String::new()],
        };
        let page = FormPage::of(&mut visit, None, values, Problems::default(), Vec::new()).await?;
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// `GET /console/music-on-hold/{id}`: a saved playlist's form, one empty row after its
/// files.
async fn edit_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        visit.acting().await?;
        let record = visit.get(&format!("/v2/admin/music-on-hold/{id}")).await?;
        let mut values = Values::of_answer(&record);
        values.files.push(String::new());
        let page = FormPage::of(
            &mut visit,
            Some(id),
            values,
            Problems::default(),
            Vec::new(),
        )
        .await?;
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// `POST /console/music-on-hold`: creates one (or shows one more file row).
async fn create(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = save(&mut visit, None, &fields).await;
    visit.finish(page)
}

/// `POST /console/music-on-hold/{id}`: saves one (or shows one more file row).
async fn update(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = match record_id(&id) {
        Ok(id) => save(&mut visit, Some(id), &fields).await,
        Err(error) => Err(error),
    };
    visit.finish(page)
}

/// `'body/routingDestinations/2/id' must …` → (2, `must …`); `None` for an error about
/// the playlist as a whole.
fn file_error(error: &str) -> Option<(usize, &str)> {
    super::item_error(error, "routingDestinations").map(|(index, _, message)| (index, message))
}

async fn save(visit: &mut Visit, id: Option<i64>, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    let person = visit.acting().await?;
    let mut values = Values::of_form(fields);
    if field(fields, "action") == "add" {
        values.files.push(String::new());
        let page = FormPage::of(visit, id, values, Problems::default(), Vec::new()).await?;
        return html(&page);
    }
    let (mut body, rows) = values.body();
    let answer = match id {
        None => {
            super::for_acting_tenant(&person, &mut body);
            visit
                .call(Method::POST, "/v2/admin/music-on-hold/", Some(body))
                .await?
        }
        Some(id) => {
            visit
                .call(
                    Method::PATCH,
                    &format!("/v2/admin/music-on-hold/{id}"),
                    Some(body),
                )
                .await?
        }
    };
    if answer.status.is_success() {
        let done = if id.is_some() { "updated" } else { "created" };
        return Ok(Redirect::to(&format!("/console/music-on-hold?done={done}")).into_response());
    }
    if !on_the_form(answer.status) {
        return Err(refusal(&answer));
    }
    let mut problems = Problems::of_refusal(&answer.json(), &FIELDS);
    let mut row_problems: Vec<Option<String>> = vec![None; values.files.len()];
    // An error about file `k` goes to its row; `routingDestinations` as a whole stays
    // next to the list of files.
    let mut whole = Vec::new();
    for (field_name, messages) in std::mem::take(&mut problems.fields) {
        if field_name != "routingDestinations" {
            problems.fields.insert(field_name, messages);
        }
    }
    let errors = answer.json()["validationErrors"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for error in errors.iter().filter_map(Value::as_str) {
        match file_error(error) {
            Some((index, message)) => match rows.get(index) {
                Some(&row) => {
                    let slot = &mut row_problems[row];
                    *slot = Some(match slot.take() {
                        Some(before) => format!("{before}; {message}"),
                        None => message.to_owned(),
                    });
                }
                None => whole.push(message.to_owned()),
            },
            None => {
                if let Some(message) = error.strip_prefix("'body/routingDestinations' ") {
                    whole.push(message.to_owned());
                }
            }
        }
    }
    if !whole.is_empty() {
        problems
            .fields
            .insert("routingDestinations".to_owned(), whole);
    }
    let page = FormPage::of(visit, id, values, problems, row_problems).await?;
    html_as(&page, answer.status)
}

/// `POST /console/music-on-hold/{id}/delete`.
async fn delete(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        visit.acting().await?;
        let answer = visit
            .call(
                Method::DELETE,
                &format!("/v2/admin/music-on-hold/{id}"),
                None,
            )
            .await?;
        if !answer.status.is_success() {
            return Err(refusal(&answer));
        }
        Ok(Redirect::to("/console/music-on-hold?done=deleted").into_response())
    }
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_picked_are_sent_in_order() {
        let fields: Fields = [
            ("files", "3"),
            ("file0", "7"),
            ("file1", ""),
            ("file2", "3"),
            ("name", "Jazz"),
            ("mode", "random"),
            ("isDefault", "true"),
            ("branchId", ""),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let (body, rows) = Values::of_form(&fields).body();
        assert_eq!(
            body["routingDestinations"],
            json!([{"destType": "MEDIA_FILE", "id": 7}, {"destType": "MEDIA_FILE", "id": 3}])
        );
        assert_eq!(rows, vec![0, 2]);
        assert_eq!(body["isDefault"], true);
        assert_eq!(body["branchId"], Value::Null);
        assert_eq!(body["mode"], "random");
    }

    #[test]
    fn a_file_error_names_its_file() {
        assert_eq!(
            file_error("'body/routingDestinations/0/id' must name a media file"),
            Some((0, "must name a media file"))
        );
        assert_eq!(
            file_error("'body/routingDestinations' must have at least 1 items"),
            None
        );
    }
}
