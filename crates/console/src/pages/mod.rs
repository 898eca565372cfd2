//! The console's pages: each a handler that reads and writes through the API as the
//! signed-in person, and an askama template in `templates/`.

pub(crate) mod account;
pub(crate) mod announcements;
pub(crate) mod audit;
pub(crate) mod business_hours;
pub(crate) mod button_layouts;
pub(crate) mod calls;
pub(crate) mod campaign_records;
pub(crate) mod campaigns;
pub(crate) mod dashboard;
pub(crate) mod destinations;
pub(crate) mod extensions;
pub(crate) mod faxes;
pub(crate) mod flow;
pub(crate) mod ivrs;
pub(crate) mod media_files;
pub(crate) mod music_on_hold;
pub(crate) mod numbers;
pub(crate) mod opt_outs;
pub(crate) mod paging_groups;
pub(crate) mod people;
pub(crate) mod phones;
pub(crate) mod queues;
pub(crate) mod tenants;
pub(crate) mod uploads;
pub(crate) mod voicemail;

use std::collections::{BTreeMap, HashMap};

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde_json::{Value, json};

pub(crate) use crate::chrome::{Chrome, role_name};
use crate::session::Person;
use crate::visit::PageError;

/// A rendered template as an answer.
pub(crate) fn html(template: &impl Template) -> Result<Response, PageError> {
    Ok(Html(template.render()?).into_response())
}

/// A rendered template as an answer of `status`: a refused form comes back with the
/// API's status (400, 403, 409 …), so a client reading statuses sees the refusal.
pub(crate) fn html_as(template: &impl Template, status: StatusCode) -> Result<Response, PageError> {
    let mut response = html(template)?;
    *response.status_mut() = status;
    Ok(response)
}

/// A posted form's fields.
pub(crate) type Fields = HashMap<String, String>;

/// The field of a form, or empty.
pub(crate) fn field<'a>(fields: &'a Fields, name: &str) -> &'a str {
    fields.get(name).map_or("", String::as_str)
}

/// The name of the hidden field carrying the form token.
pub(crate) const TOKEN_FIELD: &str = "csrf";

/// What the API said was wrong with a form: each broken rule next to the field it names
/// (`'body/name' must …` goes to the field `name`), the rest above the form.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    /// Messages by field name (the API's JSON name of the field).
    pub fields: BTreeMap<String, Vec<String>>,
    /// Messages about no field of the form.
    pub general: Vec<String>,
}

impl Problems {
    /// The problems of an API refusal (`{name, message, code, validationErrors}`), given
    /// the fields the form shows.
    pub fn of_refusal(body: &Value, shown: &[&str]) -> Problems {
        let mut problems = Problems::default();
        let errors = body["validationErrors"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for error in errors.iter().filter_map(Value::as_str) {
            match split_validation_error(error) {
                Some((field, message)) if shown.contains(&field) => problems
                    .fields
                    .entry(field.to_owned())
                    .or_default()
                    .push(message.to_owned()),
                _ => problems.general.push(error.to_owned()),
            }
        }
        if errors.is_empty() {
            let message = body["message"]
                .as_str()
                .unwrap_or("the service refused the change");
            problems.general.push(message.to_owned());
        }
        problems
    }

    /// The messages about `field`, joined for the page.
    pub fn of(&self, field: &str) -> Option<String> {
        self.fields.get(field).map(|messages| messages.join("; "))
    }

    /// Whether anything is wrong.
    pub fn any(&self) -> bool {
        !self.fields.is_empty() || !self.general.is_empty()
    }
}

/// `'body/number' must be …` → (`number`, `must be …`): the first segment of the pointer
/// is the field of the form.
fn split_validation_error(error: &str) -> Option<(&str, &str)> {
    let rest = error.strip_prefix("'body/")?;
    let (pointer, message) = rest.split_once("' ")?;
    let field = pointer.split('/').next()?;
    Some((field, message))
}

/// An API validation error about one item of the body's list `list`
/// (`'body/members/3/penalty' must …`): the item's place in the list sent, the rest of its
/// pointer (`penalty`; empty for the item itself) and the message; `None` for an error
/// about anything else, the list as a whole included. Every page that shows a list as
/// rows puts each item's problems on its row with this.
pub(crate) fn item_error<'a>(error: &'a str, list: &str) -> Option<(usize, &'a str, &'a str)> {
    let rest = error
        .strip_prefix("'body/")?
        .strip_prefix(list)?
        .strip_prefix('/')?;
    let (pointer, message) = rest.split_once("' ")?;
    let (index, path) = pointer.split_once('/').unwrap_or((pointer, ""));
    Some((index.parse().ok()?, path, message))
}

/// A value a `<select>` offers.
pub(crate) struct Choice {
    /// The value sent.
    pub value: String,
    /// What the person reads.
    pub label: String,
}

/// The API's validation errors about the list `list` (`'body/lines/2' …`), taken out of
/// `refusal`: each item's by its position in the list sent, the list's own, and the
/// refusal without them (for [`Problems::of_refusal`]).
pub(crate) fn take_list_errors(
    refusal: &Value,
    list: &str,
) -> (Vec<(usize, String, String)>, Vec<String>, Value) {
    let whole = format!("'body/{list}' ");
    let mut items = Vec::new();
    let mut own = Vec::new();
    let mut rest = Vec::new();
    let errors = refusal["validationErrors"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for error in errors.iter().filter_map(Value::as_str) {
        if let Some(message) = error.strip_prefix(&whole) {
            own.push(message.to_owned());
            continue;
        }
        match item_error(error, list) {
            Some((position, part, message)) => {
                items.push((position, part.to_owned(), message.to_owned()));
            }
            None => rest.push(json!(error)),
        }
    }
    let mut remaining = refusal.clone();
    let anything_taken = !items.is_empty() || !own.is_empty();
    if anything_taken && rest.is_empty() {
        // Nothing left for the form's other fields: no message above the form either.
        remaining = json!({"validationErrors": [], "message": ""});
    } else {
        remaining["validationErrors"] = Value::Array(rest);
    }
    (items, own, remaining)
}

/// A JSON string, or empty.
pub(crate) fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// A number field as the API reads it: a number when it is one, else the text as typed
/// (for the API to refuse in its own words); `None` when empty.
pub(crate) fn number_or_text(typed: &str) -> Option<Value> {
    let typed = typed.trim();
    if typed.is_empty() {
        return None;
    }
    Some(
        typed
            .parse::<i64>()
            .map_or_else(|_| json!(typed), |n| json!(n)),
    )
}

/// Refuses a form posted without a session (to the sign-in page) or without this
/// session's token or from another origin (403), before anything is done.
pub(crate) fn check_post(
    visit: &crate::visit::Visit,
    fields: &Fields,
) -> Result<(), crate::visit::PageError> {
    if visit.person().is_none() {
        return Err(crate::visit::PageError::SignIn);
    }
    visit.check_form(fields.get(TOKEN_FIELD).map(String::as_str))
}

/// Deletes record `id` of the API's `collection` (`/v2/admin/ivrs/`) as the signed-in
/// person, the form's token checked first, and goes back to `back` (the list, saying
/// so); the API's refusal (a record still in use: 409, naming what uses it) is the
/// page's error in its words.
pub(crate) async fn delete_record(
    visit: &mut crate::visit::Visit,
    fields: &Fields,
    id: &str,
    collection: &str,
    back: &str,
) -> crate::visit::PageResult {
    check_post(visit, fields)?;
    let id = record_id(id)?;
    visit.acting().await?;
    let answer = visit
        .call(
            axum::http::Method::DELETE,
            &format!("{collection}{id}"),
            None,
        )
        .await?;
    if !answer.status.is_success() {
        return Err(crate::visit::refusal(&answer));
    }
    Ok(Redirect::to(back).into_response())
}

/// A record id of a console path: what the API takes (`^[1-9][0-9]*$`), else no page.
pub(crate) fn record_id(text: &str) -> Result<i64, PageError> {
    text.parse::<i64>()
        .ok()
        .filter(|id| *id > 0 && !text.starts_with('+') && !text.starts_with('0'))
        .ok_or(PageError::NotFound)
}

/// A list's paging, as the API answers it.
pub(crate) struct Paging {
    /// This page.
    pub page: i64,
    /// The last page (0 for an empty list).
    pub max_page: i64,
    /// Records matching.
    pub total: i64,
    /// The link to the previous page, if any.
    pub previous: Option<String>,
    /// The link to the next page, if any.
    pub next: Option<String>,
}

impl Paging {
    /// The paging of an answered page, with links built by `link(page)`.
    pub fn of(answer: &Value, link: impl Fn(i64) -> String) -> Paging {
        let page = answer["page"].as_i64().unwrap_or(1);
        let max_page = answer["maxPage"].as_i64().unwrap_or(0);
        Paging {
            page,
            max_page,
            total: answer["totalRecords"].as_i64().unwrap_or(0),
            previous: (page > 1).then(|| link(page - 1)),
            next: (page < max_page).then(|| link(page + 1)),
        }
    }
}

/// The rows a list page shows.
const PER_PAGE: i64 = 25;

/// What a list page was asked for — its page and its filters — and the console path its
/// links lead back to: the one place the console pages through the API's lists (the
/// API's `page`/`recordsPerPage`, the filters kept in every page link).
pub(crate) struct Listing {
    path: &'static str,
    page: i64,
    filters: Vec<(&'static str, String)>,
}

impl Listing {
    /// The page asked for at `path` (the first when none or no number is given).
    pub fn new(path: &'static str, params: &Fields) -> Listing {
        Listing {
            path,
            page: field(params, "page").parse::<i64>().unwrap_or(1).max(1),
            filters: Vec::new(),
        }
    }

    /// Keeps the filter `name` when it has a value: sent to the API and kept in links.
    pub fn with(mut self, name: &'static str, value: &str) -> Listing {
        let value = value.trim();
        if !value.is_empty() {
            self.filters.push((name, value.to_owned()));
        }
        self
    }

    /// The filter `name`'s value, or empty.
    pub fn filter(&self, name: &str) -> &str {
        self.filters
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, v)| v.as_str())
    }

    /// The API request for this page of `endpoint`: `pairs` (the tenant acted on, the
    /// order), then the page and the filters.
    pub fn api(&self, endpoint: &str, mut pairs: Vec<(&'static str, String)>) -> String {
        pairs.push(("page", self.page.to_string()));
        pairs.push(("recordsPerPage", PER_PAGE.to_string()));
        pairs.extend(self.filters.iter().cloned());
        format!("{endpoint}?{}", query(&pairs))
    }

    /// The paging of the API's `answer`, its links keeping the filters.
    pub fn paging(&self, answer: &Value) -> Paging {
        Paging::of(answer, |page| {
            let mut pairs = vec![("page", page.to_string())];
            pairs.extend(self.filters.iter().cloned());
            format!("{}?{}", self.path, query(&pairs))
        })
    }
}

/// The records of a list answer.
pub(crate) fn records(answer: &Value) -> &[Value] {
    answer["records"].as_array().map_or(&[], Vec::as_slice)
}

/// A query string of `pairs` (values encoded), without the leading `?`.
pub(crate) fn query(pairs: &[(&str, String)]) -> String {
    serde_urlencoded::to_string(pairs).unwrap_or_default()
}

/// The `tenantId` a platform or partner admin's requests carry (the tenant they act
/// on); none for tenant-scoped people, whose tenant the API knows.
pub(crate) fn tenant_pair(person: &Person) -> Vec<(&'static str, String)> {
    match (&person.acting, person.picks_tenant()) {
        (Some(acting), true) => vec![("tenantId", acting.id.to_string())],
        _ => Vec::new(),
    }
}

/// Every record of the API list `endpoint` for the tenant acted on (unpaged, with the
/// list's own `filters`: `sortBy`, `fax` …), as the API lists them to the person; none
/// when they may not list them (a picker then offers nothing, as the API would). Every
/// picker of the console reads its choices with it.
pub(crate) async fn every(
    visit: &mut crate::visit::Visit,
    person: &Person,
    endpoint: &str,
    filters: &[(&'static str, &str)],
) -> Result<Vec<Value>, PageError> {
    let mut pairs = tenant_pair(person);
    pairs.push(("paginated", "0".to_owned()));
    pairs.extend(
        filters
            .iter()
            .map(|(key, value)| (*key, (*value).to_owned())),
    );
    let answer = visit
        .call(
            axum::http::Method::GET,
            &format!("{endpoint}?{}", query(&pairs)),
            None,
        )
        .await?;
    if !answer.status.is_success() {
        return Ok(Vec::new());
    }
    Ok(records(&answer.json()).to_vec())
}

/// Names the tenant acted on as the owner of a new record's `body` when the person picks
/// the tenant they act on (a platform or partner admin); the API knows a tenant-scoped
/// person's tenant.
pub(crate) fn for_acting_tenant(person: &Person, body: &mut Value) {
    if let (Some(acting), true) = (&person.acting, person.picks_tenant()) {
        body["tenantId"] = acting.id.into();
    }
}

/// A form's fields from `pairs`, for the pages' unit tests.
#[cfg(test)]
pub(crate) fn form_of(pairs: &[(&str, &str)]) -> Fields {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_validation_error_names_its_field() {
        assert_eq!(
            split_validation_error("'body/number' must be at least 1 characters"),
            Some(("number", "must be at least 1 characters"))
        );
        assert_eq!(
            split_validation_error("'body/routingDestinations/0/id' is required"),
            Some(("routingDestinations", "is required"))
        );
        assert_eq!(split_validation_error("'query/page' must be"), None);
    }

    #[test]
    fn an_error_about_an_item_of_a_list_names_its_place() {
        assert_eq!(
            item_error("'body/members/3/penalty' must be at most 100", "members"),
            Some((3, "penalty", "must be at most 100"))
        );
        assert_eq!(
            item_error("'body/lines/1' is listed twice", "lines"),
            Some((1, "", "is listed twice"))
        );
        // The list as a whole, another list, another field: none.
        assert_eq!(
            item_error("'body/members' must not be empty", "members"),
            None
        );
        assert_eq!(item_error("'body/membership/0' is odd", "members"), None);
        assert_eq!(item_error("'body/name' is empty", "members"), None);
    }

    #[test]
    fn problems_go_next_to_their_fields_or_above_the_form() {
        let body = serde_json::json!({
            "validationErrors": ["'body/number' is bad", "'body/name' is empty", "'body/tenantId' is odd"],
        });
        let problems = Problems::of_refusal(&body, &["number", "name"]);
        assert_eq!(problems.of("number").as_deref(), Some("is bad"));
        assert_eq!(problems.of("name").as_deref(), Some("is empty"));
        assert_eq!(problems.general, vec!["'body/tenantId' is odd".to_owned()]);
    }

    #[test]
    fn a_listing_asks_the_api_for_its_page_and_keeps_its_filters_in_links() {
        let params: Fields = [("page", "2"), ("query", "  front desk ")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let listing = Listing::new("/console/extensions", &params)
            .with("query", field(&params, "query"))
            .with("read", "");
        assert_eq!(listing.filter("query"), "front desk");
        assert_eq!(
            listing.api(
                "/v2/admin/extensions/",
                vec![("sortBy", "number".to_owned())]
            ),
            "/v2/admin/extensions/?sortBy=number&page=2&recordsPerPage=25&query=front+desk"
        );
        let answer = serde_json::json!({"page": 2, "maxPage": 3, "totalRecords": 60});
        let paging = listing.paging(&answer);
        assert_eq!(
            paging.previous.as_deref(),
            Some("/console/extensions?page=1&query=front+desk")
        );
        assert_eq!(
            paging.next.as_deref(),
            Some("/console/extensions?page=3&query=front+desk")
        );
        // A page that is no number, or below one, is the first.
        let params: Fields = [("page".to_owned(), "-4".to_owned())].into_iter().collect();
        assert!(
            Listing::new("/x", &params)
                .api("/y", Vec::new())
                .contains("page=1&")
        );
    }
}
