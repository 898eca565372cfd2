//! The console's business-hours page (issue 34): the list with each record's "open now?"
//! answer, the weekly grid edited as one field per day and saved through the API, a
//! refused edit showing every broken field and changing nothing, the branch scope the
//! API applies, and holidays added and removed.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::console::{Browser, Page};
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// Every day open all day.
fn always_open() -> Value {
    let day = json!([{"from": "00:00", "to": "24:00"}]);
    json!({"0": day, "1": day, "2": day, "3": day, "4": day, "5": day, "6": day})
}

/// Creates business hours in `branch` as `token`, answering the record.
async fn create(
    app: &TestApp,
    token: &str,
    branch: i64,
    name: &str,
    hours: Value,
    holidays: Value,
) -> Value {
    app.create(
        "/v2/admin/business-hours/",
        token,
        json!({
            "name": name, "branchId": branch, "timezone": "Europe/Berlin", "hours": hours,
            "holidays": holidays,
        }),
    )
    .await
}

/// The text of the `<td>` holding the "open now?" answer in `name`'s row of the list.
fn open_now_of<'a>(page: &'a Page, name: &str) -> &'a str {
    let row = page
        .body
        .split("<tr>")
        .find(|row| row.contains(&format!("<td>{name}</td>")))
        .unwrap_or_else(|| panic!("no row for {name}: {}", page.body));
    let cell = row
        .split("data-testid=\"open-now\"")
        .nth(1)
        .expect("an open-now cell");
    let text = &cell[cell.find('>').unwrap() + 1..];
    &text[..text.find("</td>").unwrap()]
}

/// The weekly grid's row of `day`: what it shows as open.
fn grid_row<'a>(page: &'a Page, day: &str) -> &'a str {
    let start = page
        .body
        .find(&format!("<th scope=\"row\">{day}</th><td>"))
        .unwrap_or_else(|| panic!("no grid row for {day}: {}", page.body));
    let cell = &page.body[start..];
    let cell = &cell[cell.find("<td>").unwrap() + 4..];
    &cell[..cell.find("</td>").unwrap()]
}

/// The list says of each record whether it is open now and why, as the API's status
/// answers: inside hours, outside hours, or closed by a holiday (named).
async fn the_list_says_open_or_closed_and_why(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    create(
        &app,
        &admin,
        w.branch_a,
        "Always open",
        always_open(),
        json!([]),
    )
    .await;
    create(&app, &admin, w.branch_a, "Never open", json!({}), json!([])).await;
    create(
        &app,
        &admin,
        w.branch_a,
        "Closed for works",
        always_open(),
        json!([{"name": "Renovation", "from": "2000-01-01", "to": "2099-12-31"}]),
    )
    .await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let list = browser.get("/console/business-hours").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(
        list.body
            .contains("href=\"/console/business-hours\" aria-current=\"page\"")
    );
    assert_eq!(open_now_of(&list, "Always open"), "Open: inside hours");
    assert_eq!(open_now_of(&list, "Never open"), "Closed: outside hours");
    assert_eq!(
        open_now_of(&list, "Closed for works"),
        "Closed: holiday (Renovation)"
    );
}

/// Typed hours are saved through the API (read back there), the grid shows them, and the
/// destinations the form does not show are kept.
async fn an_edit_saves_the_weekly_hours(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let record = app
        .create(
            "/v2/admin/business-hours/",
            &admin,
            json!({
                "name": "Store", "branchId": w.branch_a, "timezone": "Europe/Berlin",
                "hours": {"1": [{"from": "09:00", "to": "17:00"}]},
                "matchDestinations": [{"id": w.ext_a, "destType": "EXT"}],
            }),
        )
        .await;
    let id = record["id"].as_i64().unwrap();
    let path = format!("/console/business-hours/{id}");
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get(&path).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert_eq!(grid_row(&form, "Monday"), "09:00–17:00");
    assert_eq!(grid_row(&form, "Tuesday"), "Closed");
    assert!(form.body.contains("value=\"09:00-17:00\""), "{}", form.body);
    let token = form.token();
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "Pharmacy"),
                ("timezone", "America/New_York"),
                ("day1", "08:00-12:00, 13:00 - 18:30"),
                ("day6", "10:00–14:00"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    assert_eq!(saved.location(), format!("{path}?done=saved"));
    let stored = app
        .get(&format!("/v2/admin/business-hours/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "Pharmacy");
    assert_eq!(stored["timezone"], "America/New_York");
    assert_eq!(
        stored["hours"]["1"],
        json!([{"from": "08:00", "to": "12:00"}, {"from": "13:00", "to": "18:30"}])
    );
    assert_eq!(
        stored["hours"]["6"],
        json!([{"from": "10:00", "to": "14:00"}])
    );
    assert_eq!(stored["hours"]["2"], json!([]));
    assert_eq!(
        stored["matchDestinations"], record["matchDestinations"],
        "the destinations are kept"
    );
    let page = browser.get(saved.location()).await;
    assert!(page.body.contains("The business hours are saved."));
    assert_eq!(grid_row(&page, "Monday"), "08:00–12:00, 13:00–18:30");
    assert_eq!(grid_row(&page, "Saturday"), "10:00–14:00");
}

/// A refused edit names every broken field next to its input (each broken day, the name,
/// the time zone), keeps what was typed, and changes nothing.
async fn a_refused_edit_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let record = create(&app, &admin, w.branch_a, "Store", always_open(), json!([])).await;
    let id = record["id"].as_i64().unwrap();
    let path = format!("/console/business-hours/{id}");
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get(&path).await.token();
    let long_name = "N".repeat(300);
    let page = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", &long_name),
                ("timezone", "Mars/Olympus"),
                ("day1", "09:00-17:00"),
                ("day2", "25:00-17:00"),
                ("day3", "09:00-13:00, 12:00-18:00"),
                ("day5", "noon"),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.body);
    for field in ["name", "timezone", "day2", "day3", "day5"] {
        assert!(
            page.error_next_to(field).is_some(),
            "no error next to {field}: {}",
            page.body
        );
        let input = page.tag(field);
        assert!(
            input.contains("aria-invalid=\"true\"") && input.contains(&format!("{field}-error")),
            "{field} is not marked invalid: {input}"
        );
    }
    assert!(!page.body.contains("id=\"day1-error\""), "day 1 is fine");
    for typed in [
        long_name.as_str(),
        "Mars/Olympus",
        "25:00-17:00",
        "09:00-13:00, 12:00-18:00",
        "noon",
    ] {
        assert!(page.body.contains(typed), "{typed} is not kept");
    }
    let stored = app
        .get(&format!("/v2/admin/business-hours/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "Store");
    assert_eq!(stored["timezone"], "Europe/Berlin");
    assert_eq!(stored["hours"], record["hours"]);
}

/// A branch administrator opens their branch's business hours but not another branch's,
/// which is no page (404, as in the API), and cannot change it or its holidays.
async fn a_branch_admin_cannot_open_another_branchs_hours(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let own = create(
        &app,
        &admin,
        w.branch_a,
        "Main hours",
        always_open(),
        json!([]),
    )
    .await;
    let other = create(
        &app,
        &admin,
        w.branch_a2,
        "Annex hours",
        always_open(),
        json!([{"name": "Closing day", "date": "2030-01-02"}]),
    )
    .await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.branch_admin_a).await;
    let list = browser.get("/console/business-hours").await;
    assert!(list.body.contains("Main hours"), "{}", list.body);
    assert!(!list.body.contains("Annex hours"), "{}", list.body);
    let mine = browser
        .get(&format!("/console/business-hours/{}", own["id"]))
        .await;
    assert_eq!(mine.status, StatusCode::OK, "{}", mine.body);
    let token = mine.token();
    let other_path = format!("/console/business-hours/{}", other["id"]);
    assert_eq!(browser.get(&other_path).await.status, StatusCode::NOT_FOUND);
    let edit = browser
        .post(
            &other_path,
            &[("csrf", &token), ("name", "Taken"), ("timezone", "UTC")],
        )
        .await;
    assert_eq!(edit.status, StatusCode::NOT_FOUND);
    let add = browser
        .post(
            &format!("{other_path}/holidays"),
            &[("csrf", &token), ("name", "Extra"), ("date", "2030-05-05")],
        )
        .await;
    assert_eq!(add.status, StatusCode::NOT_FOUND);
    let holiday = other["holidays"][0]["id"].as_i64().unwrap();
    let remove = browser
        .post(
            &format!("{other_path}/holidays/{holiday}/delete"),
            &[("csrf", &token)],
        )
        .await;
    assert_eq!(remove.status, StatusCode::NOT_FOUND);
    let stored = app
        .get(&format!("/v2/admin/business-hours/{}", other["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "Annex hours");
    assert_eq!(stored["hours"], other["hours"]);
    assert_eq!(stored["holidays"], other["holidays"]);
}

/// A holiday is added by the small form (a refused one names its broken field and adds
/// nothing) and removed by its button, each read back through the API.
async fn a_holiday_is_added_and_removed(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let record = create(&app, &admin, w.branch_a, "Store", always_open(), json!([])).await;
    let id = record["id"].as_i64().unwrap();
    let path = format!("/console/business-hours/{id}");
    let holidays = format!("/v2/admin/business-hours/{id}/holidays");
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get(&path).await.token();

    let refused = browser
        .post(
            &format!("{path}/holidays"),
            &[
                ("csrf", &token),
                ("name", "Someday"),
                ("date", "2030-13-40"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(
        refused
            .body
            .contains("id=\"holiday-date-error\" data-field=\"holiday-date\""),
        "{}",
        refused.body
    );
    assert!(
        refused.body.contains("value=\"2030-13-40\""),
        "the typed date is kept"
    );
    let none: Value = app.get(&holidays, &admin).await.expect(200);
    assert_eq!(none, json!([]));

    let added = browser
        .post(
            &format!("{path}/holidays"),
            &[
                ("csrf", &token),
                ("name", "Christmas Day"),
                ("date", "2030-12-25"),
            ],
        )
        .await;
    assert_eq!(added.status, StatusCode::SEE_OTHER, "{}", added.body);
    let stored: Value = app.get(&holidays, &admin).await.expect(200);
    assert_eq!(stored.as_array().unwrap().len(), 1, "{stored}");
    assert_eq!(stored[0]["name"], "Christmas Day");
    assert_eq!(stored[0]["date"], "2030-12-25");
    let page = browser.get(added.location()).await;
    assert!(page.body.contains("The holiday is added."));
    assert!(
        page.body
            .contains("<tr><td>Christmas Day</td><td>2030-12-25</td>"),
        "{}",
        page.body
    );

    let holiday = stored[0]["id"].as_i64().unwrap();
    let removed = browser
        .post(
            &format!("{path}/holidays/{holiday}/delete"),
            &[("csrf", &token)],
        )
        .await;
    assert_eq!(removed.status, StatusCode::SEE_OTHER, "{}", removed.body);
    let stored: Value = app.get(&holidays, &admin).await.expect(200);
    assert_eq!(stored, json!([]));
    let page = browser.get(removed.location()).await;
    assert!(page.body.contains("The holiday is removed."));
    assert!(!page.body.contains("Christmas Day"), "{}", page.body);
}

on_both_backends!(
    the_list_says_open_or_closed_and_why,
    an_edit_saves_the_weekly_hours,
    a_refused_edit_shows_every_broken_field,
    a_branch_admin_cannot_open_another_branchs_hours,
    a_holiday_is_added_and_removed,
);
