//! Paging groups: listed with the API's paging, created, edited and deleted through the
//! API. The members (the API's `routingDestinations`, in order) are rows of the one
//! destination picker; "Add a member" posts the form back and shows it again with one more
//! empty row (nothing is saved), and a row set to "None" is left out, so rows come and go
//! without JavaScript. Every rule about members is the API's: its errors about member `k`
//! are shown next to the row that sent it.

use askama::Template;
use axum::extract::{Path, Query};
use axum::http::Method;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde_json::{Value, json};

use super::check_post;
use super::destinations::{Picked, TargetGroup, in_words, targets};
use super::media_files::{MediaOption, on_the_form, options};
use super::{Chrome, Fields, Listing, Paging, Problems, field, html, html_as, record_id, records};
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The record's own fields of the form, by their API names (the members are `member0`…).
const FIELDS: [&str; 5] = [
    "name",
    "number",
    "introMessageMediaFileId",
    "twoWayAudio",
    "checkInUse",
];

/// The most member rows a form is shown with (a form claiming more is cut there).
const MAX_ROWS: usize = 200;

/// The paging groups' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/paging-groups", get(list).post(create))
        .route("/console/paging-groups/new", get(new_form))
        .route("/console/paging-groups/{id}", get(edit_form).post(update))
        .route("/console/paging-groups/{id}/delete", post(delete))
}

/// A paging group as the list shows it.
struct Row {
    id: i64,
    number: String,
    name: String,
    members: Vec<String>,
    intro: String,
    options: String,
}

#[derive(Template)]
#[template(path = "paging_groups.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

/// One member row of the form.
struct MemberRow {
    /// The picker's field name, `member0`….
    name: String,
    /// Its label, `Member 1`.
    label: String,
    picked: Picked,
    /// What the API said is wrong with this member.
    problem: Option<String>,
}

/// What the form holds.
struct Values {
    number: String,
    name: String,
    check_in_use: bool,
    two_way_audio: bool,
    /// The intro media file's id, `0` for none.
    intro: String,
    members: Vec<Picked>,
}

impl Values {
    /// The values of an API answer.
    fn of_answer(group: &Value) -> Values {
        let text = |key: &str| group[key].as_str().unwrap_or_default().to_owned();
        Values {
            number: text("number"),
            name: text("name"),
            check_in_use: group["checkInUse"].as_str() == Some("on"),
            two_way_audio: group["twoWayAudio"].as_str() == Some("yes"),
            intro: group["introMessageMediaFileId"]
                .as_i64()
                .unwrap_or(0)
                .to_string(),
            members: group["routingDestinations"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(Picked::of_answer)
                .collect(),
        }
    }

    /// The values of a posted form, its member rows as many as it says it showed.
    fn of_form(fields: &Fields) -> Values {
        let rows = field(fields, "members")
            .parse::<usize>()
            .unwrap_or(0)
            .min(MAX_ROWS);
        Values {
            number: field(fields, "number").to_owned(),
            name: field(fields, "name").to_owned(),
            check_in_use: field(fields, "checkInUse") == "on",
            two_way_audio: field(fields, "twoWayAudio") == "yes",
            intro: field(fields, "introMessageMediaFileId").to_owned(),
            members: (0..rows)
                .map(|row| Picked::of_form(fields, &format!("member{row}")))
                .collect(),
        }
    }

    /// The API body: the rows picked, in order, and for each member sent the row it came
    /// from (so the API's errors about member `k` go back to that row).
    fn body(&self) -> (Value, Vec<usize>) {
        let (rows, members): (Vec<usize>, Vec<Value>) = self
            .members
            .iter()
            .enumerate()
            .filter_map(|(row, picked)| picked.body().map(|body| (row, body)))
            .unzip();
        let intro = self.intro.trim();
        let body = json!({
            "number": self.number.trim(),
            "name": self.name.trim(),
            "checkInUse": if self.check_in_use { json!("on") } else { Value::Null },
            "twoWayAudio": if self.two_way_audio { json!("yes") } else { Value::Null },
            "introMessageMediaFileId": if intro.is_empty() {
                json!(0)
            } else {
                intro.parse::<i64>().map_or_else(|_| json!(intro), |id| json!(id))
            },
            "routingDestinations": members,
        });
        (body, rows)
    }
}

#[derive(Template)]
#[template(path = "paging_group_form.html")]
struct FormPage {
    chrome: Chrome,
    /// `None` for a new paging group.
    id: Option<i64>,
    number: String,
    name: String,
    check_in_use: bool,
    two_way_audio: bool,
    intro: String,
    media_files: Vec<MediaOption>,
    groups: Vec<TargetGroup>,
    members: Vec<MemberRow>,
    problems: Problems,
}

impl FormPage {
    /// The form of `values`, with `problems` and each member row's own problem.
    async fn of(
        visit: &mut Visit,
        id: Option<i64>,
        values: Values,
        problems: Problems,
        mut row_problems: Vec<Option<String>>,
    ) -> Result<FormPage, PageError> {
        let person = visit.acting().await?;
        let groups = targets(visit, &person, &["EXT"]).await?;
        let media_files = options(visit).await?;
        row_problems.resize(values.members.len(), None);
        let members = values
            .members
            .into_iter()
            .zip(row_problems)
            .enumerate()
            .map(|(row, (picked, problem))| MemberRow {
                name: format!("member{row}"),
                label: format!("Member {}", row + 1),
                picked,
                problem,
            })
            .collect();
        Ok(FormPage {
            chrome: visit.chrome("paging"),
            id,
            number: values.number,
            name: values.name,
            check_in_use: values.check_in_use,
            two_way_audio: values.two_way_audio,
            intro: values.intro,
            media_files,
            groups,
            members,
            problems,
        })
    }
}

/// `GET /console/paging-groups`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing =
        Listing::new("/console/paging-groups", params).with("query", field(params, "query"));
    let mut order = super::tenant_pair(&person);
    order.push(("sortBy", "number".to_owned()));
    let answer = visit
        .get(&listing.api("/v2/admin/paging-groups/", order))
        .await?;
    let rows = records(&answer)
        .iter()
        .map(|group| {
            let text = |key: &str| group[key].as_str().unwrap_or_default().to_owned();
            let options = [
                (group["twoWayAudio"].as_str() == Some("yes")).then_some("two-way audio"),
                (group["checkInUse"].as_str() == Some("on")).then_some("skips busy members"),
            ];
            Row {
                id: group["id"].as_i64().unwrap_or(0),
                number: text("number"),
                name: text("name"),
                members: group["routingDestinations"]
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .map(in_words)
                    .collect(),
                intro: group["introMessageMediaFile"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                options: options.into_iter().flatten().collect::<Vec<_>>().join(", "),
            }
        })
        .collect();
    let note = match field(params, "done") {
        "created" => Some("The paging group is created."),
        "updated" => Some("The paging group is saved."),
        "deleted" => Some("The paging group is deleted."),
        _ => None,
    };
    html(&ListPage {
        chrome: visit.chrome("paging"),
        search: listing.filter("query").to_owned(),
        paging: listing.paging(&answer),
        rows,
        note,
    })
}

/// `GET /console/paging-groups/new`: an empty form with one member row.
async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        let values = Values {
            number: String::new(),
            name: String::new(),
            check_in_use: false,
            two_way_audio: false,
            intro: "0".to_owned(),
            members: vec![Picked::default()],
        };
        let page = FormPage::of(&mut visit, None, values, Problems::default(), Vec::new()).await?;
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// `GET /console/paging-groups/{id}`: the form of a saved group, one empty row after its
/// members.
async fn edit_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        visit.acting().await?;
        let group = visit.get(&format!("/v2/admin/paging-groups/{id}")).await?;
        let mut values = Values::of_answer(&group);
        values.members.push(Picked::default());
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

/// `POST /console/paging-groups`: creates one (or shows one more member row).
async fn create(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = save(&mut visit, None, &fields).await;
    visit.finish(page)
}

/// `POST /console/paging-groups/{id}`: saves one (or shows one more member row).
async fn update(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = match record_id(&id) {
        Ok(id) => save(&mut visit, Some(id), &fields).await,
        Err(error) => Err(error),
    };
    visit.finish(page)
}

/// `'body/routingDestinations/2/id' must …` → (2, `must …`).
fn member_error(error: &str) -> Option<(usize, &str)> {
    super::item_error(error, "routingDestinations").map(|(index, _, message)| (index, message))
}

async fn save(visit: &mut Visit, id: Option<i64>, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    let person = visit.acting().await?;
    let mut values = Values::of_form(fields);
    if field(fields, "action") == "add" {
        values.members.push(Picked::default());
        let page = FormPage::of(visit, id, values, Problems::default(), Vec::new()).await?;
        return html(&page);
    }
    let (mut body, rows) = values.body();
    let answer = match id {
        None => {
            // A paging group's body names its tenant whoever creates it (the API requires
            // it, as the release notes' body has it).
            body["tenantId"] = json!(person.acting.as_ref().map_or(0, |t| t.id));
            // A flag left off is not sent on creation (null is how a change clears it).
            if let Some(object) = body.as_object_mut() {
                object.retain(|_, value| !value.is_null());
            }
            visit
                .call(Method::POST, "/v2/admin/paging-groups/", Some(body))
                .await?
        }
        Some(id) => {
            visit
                .call(
                    Method::PATCH,
                    &format!("/v2/admin/paging-groups/{id}"),
                    Some(body),
                )
                .await?
        }
    };
    if answer.status.is_success() {
        let done = if id.is_some() { "updated" } else { "created" };
        return Ok(Redirect::to(&format!("/console/paging-groups?done={done}")).into_response());
    }
    if !on_the_form(answer.status) {
        return Err(refusal(&answer));
    }
    let mut problems = Problems::of_refusal(&answer.json(), &FIELDS);
    let mut row_problems: Vec<Option<String>> = vec![None; values.members.len()];
    problems.general.retain(|error| match member_error(error) {
        Some((index, message)) => match rows.get(index) {
            Some(&row) => {
                let slot = &mut row_problems[row];
                *slot = Some(match slot.take() {
                    Some(before) => format!("{before}; {message}"),
                    None => message.to_owned(),
                });
                false
            }
            None => true,
        },
        None => true,
    });
    let page = FormPage::of(visit, id, values, problems, row_problems).await?;
    html_as(&page, answer.status)
}

/// `POST /console/paging-groups/{id}/delete`.
async fn delete(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = async {
        check_post(&visit, &fields)?;
        let id = record_id(&id)?;
        visit.acting().await?;
        let answer = visit
            .call(
                Method::DELETE,
                &format!("/v2/admin/paging-groups/{id}"),
                None,
            )
            .await?;
        if !answer.status.is_success() {
            return Err(refusal(&answer));
        }
        Ok(Redirect::to("/console/paging-groups?done=deleted").into_response())
    }
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_picked_are_sent_in_order_and_remembered() {
        let fields: Fields = [
            ("members", "3"),
            ("member0", "EXT:4"),
            ("member1", ""),
            ("member2", "EXT:9"),
            ("name", " Store "),
            ("number", "450"),
            ("twoWayAudio", "yes"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let (body, rows) = Values::of_form(&fields).body();
        assert_eq!(
            body["routingDestinations"],
            json!([{"destType": "EXT", "id": 4}, {"destType": "EXT", "id": 9}])
        );
        assert_eq!(rows, vec![0, 2]);
        assert_eq!(body["name"], "Store");
        assert_eq!(body["twoWayAudio"], "yes");
        assert_eq!(body["checkInUse"], Value::Null);
        assert_eq!(body["introMessageMediaFileId"], 0);
    }

    #[test]
    fn a_member_error_names_its_member() {
        assert_eq!(
            member_error("'body/routingDestinations/1/id' must name an extension"),
            Some((1, "must name an extension"))
        );
        assert_eq!(member_error("'body/name' is empty"), None);
    }
}
