//! Calls: the reporting list of the tenant's calls as the API answers it to the person
//! (paged, newest first, filtered by direction, disposition, number and a date range read
//! in the tenant's time zone), and each call's report — parties, timeline, queue, its
//! recording with a player and its transcript, each line under the speaker its channel
//! names.
//!
//! The player plays `/console/calls/{id}/recording`, which reads the call through the API
//! as the person and streams its recording with byte ranges ([`Visit::play`]), from
//! either store: the strict policy allows media from the console's origin only.

use askama::Template;
use axum::Router;
use axum::extract::{Path, Query};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use axum::routing::get;
use chrono::{DateTime, Days, NaiveDate, Utc};
use chrono_tz::Tz;
use serde_json::Value;
use switchboard_domain::records::call::{CallDirection, CallDisposition};

use super::flow::zone_of;
use super::{
    Chrome, Fields, Listing, Paging, Problems, field, html, html_as, query, records, tenant_pair,
};
use crate::shared::Console;
use crate::visit::{PageError, PageResult, Visit, expect_success};

/// The calls pages' routes.
pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/console/calls", get(list))
        .route("/console/calls/{id}", get(show))
        .route("/console/calls/{id}/recording", get(recording))
}

/// The list's filters, by their API names, as the form names its fields.
const FILTERS: [&str; 5] = ["direction", "disposition", "number", "from", "to"];

/// The directions the API knows, with their words.
const DIRECTIONS: [(&str, &str); CallDirection::ALL.len()] = [
    (CallDirection::Inbound.as_str(), "Inbound"),
    (CallDirection::Outbound.as_str(), "Outbound"),
    (CallDirection::Internal.as_str(), "Internal"),
];

/// The CDR dispositions the API knows, with their words.
const DISPOSITIONS: [(&str, &str); CallDisposition::ALL.len()] = [
    (CallDisposition::Answered.as_str(), "Answered"),
    (CallDisposition::NoAnswer.as_str(), "No answer"),
    (CallDisposition::Busy.as_str(), "Busy"),
    (CallDisposition::Failed.as_str(), "Failed"),
    (CallDisposition::Congestion.as_str(), "Congestion"),
];

/// A choice of a filter.
struct Choice {
    value: &'static str,
    name: &'static str,
}

fn choices(list: &[(&'static str, &'static str)]) -> Vec<Choice> {
    list.iter()
        .map(|&(value, name)| Choice { value, name })
        .collect()
}

/// A call as the list shows it.
struct Row {
    /// The call's console path.
    href: String,
    when: String,
    direction: &'static str,
    from: String,
    to: String,
    outcome: String,
    talk: String,
    recorded: bool,
}

#[derive(Template)]
#[template(path = "calls.html")]
struct ListPage {
    chrome: Chrome,
    direction: String,
    disposition: String,
    number: String,
    from: String,
    to: String,
    directions: Vec<Choice>,
    dispositions: Vec<Choice>,
    /// The range the list covers, in words.
    range: String,
    zone: String,
    totals: Option<(i64, i64, i64)>,
    rows: Vec<Row>,
    paging: Paging,
    problems: Problems,
}

/// `GET /console/calls`.
async fn list(mut visit: Visit, Query(params): Query<Fields>) -> Response {
    let page = list_page(&mut visit, &params).await;
    visit.finish(page)
}

/// A typed date read as the start of that day (or, with `next_day`, of the day after) in
/// `zone`, as the API's instant; anything else is sent as typed, for the API to name
/// what is wrong with it.
fn instant(typed: &str, zone: Tz, next_day: bool) -> String {
    let Ok(date) = NaiveDate::parse_from_str(typed, "%Y-%m-%d") else {
        return typed.to_owned();
    };
    let date = if next_day {
        date.checked_add_days(Days::new(1)).unwrap_or(date)
    } else {
        date
    };
    let midnight = date.and_hms_opt(0, 0, 0).unwrap_or_default();
    // A day starting in a clock change's gap starts at the first moment that exists.
    let start = midnight.and_local_timezone(zone).earliest().or_else(|| {
        (midnight + chrono::Duration::hours(1))
            .and_local_timezone(zone)
            .earliest()
    });
    match start {
        Some(start) => start
            .with_timezone(&Utc)
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        None => typed.to_owned(),
    }
}

/// An API instant shown in `zone`, to the minute (or the second, `precise`).
fn local(iso: &str, zone: Tz, precise: bool) -> String {
    let format = if precise {
        "%Y-%m-%d %H:%M:%S"
    } else {
        "%Y-%m-%d %H:%M"
    };
    DateTime::parse_from_rfc3339(iso).map_or_else(
        |_| iso.to_owned(),
        |at| at.with_timezone(&zone).format(format).to_string(),
    )
}

/// Seconds as `m:ss` (or `h:mm:ss`).
fn clock(seconds: i64) -> String {
    let seconds = seconds.max(0);
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

fn direction_words(direction: &str) -> &'static str {
    DIRECTIONS
        .iter()
        .find(|(value, _)| *value == direction)
        .map_or("", |(_, name)| name)
}

/// What became of a call: its state, and the disposition the engine reported.
fn outcome(call: &Value) -> String {
    let status = match call["status"].as_str().unwrap_or_default() {
        "started" => "Ringing",
        "answered" => "Talking",
        "ended" => "Answered",
        "missed" => "Missed",
        _ => "",
    };
    let disposition = call["disposition"].as_str().unwrap_or_default();
    let words = DISPOSITIONS
        .iter()
        .find(|(value, _)| *value == disposition)
        .map_or(disposition, |(_, name)| name);
    if words.is_empty() || words == status {
        status.to_owned()
    } else {
        format!("{status} ({})", words.to_lowercase())
    }
}

/// A number and a name, as `name (number)` or whichever there is.
fn named(number: &str, name: &str) -> String {
    match (number.is_empty(), name.is_empty()) {
        (_, true) => number.to_owned(),
        (true, false) => name.to_owned(),
        (false, false) => format!("{name} ({number})"),
    }
}

/// A call id as one segment of a path (the API's ids are Asterisk's, `1700000000.42`,
/// but any of 1 to 255 characters is taken).
fn segment(id: &str) -> String {
    id.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The problems of a refused list: `'query/from' …` next to the filter it names.
fn filter_problems(body: &Value) -> Problems {
    let mut problems = Problems::default();
    for error in body["validationErrors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let named = error
            .strip_prefix("'query/")
            .and_then(|rest| rest.split_once("' "))
            .filter(|(name, _)| FILTERS.contains(name));
        match named {
            Some((name, message)) => problems
                .fields
                .entry(name.to_owned())
                .or_default()
                .push(message.to_owned()),
            None => problems.general.push(error.to_owned()),
        }
    }
    if !problems.any() {
        problems.general.push(
            body["message"]
                .as_str()
                .unwrap_or("the service refused the filter")
                .to_owned(),
        );
    }
    problems
}

async fn list_page(visit: &mut Visit, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let zone = zone_of(visit, &person).await;
    let pick = |name: &str, known: &[(&'static str, &'static str)]| {
        let value = field(params, name);
        known
            .iter()
            .find(|(v, _)| *v == value)
            .map_or("", |(v, _)| *v)
    };
    let (direction, disposition) = (
        pick("direction", &DIRECTIONS),
        pick("disposition", &DISPOSITIONS),
    );
    let (number, from, to) = (
        field(params, "number").trim(),
        field(params, "from").trim(),
        field(params, "to").trim(),
    );
    let listing = Listing::new("/console/calls", params)
        .with("direction", direction)
        .with("disposition", disposition)
        .with("number", number);
    let mut pairs = tenant_pair(&person);
    pairs.push(("sortBy", "time".to_owned()));
    pairs.push(("sortDirection", "desc".to_owned()));
    if !from.is_empty() {
        pairs.push(("from", instant(from, zone, false)));
    }
    if !to.is_empty() {
        pairs.push(("to", instant(to, zone, true)));
    }
    let answer = visit
        .call(
            Method::GET,
            &listing.api("/v2/admin/reporting/calls/", pairs),
            None,
        )
        .await?;
    let mut page = ListPage {
        chrome: visit.chrome("calls"),
        direction: direction.to_owned(),
        disposition: disposition.to_owned(),
        number: number.to_owned(),
        from: from.to_owned(),
        to: to.to_owned(),
        directions: choices(&DIRECTIONS),
        dispositions: choices(&DISPOSITIONS),
        range: String::new(),
        zone: zone.name().to_owned(),
        totals: None,
        rows: Vec::new(),
        paging: Paging::of(&Value::Null, |_| String::new()),
        problems: Problems::default(),
    };
    if answer.status == StatusCode::BAD_REQUEST {
        page.problems = filter_problems(&answer.json());
        return html_as(&page, answer.status);
    }
    let answer = expect_success(answer)?;
    let aggregates = &answer["aggregates"];
    let zone: Tz = aggregates["timeZone"]
        .as_str()
        .and_then(|name| name.parse().ok())
        .unwrap_or(zone);
    page.zone = zone.name().to_owned();
    page.range = format!(
        "{} to {}",
        local(aggregates["from"].as_str().unwrap_or_default(), zone, false),
        local(aggregates["to"].as_str().unwrap_or_default(), zone, false)
    );
    let totals = &aggregates["totals"];
    page.totals = Some((
        totals["total"].as_i64().unwrap_or(0),
        totals["answered"].as_i64().unwrap_or(0),
        totals["missed"].as_i64().unwrap_or(0),
    ));
    page.rows = records(&answer)
        .iter()
        .map(|call| {
            let text = |key: &str| call[key].as_str().unwrap_or_default();
            Row {
                href: format!("/console/calls/{}", segment(text("uniqueId"))),
                when: local(text("time"), zone, false),
                direction: direction_words(text("direction")),
                from: named(text("callerIdNum"), text("callerIdName")),
                to: text("dialedNum").to_owned(),
                outcome: outcome(call),
                talk: clock(call["billsec"].as_i64().unwrap_or(0)),
                recorded: call["hasRecording"].as_bool().unwrap_or(false),
            }
        })
        .collect();
    // The links keep the dates as typed (the API gets them as instants).
    let mut kept: Vec<(&str, String)> = Vec::new();
    for (name, value) in [
        ("direction", direction),
        ("disposition", disposition),
        ("number", number),
        ("from", from),
        ("to", to),
    ] {
        if !value.is_empty() {
            kept.push((name, value.to_owned()));
        }
    }
    page.paging = Paging::of(&answer, |number| {
        let mut pairs = vec![("page", number.to_string())];
        pairs.extend(kept.iter().cloned());
        format!("/console/calls?{}", query(&pairs))
    });
    html(&page)
}

/// A party of the call.
struct Party {
    role: &'static str,
    who: String,
    extension: bool,
}

/// A step of the timeline.
struct Step {
    at: String,
    words: String,
}

/// A line of the transcript.
struct Line {
    at: String,
    channel: i64,
    speaker: String,
    text: String,
}

/// How the page plays the recording.
struct Player {
    /// The `<audio>` source: the console's streaming route; none without audio.
    src: Option<String>,
    duration: String,
    bytes: i64,
}

#[derive(Template)]
#[template(path = "call.html")]
struct CallPage {
    chrome: Chrome,
    title: String,
    zone: String,
    when: String,
    direction: &'static str,
    outcome: String,
    duration: String,
    talk: String,
    queue: Option<String>,
    parties: Vec<Party>,
    steps: Vec<Step>,
    player: Option<Player>,
    /// Who speaks on each channel, in words.
    legend: Vec<(i64, String)>,
    lines: Vec<Line>,
    transcribed: bool,
}

/// The report of the call `id`, as the API answers it to the person.
async fn report(visit: &mut Visit, id: &str) -> Result<Value, PageError> {
    if id.is_empty() {
        return Err(PageError::NotFound);
    }
    visit
        .get(&format!("/v2/admin/reporting/calls/{}", segment(id)))
        .await
}

/// A channel's speaker, in words: its role and who it is.
fn speaker(role: &str, party: &str) -> String {
    let role = match role {
        "caller" => "Caller",
        "callee" => "Callee",
        "agent" => "Agent",
        other => other,
    };
    if party.is_empty() {
        role.to_owned()
    } else {
        format!("{role} {party}")
    }
}

/// A transfer's party in words.
fn transfer_party(party: &Value) -> String {
    named(
        party["number"].as_str().unwrap_or_default(),
        party["name"].as_str().unwrap_or_default(),
    )
}

/// `GET /console/calls/{id}`.
async fn show(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = call_page(&mut visit, &id).await;
    visit.finish(page)
}

async fn call_page(visit: &mut Visit, id: &str) -> PageResult {
    let person = visit.acting().await?;
    let report = report(visit, id).await?;
    let zone = zone_of(visit, &person).await;
    let call = &report["call"];
    let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
    let parties = report["parties"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|party| Party {
            role: if party["role"] == "caller" {
                "Caller"
            } else {
                "Callee"
            },
            who: named(
                party["number"].as_str().unwrap_or_default(),
                party["name"].as_str().unwrap_or_default(),
            ),
            extension: party["extensionId"].as_i64().is_some(),
        })
        .collect();
    let steps = report["timeline"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|step| Step {
            at: local(step["at"].as_str().unwrap_or_default(), zone, true),
            words: match step["event"].as_str().unwrap_or_default() {
                "started" => "Call started".to_owned(),
                "answered" => "Answered".to_owned(),
                "ended" => "Ended".to_owned(),
                "missed" => "Ended without an answer".to_owned(),
                "transferred" => format!(
                    "Transferred ({}) from {} to {}",
                    step["kind"].as_str().unwrap_or("transfer"),
                    transfer_party(&step["from"]),
                    transfer_party(&step["to"])
                ),
                other => other.to_owned(),
            },
        })
        .collect();
    let queue = report["queue"].as_object().map(|queue| {
        let name = queue
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let number = queue
            .get("number")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if name.is_empty() && number.is_empty() {
            "a queue since deleted".to_owned()
        } else {
            named(number, name)
        }
    });
    let player = report["recording"].as_object().map(|recording| {
        let media_url = recording
            .get("mediaURL")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let src =
            (!media_url.is_empty()).then(|| format!("/console/calls/{}/recording", segment(id)));
        Player {
            src,
            duration: clock(
                recording
                    .get("duration")
                    .and_then(Value::as_i64)
                    .unwrap_or(0),
            ),
            bytes: recording.get("bytes").and_then(Value::as_i64).unwrap_or(0),
        }
    });
    let transcript = &report["transcript"];
    let legend: Vec<(i64, String)> = transcript["channels"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|channel| {
            (
                channel["channel"].as_i64().unwrap_or(0),
                speaker(
                    channel["role"].as_str().unwrap_or_default(),
                    channel["party"].as_str().unwrap_or_default(),
                ),
            )
        })
        .collect();
    let lines = transcript["segments"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|segment| {
            let channel = segment["channel"].as_i64().unwrap_or(0);
            Line {
                at: clock(segment["startMs"].as_i64().unwrap_or(0) / 1000),
                channel,
                speaker: legend
                    .iter()
                    .find(|(c, _)| *c == channel)
                    .map_or_else(|| format!("Channel {channel}"), |(_, who)| who.clone()),
                text: text(&segment["text"]),
            }
        })
        .collect();
    let from = named(
        call["callerIdNum"].as_str().unwrap_or_default(),
        call["callerIdName"].as_str().unwrap_or_default(),
    );
    html(&CallPage {
        chrome: visit.chrome("calls"),
        title: format!("Call from {from} to {}", text(&call["dialedNum"])),
        zone: zone.name().to_owned(),
        when: local(call["time"].as_str().unwrap_or_default(), zone, true),
        direction: direction_words(call["direction"].as_str().unwrap_or_default()),
        outcome: outcome(call),
        duration: clock(call["duration"].as_i64().unwrap_or(0)),
        talk: clock(call["billsec"].as_i64().unwrap_or(0)),
        queue,
        parties,
        steps,
        player,
        legend,
        lines,
        transcribed: transcript.is_object(),
    })
}

/// `GET /console/calls/{id}/recording`: the call's recording, read through the API with
/// the person's token and streamed from the store with byte ranges ([`Visit::play`]).
async fn recording(mut visit: Visit, Path(id): Path<String>) -> Response {
    let page = async {
        visit.acting().await?;
        let report = report(&mut visit, &id).await?;
        let media_url = report["recording"]["mediaURL"]
            .as_str()
            .filter(|url| !url.is_empty())
            .ok_or(PageError::NotFound)?
            .to_owned();
        visit.play(&media_url).await
    }
    .await;
    visit.finish(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_day_is_read_in_the_tenants_zone() {
        let zone: Tz = "America/New_York".parse().expect("a zone");
        assert_eq!(instant("2026-11-20", zone, false), "2026-11-20T05:00:00Z");
        assert_eq!(instant("2026-11-20", zone, true), "2026-11-21T05:00:00Z");
        // Summer time: four hours behind.
        assert_eq!(instant("2026-07-01", zone, false), "2026-07-01T04:00:00Z");
        // What is no date goes as typed, for the API to refuse in its words.
        assert_eq!(instant("yesterday", zone, false), "yesterday");
    }

    #[test]
    fn a_call_id_is_one_path_segment() {
        assert_eq!(segment("1700000000.42"), "1700000000.42");
        assert_eq!(segment("a/b c?"), "a%2Fb%20c%3F");
    }

    #[test]
    fn refused_filters_go_next_to_their_fields() {
        let body = serde_json::json!({"validationErrors": [
            "'query/from' must be before to", "'query/page' must be a number"]});
        let problems = filter_problems(&body);
        assert_eq!(problems.of("from").as_deref(), Some("must be before to"));
        assert_eq!(
            problems.general,
            vec!["'query/page' must be a number".to_owned()]
        );
    }

    #[test]
    fn outcomes_and_clocks_in_words() {
        let call = serde_json::json!({"status": "missed", "disposition": "NO ANSWER"});
        assert_eq!(outcome(&call), "Missed (no answer)");
        let call = serde_json::json!({"status": "ended", "disposition": "ANSWERED"});
        assert_eq!(outcome(&call), "Answered");
        assert_eq!(clock(65), "1:05");
        assert_eq!(clock(3725), "1:02:05");
    }
}
