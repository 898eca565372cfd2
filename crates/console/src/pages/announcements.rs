//! Announcements: a media file played on the IVR menus it is attached to, while active and
//! between its start and end — listed with the API's paging, created, edited and deleted
//! through the API. The menus are checkboxes (each sent once, in the menus' order); every
//! rule (the file and menus the tenant's, the end after the start, a branch for whoever
//! has none of their own) is the API's, its errors shown next to the field they name.

use std::collections::BTreeSet;

use askama::Template;
use axum::extract::{Path, Query};
use axum::http::Method;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde_json::{Value, json};

use super::check_post;
use super::extensions::{BranchOption, branches};
use super::media_files::{MediaOption, on_the_form, options};
use super::{
    Chrome, Fields, Listing, Paging, Problems, every, field, for_acting_tenant, html, html_as,
    number_or_text, record_id, records, text,
};
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The API's collection of announcements.
const API: &str = "/v2/admin/announcements/";

/// The fields of the form, by their API names (a menu's checkbox is `ivr-{id}`).
const FIELDS: [&str; 8] = [
    "name",
    "description",
    "mediaFileId",
    "active",
    "startDate",
    "endDate",
    "branchId",
    "ivrs",
];

/// The announcements' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/announcements", get(list).post(create))
        .route("/console/announcements/new", get(new_form))
        .route("/console/announcements/{id}", get(edit_form).post(update))
        .route("/console/announcements/{id}/delete", post(delete))
}

/// An announcement as the list shows it.
struct Row {
    id: i64,
    name: String,
    media_file: String,
    start: String,
    end: String,
    menus: Vec<String>,
    active: bool,
}

#[derive(Template)]
#[template(path = "announcements.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

/// What the form holds.
#[derive(Debug, Default, PartialEq)]
struct Values {
    name: String,
    description: String,
    /// The media file's id as the form sent it.
    media_file: String,
    active: bool,
    start: String,
    end: String,
    /// The branch's id as the form sent it (empty: none picked).
    branch: String,
    /// The ids of the menus ticked.
    menus: BTreeSet<i64>,
}

impl Values {
    /// A new announcement's: active, on no menu yet.
    fn new() -> Values {
        Values {
            active: true,
            ..Values::default()
        }
    }

    /// The values of an API answer.
    fn of_answer(record: &Value) -> Values {
        let id = |value: &Value| value.as_i64().map(|id| id.to_string()).unwrap_or_default();
        Values {
            name: text(&record["name"]),
            description: text(&record["description"]),
            media_file: id(&record["mediaFile"]["id"]),
            active: record["active"].as_i64() == Some(1),
            start: text(&record["startDate"]),
            end: text(&record["endDate"]),
            branch: id(&record["branch"]["id"]),
            menus: record["ivrs"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(|ivr| ivr["id"].as_i64())
                .collect(),
        }
    }

    /// The values of a posted form.
    fn of_form(fields: &Fields) -> Values {
        Values {
            name: field(fields, "name").to_owned(),
            description: field(fields, "description").to_owned(),
            media_file: field(fields, "mediaFileId").to_owned(),
            active: field(fields, "active") == "1",
            start: field(fields, "startDate").to_owned(),
            end: field(fields, "endDate").to_owned(),
            branch: field(fields, "branchId").to_owned(),
            menus: fields
                .iter()
                .filter(|(_, value)| value.as_str() == "on")
                .filter_map(|(key, _)| key.strip_prefix("ivr-")?.parse().ok())
                .collect(),
        }
    }

    /// The API body, the menus in the order `menus` lists them (none offered — none
    /// listed to the person — sends none, so a change keeps the record's). A media file
    /// or branch left unpicked is not sent (the API names what a new announcement lacks;
    /// a change keeps it); texts go as typed, for the API to judge.
    fn body(&self, menus: &[Menu]) -> Value {
        let mut body = json!({
            "name": self.name.trim(),
            "description": self.description.trim(),
            "active": i64::from(self.active),
            "startDate": self.start.trim(),
            "endDate": self.end.trim(),
            "ivrs": menus
                .iter()
                .filter(|menu| self.menus.contains(&menu.id))
                .map(|menu| json!({"id": menu.id}))
                .collect::<Vec<_>>(),
        });
        if menus.is_empty()
            && let Some(object) = body.as_object_mut()
        {
            object.remove("ivrs");
        }
        for (key, typed) in [
            ("mediaFileId", &self.media_file),
            ("branchId", &self.branch),
        ] {
            if let Some(value) = number_or_text(typed) {
                body[key] = value;
            }
        }
        body
    }
}

/// An IVR menu to tick.
struct Menu {
    id: i64,
    /// Its number and name.
    label: String,
}

/// The IVR menus of the tenant acted on, by number, as the API lists them to the person.
async fn menus(visit: &mut Visit) -> Result<Vec<Menu>, PageError> {
    let person = visit.acting().await?;
    Ok(
        every(visit, &person, "/v2/admin/ivrs/", &[("sortBy", "number")])
            .await?
            .iter()
            .map(|ivr| Menu {
                id: ivr["id"].as_i64().unwrap_or(0),
                label: format!("{} {}", text(&ivr["number"]), text(&ivr["name"])),
            })
            .collect(),
    )
}

#[derive(Template)]
#[template(path = "announcement_form.html")]
struct FormPage {
    chrome: Chrome,
    /// `None` for a new announcement.
    id: Option<i64>,
    values: Values,
    media_files: Vec<MediaOption>,
    branches: Vec<BranchOption>,
    menus: Vec<Menu>,
    problems: Problems,
}

impl FormPage {
    /// The form of `values`, with `problems`.
    async fn of(
        visit: &mut Visit,
        id: Option<i64>,
        values: Values,
        problems: Problems,
    ) -> Result<FormPage, PageError> {
        let person = visit.acting().await?;
        Ok(FormPage {
            chrome: visit.chrome("announcements"),
            id,
            values,
            media_files: options(visit).await?,
            branches: branches(visit, &person).await?,
            menus: menus(visit).await?,
            problems,
        })
    }
}

/// `GET /console/announcements`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing =
        Listing::new("/console/announcements", params).with("query", field(params, "query"));
    let mut order = super::tenant_pair(&person);
    order.push(("sortBy", "startDate".to_owned()));
    let answer = visit.get(&listing.api(API, order)).await?;
    let rows = records(&answer)
        .iter()
        .map(|record| Row {
            id: record["id"].as_i64().unwrap_or(0),
            name: text(&record["name"]),
            media_file: text(&record["mediaFile"]["name"]),
            start: text(&record["startDate"]),
            end: text(&record["endDate"]),
            menus: record["ivrs"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(|ivr| text(&ivr["name"]))
                .collect(),
            active: record["active"].as_i64() == Some(1),
        })
        .collect();
    let note = match field(params, "done") {
        "created" => Some("The announcement is created."),
        "updated" => Some("The announcement is saved."),
        "deleted" => Some("The announcement is deleted."),
        _ => None,
    };
    html(&ListPage {
        chrome: visit.chrome("announcements"),
        search: listing.filter("query").to_owned(),
        paging: listing.paging(&answer),
        rows,
        note,
    })
}

/// `GET /console/announcements/new`: an empty form, active.
async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        let page = FormPage::of(&mut visit, None, Values::new(), Problems::default()).await?;
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// `GET /console/announcements/{id}`: a saved announcement's form.
async fn edit_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        visit.acting().await?;
        let record = visit.get(&format!("{API}{id}")).await?;
        let values = Values::of_answer(&record);
        html(&FormPage::of(&mut visit, Some(id), values, Problems::default()).await?)
    }
    .await;
    visit.finish(page)
}

/// `POST /console/announcements`: creates one.
async fn create(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = save(&mut visit, None, &fields).await;
    visit.finish(page)
}

/// `POST /console/announcements/{id}`: saves one.
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
    let values = Values::of_form(fields);
    let mut body = values.body(&menus(visit).await?);
    let answer = match id {
        None => {
            for_acting_tenant(&person, &mut body);
            visit.call(Method::POST, API, Some(body)).await?
        }
        Some(id) => {
            visit
                .call(Method::PATCH, &format!("{API}{id}"), Some(body))
                .await?
        }
    };
    if answer.status.is_success() {
        let done = if id.is_some() { "updated" } else { "created" };
        return Ok(Redirect::to(&format!("/console/announcements?done={done}")).into_response());
    }
    if !on_the_form(answer.status) {
        return Err(refusal(&answer));
    }
    let problems = Problems::of_refusal(&answer.json(), &FIELDS);
    let page = FormPage::of(visit, id, values, problems).await?;
    html_as(&page, answer.status)
}

/// `POST /console/announcements/{id}/delete`.
async fn delete(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = super::delete_record(
        &mut visit,
        &fields,
        &id,
        API,
        "/console/announcements?done=deleted",
    )
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pages::form_of;

    fn menus() -> Vec<Menu> {
        [(7, "500 Main menu"), (3, "510 After hours")]
            .into_iter()
            .map(|(id, label)| Menu {
                id,
                label: label.to_owned(),
            })
            .collect()
    }

    #[test]
    fn the_menus_ticked_are_sent_in_the_menus_order() {
        let fields = form_of(&[
            ("name", " Holiday closure "),
            ("mediaFileId", "12"),
            ("active", "1"),
            ("startDate", "2026-12-24"),
            ("endDate", "2026-12-27"),
            ("branchId", "4"),
            ("ivr-3", "on"),
            ("ivr-7", "on"),
            ("ivr-9", "off"),
        ]);
        let body = Values::of_form(&fields).body(&menus());
        assert_eq!(
            body,
            json!({"name": "Holiday closure", "description": "", "mediaFileId": 12, "active": 1,
                   "startDate": "2026-12-24", "endDate": "2026-12-27", "branchId": 4,
                   "ivrs": [{"id": 7}, {"id": 3}]})
        );
    }

    #[test]
    fn an_unpicked_branch_is_not_sent_and_what_is_typed_goes_as_typed() {
        let fields = form_of(&[("name", "Closed"), ("mediaFileId", "twelve")]);
        let body = Values::of_form(&fields).body(&menus());
        assert_eq!(
            body,
            json!({"name": "Closed", "description": "", "mediaFileId": "twelve", "active": 0,
                   "startDate": "", "endDate": "", "ivrs": []})
        );
    }

    #[test]
    fn without_menus_offered_none_are_sent() {
        let fields = form_of(&[("name", "Closed"), ("ivr-7", "on")]);
        let body = Values::of_form(&fields).body(&[]);
        assert!(body.get("ivrs").is_none(), "{body}");
    }

    #[test]
    fn an_answer_fills_the_form_it_came_from() {
        let answer = json!({"id": 5, "name": "Closed", "description": "Storm",
            "mediaFile": {"id": 12, "name": "Closed"}, "active": 0,
            "startDate": "2026-12-24", "endDate": "2026-12-24T18:00:00Z",
            "ivrs": [{"id": 3, "name": "After hours", "order": 1}],
            "branch": {"id": 4, "name": "Main"}});
        let values = Values::of_answer(&answer);
        assert_eq!(
            values,
            Values {
                name: "Closed".into(),
                description: "Storm".into(),
                media_file: "12".into(),
                active: false,
                start: "2026-12-24".into(),
                end: "2026-12-24T18:00:00Z".into(),
                branch: "4".into(),
                menus: [3].into(),
            }
        );
    }
}
