//! "Where does a call to this number go?": a phone number's call flow as a picture drawn
//! on the server ([`crate::flow`]), the path a call takes at a chosen moment highlighted,
//! the same flow in words (for every reader, and every screen reader), and the issues the
//! API's graph reports. The moment is picked in the tenant's own time zone.

use askama::Template;
use axum::extract::{Path, Query};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;

use super::{Chrome, Fields, field, html, query, tenant_pair};
use crate::flow::{self, FlowGraph, edge_name, type_name};
use crate::session::Person;
use crate::visit::{PageError, PageResult, Visit};

/// The picker's notation (`<input type="datetime-local">`).
const PICKER: &str = "%Y-%m-%dT%H:%M";

/// One way a call goes, in words.
struct Step {
    from: String,
    why: String,
    to: String,
    /// Taken at the moment picked.
    taken: bool,
    /// Leads back to a record already on the path.
    cycle: bool,
}

#[derive(Template)]
#[template(path = "flow.html")]
struct FlowPage {
    chrome: Chrome,
    id: i64,
    number: String,
    /// The moment as the picker shows it.
    at: String,
    /// The moment's problem, next to the picker.
    at_problem: Option<String>,
    /// The tenant's time zone the moment is read in.
    zone: String,
    /// The picture's address (same moment).
    picture: String,
    /// The path a call takes at the moment, first step first.
    path: Vec<String>,
    steps: Vec<Step>,
    issues: Vec<String>,
}

/// The moment asked for: the picker's value read in `zone`, now when none is given.
/// A value the picker could not have sent is the page's problem, and now is used.
fn moment(raw: &str, zone: Tz) -> (DateTime<Utc>, String, Option<String>) {
    let now = Utc::now();
    let shown = |at: DateTime<Utc>| at.with_timezone(&zone).format(PICKER).to_string();
    if raw.trim().is_empty() {
        return (now, shown(now), None);
    }
    let local = NaiveDateTime::parse_from_str(raw.trim(), PICKER)
        .ok()
        .and_then(|naive| zone.from_local_datetime(&naive).earliest());
    match local {
        Some(at) => {
            let at = at.with_timezone(&Utc);
            (at, shown(at), None)
        }
        None => (
            now,
            raw.to_owned(),
            Some("must be a date and time (such as 2026-11-29T10:00) that exists in the tenant's time zone".to_owned()),
        ),
    }
}

/// The tenant's time zone: the one its record names, UTC when it cannot be read (a
/// branch administrator may not read the tenant record).
pub(crate) async fn zone_of(visit: &mut Visit, person: &Person) -> Tz {
    let Some(acting) = &person.acting else {
        return Tz::UTC;
    };
    match visit.get(&format!("/v2/admin/tenants/{}", acting.id)).await {
        Ok(tenant) => tenant["timezone"]
            .as_str()
            .and_then(|zone| zone.parse().ok())
            .unwrap_or(Tz::UTC),
        Err(_) => Tz::UTC,
    }
}

/// The routing graph of the number `id` at `at`, as the API answers it.
async fn graph(
    visit: &mut Visit,
    person: &Person,
    id: i64,
    at: DateTime<Utc>,
) -> Result<FlowGraph, PageError> {
    let mut pairs = tenant_pair(person);
    pairs.push(("root", format!("number:{id}")));
    pairs.push(("at", at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)));
    let answer = visit
        .get(&format!("/v2/destinations/graph?{}", query(&pairs)))
        .await?;
    serde_json::from_value(answer)
        .map_err(|error| PageError::Failed(anyhow::anyhow!("the graph's answer: {error}")))
}

/// `GET /console/phone-numbers/{id}/flow`.
pub(crate) async fn show(
    mut visit: Visit,
    Path(id): Path<i64>,
    Query(params): Query<Fields>,
) -> Response {
    let page = flow_page(&mut visit, id, &params).await;
    visit.finish(page)
}

async fn flow_page(visit: &mut Visit, id: i64, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    // The number first: another tenant's or branch's is a 404 here as in the API.
    let number = visit.get(&format!("/v2/admin/phone-numbers/{id}")).await?;
    let zone = zone_of(visit, &person).await;
    let (at, shown, at_problem) = moment(field(params, "at"), zone);
    let graph = graph(visit, &person, id, at).await?;
    let label = |node_id: &str| {
        graph
            .nodes
            .iter()
            .find(|n| n.id == node_id)
            .map(|n| {
                let kind = type_name(&n.node_type);
                if n.opaque {
                    format!("{kind} (another branch)")
                } else if n.label.to_lowercase().starts_with(&kind.to_lowercase()) {
                    // `Voicemail of Front desk`, `Hang up`: the label says what it is.
                    n.label.clone()
                } else {
                    format!("{kind} {}", n.label)
                }
            })
            .unwrap_or_else(|| node_id.to_owned())
    };
    let steps = graph
        .edges
        .iter()
        .map(|edge| Step {
            from: label(&edge.from),
            why: edge_name(&edge.kind),
            to: label(&edge.to),
            taken: edge.active == Some(true),
            cycle: edge.cycle,
        })
        .collect();
    let path = active_path(&graph, &format!("number:{id}"))
        .iter()
        .map(|node| label(node))
        .collect();
    let issues = graph
        .issues
        .iter()
        .map(|issue| format!("{}: {}", label(&issue.node), issue.message))
        .collect();
    html(&FlowPage {
        chrome: visit.chrome("numbers"),
        id,
        number: number["number"].as_str().unwrap_or_default().to_owned(),
        picture: format!(
            "/console/phone-numbers/{id}/flow.svg?{}",
            query(&[("at", shown.clone())])
        ),
        at: shown,
        at_problem,
        zone: zone.name().to_owned(),
        path,
        steps,
        issues,
    })
}

/// The nodes a call passes at the moment, in the order it reaches them: from `root`
/// along the edges taken, each node once (members of a queue one after another).
fn active_path(graph: &FlowGraph, root: &str) -> Vec<String> {
    let mut path = vec![root.to_owned()];
    let mut next = 0;
    while next < path.len() {
        let at = path[next].clone();
        for edge in &graph.edges {
            if edge.from == at
                && edge.active == Some(true)
                && !edge.cycle
                && !path.contains(&edge.to)
            {
                path.push(edge.to.clone());
            }
        }
        next += 1;
    }
    if path.len() == 1 { Vec::new() } else { path }
}

/// `GET /console/phone-numbers/{id}/flow.svg`: the picture alone, as an image.
pub(crate) async fn picture(
    mut visit: Visit,
    Path(id): Path<i64>,
    Query(params): Query<Fields>,
) -> Response {
    let page = picture_answer(&mut visit, id, &params).await;
    visit.finish(page)
}

async fn picture_answer(visit: &mut Visit, id: i64, params: &Fields) -> PageResult {
    let person = visit.acting().await?;
    let zone = zone_of(visit, &person).await;
    let (at, _, _) = moment(field(params, "at"), zone);
    let graph = graph(visit, &person, id, at).await?;
    let Some(svg) = tokio::task::spawn_blocking(move || flow::svg(&graph))
        .await
        .map_err(|error| PageError::Failed(error.into()))?
    else {
        return Err(PageError::NotFound);
    };
    let mut response = ([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response();
    // The picture's own policy (kept by the console's header layer): no script, no
    // fetch, and the writer's inline `<style>` for its fonts; it is never a page.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'"),
    );
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::{FlowEdge, FlowNode};

    fn edge(from: &str, to: &str, active: Option<bool>) -> FlowEdge {
        FlowEdge {
            from: from.into(),
            to: to.into(),
            kind: "route".into(),
            active,
            cycle: false,
        }
    }

    #[test]
    fn the_path_follows_the_edges_taken_from_the_number() {
        let graph = FlowGraph {
            nodes: vec![FlowNode::default()],
            edges: vec![
                edge("number:1", "business-hours:1", Some(true)),
                edge("business-hours:1", "ivr:1", Some(false)),
                edge("business-hours:1", "voicemail:1", Some(true)),
                edge("voicemail:1", "number:1", Some(true)),
                edge("number:2", "ivr:1", Some(true)),
            ],
            issues: vec![],
        };
        assert_eq!(
            active_path(&graph, "number:1"),
            ["number:1", "business-hours:1", "voicemail:1"]
        );
        assert!(active_path(&graph, "number:3").is_empty());
    }

    #[test]
    fn the_moment_is_read_in_the_tenant_zone() {
        let zone: Tz = "America/New_York".parse().expect("a zone");
        let (at, shown, problem) = moment("2026-11-29T10:00", zone);
        assert_eq!(at.to_rfc3339(), "2026-11-29T15:00:00+00:00");
        assert_eq!(shown, "2026-11-29T10:00");
        assert!(problem.is_none());
        // 02:30 on the spring-forward day does not exist in New York.
        let (_, shown, problem) = moment("2026-03-08T02:30", zone);
        assert_eq!(shown, "2026-03-08T02:30");
        assert!(problem.is_some());
        let (_, _, problem) = moment("yesterday", zone);
        assert!(problem.is_some());
        let (_, _, problem) = moment("", zone);
        assert!(problem.is_none());
    }
}
