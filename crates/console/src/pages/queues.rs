//! Call queues: listed with the API's paging and search, created, edited and deleted
//! through the API. Members are rows of the form — an extension, its position and its
//! penalty — so they are added (a free row), removed (no extension) and reordered (the
//! positions) without JavaScript; the API keeps them by position. Hold music is a
//! music-on-hold playlist or a media file picked from the API's lists.

use askama::Template;
use axum::Form;
use axum::Router;
use axum::extract::{Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use switchboard_domain::records::queue::QueueStrategy;

use super::check_post;
use super::destinations::{Picked, TargetGroup, in_words, targets};
use super::ivrs::{ChoiceGroup, choices, integer_of, label_of};
use super::{
    Chrome, Fields, Listing, Paging, Problems, field, html, html_as, record_id, records,
    tenant_pair,
};
use crate::session::Person;
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, refusal};

/// The queue pages' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/queues", get(list).post(create))
        .route("/console/queues/new", get(new_form))
        .route("/console/queues/{id}", get(edit_form).post(update))
        .route("/console/queues/{id}/delete", post(delete))
}

/// The fields the form shows by their API names (the hold music's two ids are one field,
/// `hold`; the members are rows `member-N-…`).
const FIELDS: [&str; 9] = [
    "name",
    "number",
    "strategy",
    "maxWaitSeconds",
    "maxCallers",
    "announcePosition",
    "musicOnHoldId",
    "holdMediaFileId",
    "timeoutDestination",
];

/// The API's strategies, in words.
const STRATEGIES: [(&str, &str); QueueStrategy::ALL.len()] = [
    (QueueStrategy::RingAll.as_str(), "Ring all members at once"),
    (QueueStrategy::RoundRobin.as_str(), "Each member in turn"),
    (
        QueueStrategy::LeastRecent.as_str(),
        "The member who answered least recently",
    ),
    (
        QueueStrategy::FewestCalls.as_str(),
        "The member with the fewest calls",
    ),
    (QueueStrategy::Random.as_str(), "A member at random"),
];

/// Free member rows the form offers beyond the members, for adding some.
const FREE_ROWS: usize = 3;

/// Most member rows read from a form (the API takes 500 members).
const MAX_ROWS: usize = 600;

/// A JSON string, or empty.
fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// A strategy in words.
fn strategy_words(strategy: &str) -> String {
    STRATEGIES
        .iter()
        .find(|(value, _)| *value == strategy)
        .map_or(strategy, |(_, words)| words)
        .to_owned()
}

/// A queue as the list shows it.
struct Row {
    id: i64,
    number: String,
    name: String,
    strategy: String,
    members: Vec<String>,
    hold: String,
    timeout: String,
}

#[derive(Template)]
#[template(path = "queues.html")]
struct ListPage {
    chrome: Chrome,
    search: String,
    rows: Vec<Row>,
    paging: Paging,
    note: Option<&'static str>,
}

/// A strategy to pick.
struct Strategy {
    value: &'static str,
    words: &'static str,
}

/// One member row of the form.
struct MemberRow {
    /// Its place among the rows, for the field names (`member-2-id`).
    index: usize,
    /// The picked extension's id, or empty for a free row.
    extension: String,
    /// Its position, as typed.
    order: String,
    /// Its penalty, as typed.
    penalty: String,
    /// What the API said is wrong with it.
    problem: Option<String>,
}

#[derive(Template)]
#[template(path = "queue_form.html")]
struct FormPage {
    chrome: Chrome,
    /// `None` for a new queue.
    id: Option<i64>,
    name: String,
    number: String,
    strategy: String,
    strategies: Vec<Strategy>,
    members: Vec<MemberRow>,
    /// The extensions a member row may pick.
    extensions: ChoiceGroup,
    /// `moh:1`, `media:4`, or empty for the tenant's default.
    hold: String,
    holds: Vec<ChoiceGroup>,
    max_wait: String,
    max_callers: String,
    announce_position: bool,
    timeout: Picked,
    /// The targets the timeout destination may pick.
    groups: Vec<TargetGroup>,
    problems: Problems,
}

/// The hold music the person may pick: the tenant's playlists and media files.
async fn holds(visit: &mut Visit, person: &Person) -> Result<Vec<ChoiceGroup>, PageError> {
    Ok(vec![
        choices(
            visit,
            person,
            "/v2/admin/music-on-hold/",
            "moh",
            "Music on hold",
        )
        .await?,
        choices(
            visit,
            person,
            "/v2/admin/media-files/",
            "media",
            "Media files",
        )
        .await?,
    ])
}

/// The extensions a member may be, labelled by number and name.
async fn extensions(visit: &mut Visit, person: &Person) -> Result<ChoiceGroup, PageError> {
    let mut pairs = tenant_pair(person);
    pairs.push(("paginated", "0".to_owned()));
    pairs.push(("sortBy", "number".to_owned()));
    let answer = visit
        .get(&format!("/v2/admin/extensions/?{}", super::query(&pairs)))
        .await?;
    let choices = records(&answer)
        .iter()
        .filter_map(|e| {
            Some(super::ivrs::Choice {
                value: e["id"].as_i64()?.to_string(),
                label: format!("{} {}", text(&e["number"]), text(&e["name"])),
            })
        })
        .collect();
    Ok(ChoiceGroup {
        label: "Extensions",
        choices,
    })
}

/// The hold music an API answer holds, as the form's value: the playlist wins, as it
/// does when a call waits.
fn hold_of(queue: &Value) -> String {
    match (
        queue["musicOnHoldId"].as_i64().unwrap_or(0),
        queue["holdMediaFileId"].as_i64().unwrap_or(0),
    ) {
        (moh, _) if moh > 0 => format!("moh:{moh}"),
        (_, media) if media > 0 => format!("media:{media}"),
        _ => String::new(),
    }
}

/// `GET /console/queues`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let listing = Listing::new("/console/queues", params).with("query", field(params, "query"));
    let mut order = tenant_pair(&person);
    order.push(("sortBy", "number".to_owned()));
    let answer = visit.get(&listing.api("/v2/admin/queues/", order)).await?;
    let holds = holds(visit, &person).await?;
    let rows = records(&answer)
        .iter()
        .map(|queue| Row {
            id: queue["id"].as_i64().unwrap_or(0),
            number: text(&queue["number"]),
            name: text(&queue["name"]),
            strategy: strategy_words(queue["strategy"].as_str().unwrap_or_default()),
            members: queue["members"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(|m| format!("{} {}", text(&m["number"]), text(&m["name"])))
                .collect(),
            hold: label_of(&holds, &hold_of(queue)),
            timeout: in_words(&queue["timeoutDestination"]),
        })
        .collect();
    let paging = listing.paging(&answer);
    let note = match field(params, "done") {
        "created" => Some("The queue is created."),
        "updated" => Some("The queue is saved."),
        "deleted" => Some("The queue is deleted."),
        _ => None,
    };
    html(&ListPage {
        chrome: visit.chrome("queues"),
        search: listing.filter("query").to_owned(),
        rows,
        paging,
        note,
    })
}

/// `rows` and the free rows after them, the free ones placed after the last position.
fn with_free_rows(mut rows: Vec<MemberRow>) -> Vec<MemberRow> {
    let last = rows
        .iter()
        .filter_map(|row| row.order.trim().parse::<i64>().ok())
        .max()
        .unwrap_or(0)
        .max(i64::try_from(rows.len()).unwrap_or(0));
    for free in 1..=FREE_ROWS {
        rows.push(MemberRow {
            index: rows.len(),
            extension: String::new(),
            order: (last + i64::try_from(free).unwrap_or(0)).to_string(),
            penalty: "0".to_owned(),
            problem: None,
        });
    }
    rows
}

/// The strategies to pick.
fn strategies() -> Vec<Strategy> {
    STRATEGIES
        .iter()
        .map(|&(value, words)| Strategy { value, words })
        .collect()
}

/// `GET /console/queues/new`: an empty queue with the API's defaults filled in.
async fn new_form(mut visit: Visit) -> Response {
    let page = async {
        let person = visit.acting().await?;
        let page = FormPage {
            id: None,
            name: String::new(),
            number: String::new(),
            strategy: "ringAll".to_owned(),
            strategies: strategies(),
            members: with_free_rows(Vec::new()),
            extensions: extensions(&mut visit, &person).await?,
            hold: String::new(),
            holds: holds(&mut visit, &person).await?,
            max_wait: "300".to_owned(),
            max_callers: "0".to_owned(),
            announce_position: false,
            timeout: Picked::default(),
            groups: targets(&mut visit, &person, &[]).await?,
            problems: Problems::default(),
            chrome: visit.chrome("queues"),
        };
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// `GET /console/queues/{id}`.
async fn edit_form(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        let id = record_id(&id)?;
        let person = visit.acting().await?;
        let queue = visit.get(&format!("/v2/admin/queues/{id}")).await?;
        let members = queue["members"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(index, m)| MemberRow {
                index,
                extension: m["id"].as_i64().unwrap_or(0).to_string(),
                order: m["order"].as_i64().unwrap_or(0).to_string(),
                penalty: m["penalty"].as_i64().unwrap_or(0).to_string(),
                problem: None,
            })
            .collect();
        let number = |key: &str| queue[key].as_i64().unwrap_or(0).to_string();
        let page = FormPage {
            id: Some(id),
            name: text(&queue["name"]),
            number: text(&queue["number"]),
            strategy: text(&queue["strategy"]),
            strategies: strategies(),
            members: with_free_rows(members),
            extensions: extensions(&mut visit, &person).await?,
            hold: hold_of(&queue),
            holds: holds(&mut visit, &person).await?,
            max_wait: number("maxWaitSeconds"),
            max_callers: number("maxCallers"),
            announce_position: queue["announcePosition"].as_i64() == Some(1),
            timeout: Picked::of_answer(&queue["timeoutDestination"]),
            groups: targets(&mut visit, &person, &[]).await?,
            problems: Problems::default(),
            chrome: visit.chrome("queues"),
        };
        html(&page)
    }
    .await;
    visit.finish(page)
}

/// The member rows of a posted form, as typed.
fn rows_of(fields: &Fields) -> Vec<MemberRow> {
    (0..MAX_ROWS)
        .map_while(|index| {
            let extension = fields.get(&format!("member-{index}-id"))?;
            Some(MemberRow {
                index,
                extension: extension.clone(),
                order: field(fields, &format!("member-{index}-order")).to_owned(),
                penalty: field(fields, &format!("member-{index}-penalty")).to_owned(),
                problem: None,
            })
        })
        .collect()
}

/// The body the form's fields make, and the row of each member sent (in the order sent:
/// the API's errors name a member by its place in the body). A row without an extension
/// is no member; a member without a position or penalty gets the API's default.
fn body_of(fields: &Fields, rows: &[MemberRow]) -> (Value, Vec<usize>) {
    let mut sent = Vec::new();
    let members: Vec<Value> = rows
        .iter()
        .filter(|row| !row.extension.trim().is_empty())
        .map(|row| {
            sent.push(row.index);
            let mut member = Map::new();
            member.insert("id".to_owned(), integer_of(&row.extension));
            for (key, typed) in [("order", &row.order), ("penalty", &row.penalty)] {
                if !typed.trim().is_empty() {
                    member.insert(key.to_owned(), integer_of(typed));
                }
            }
            Value::Object(member)
        })
        .collect();
    let hold = field(fields, "hold").trim();
    let body = json!({
        "name": field(fields, "name").trim(),
        "number": field(fields, "number").trim(),
        "strategy": field(fields, "strategy").trim(),
        "members": members,
        "musicOnHoldId": hold.strip_prefix("moh:").map(integer_of),
        "holdMediaFileId": hold.strip_prefix("media:").map_or(json!(0), integer_of),
        "maxWaitSeconds": integer_of(field(fields, "maxWaitSeconds")),
        "maxCallers": integer_of(field(fields, "maxCallers")),
        "announcePosition": i64::from(field(fields, "announcePosition") == "1"),
        "timeoutDestination": Picked::of_form(fields, "timeoutDestination").body(),
    });
    (body, sent)
}

/// `'body/members/3/penalty' must …` → (3, `penalty: must …`): an error about the member
/// at place 3 of the body; one about the members as a whole is none.
fn member_error(error: &str) -> Option<(usize, String)> {
    let (index, path, message) = super::item_error(error, "members")?;
    let message = match path.split('/').next() {
        Some("order") => format!("position: {message}"),
        Some("penalty") => format!("penalty: {message}"),
        Some("id") => format!("extension: {message}"),
        _ => message.to_owned(),
    };
    Some((index, message))
}

/// What the API said of a refused body, each problem next to its field: the hold music's
/// two ids to the hold music, a member's to its row.
fn problems_of(answer: &Value, sent: &[usize], rows: &mut [MemberRow]) -> Problems {
    let mut problems = Problems::of_refusal(answer, &FIELDS);
    for id in ["musicOnHoldId", "holdMediaFileId"] {
        if let Some(messages) = problems.fields.remove(id) {
            problems
                .fields
                .entry("hold".to_owned())
                .or_default()
                .extend(messages);
        }
    }
    problems.general.retain(|error| {
        let Some((index, message)) = member_error(error) else {
            return true;
        };
        let Some(row) = sent.get(index).and_then(|row| rows.get_mut(*row)) else {
            return true;
        };
        row.problem = Some(match row.problem.take() {
            Some(before) => format!("{before}; {message}"),
            None => message,
        });
        false
    });
    problems
}

/// `POST /console/queues`: creates one.
async fn create(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = save(&mut visit, None, &fields).await;
    visit.finish(page)
}

/// `POST /console/queues/{id}`: saves one.
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
    let mut rows = rows_of(fields);
    let (mut body, sent) = body_of(fields, &rows);
    let answer = match id {
        None => {
            super::for_acting_tenant(&person, &mut body);
            visit
                .call(Method::POST, "/v2/admin/queues/", Some(body))
                .await?
        }
        Some(id) => {
            visit
                .call(Method::PATCH, &format!("/v2/admin/queues/{id}"), Some(body))
                .await?
        }
    };
    if answer.status.is_success() {
        let done = if id.is_some() { "updated" } else { "created" };
        return Ok(Redirect::to(&format!("/console/queues?done={done}")).into_response());
    }
    if !answer.status.is_client_error()
        || answer.status == StatusCode::NOT_FOUND
        || answer.status == StatusCode::FORBIDDEN
    {
        return Err(refusal(&answer));
    }
    let problems = problems_of(&answer.json(), &sent, &mut rows);
    let page = FormPage {
        id,
        name: field(fields, "name").to_owned(),
        number: field(fields, "number").to_owned(),
        strategy: field(fields, "strategy").to_owned(),
        strategies: strategies(),
        members: rows,
        extensions: extensions(visit, &person).await?,
        hold: field(fields, "hold").to_owned(),
        holds: holds(visit, &person).await?,
        max_wait: field(fields, "maxWaitSeconds").to_owned(),
        max_callers: field(fields, "maxCallers").to_owned(),
        announce_position: field(fields, "announcePosition") == "1",
        timeout: Picked::of_form(fields, "timeoutDestination"),
        groups: targets(visit, &person, &[]).await?,
        problems,
        chrome: visit.chrome("queues"),
    };
    html_as(&page, answer.status)
}

/// `POST /console/queues/{id}/delete`: the API refuses (409, naming them) while something
/// still routes to the queue.
async fn delete(mut visit: Visit, Path(id): Path<String>, Form(fields): Form<Fields>) -> Response {
    let page = super::delete_record(
        &mut visit,
        &fields,
        &id,
        "/v2/admin/queues/",
        "/console/queues?done=deleted",
    )
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::pages::form_of as fields;

    #[test]
    fn member_rows_become_the_apis_members_in_their_positions() {
        let fields = fields(&[
            ("name", "Support"),
            ("number", "600"),
            ("strategy", "roundRobin"),
            ("member-0-id", "7"),
            ("member-0-order", "3"),
            ("member-0-penalty", "0"),
            ("member-1-id", ""),
            ("member-1-order", "4"),
            ("member-2-id", "9"),
            ("member-2-order", "1"),
            ("member-2-penalty", "lots"),
            ("hold", "moh:2"),
            ("maxWaitSeconds", "120"),
            ("maxCallers", ""),
            ("announcePosition", "1"),
            ("timeoutDestination", "VOICEMAIL:7"),
        ]);
        let rows = rows_of(&fields);
        assert_eq!(rows.len(), 3);
        let (body, sent) = body_of(&fields, &rows);
        assert_eq!(
            body,
            json!({
                "name": "Support", "number": "600", "strategy": "roundRobin",
                "members": [
                    {"id": 7, "order": 3, "penalty": 0},
                    {"id": 9, "order": 1, "penalty": "lots"},
                ],
                "musicOnHoldId": 2, "holdMediaFileId": 0,
                "maxWaitSeconds": 120, "maxCallers": "", "announcePosition": 1,
                "timeoutDestination": {"destType": "VOICEMAIL", "id": 7},
            })
        );
        assert_eq!(sent, vec![0, 2]);
        let mut rows = rows;
        let answer = json!({"validationErrors": [
            "'body/members/1/penalty' must be an integer",
            "'body/holdMediaFileId' is foreign",
        ]});
        let problems = problems_of(&answer, &sent, &mut rows);
        assert_eq!(
            rows[2].problem.as_deref(),
            Some("penalty: must be an integer")
        );
        assert!(rows[0].problem.is_none());
        assert_eq!(problems.of("hold").as_deref(), Some("is foreign"));
        assert!(problems.general.is_empty());
    }

    #[test]
    fn free_rows_follow_the_last_position() {
        let rows = with_free_rows(vec![MemberRow {
            index: 0,
            extension: "4".to_owned(),
            order: "5".to_owned(),
            penalty: "0".to_owned(),
            problem: None,
        }]);
        let orders: Vec<&str> = rows.iter().map(|row| row.order.as_str()).collect();
        assert_eq!(orders, vec!["5", "6", "7", "8"]);
        assert_eq!(rows[3].index, 3);
    }
}
