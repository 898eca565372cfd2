//! The routing graph: where a call to each phone number can go, as nodes (each record
//! once) and edges saying why (`open`, `closed`, `holiday`, `digit:1`, `timeout`,
//! `invalid`, `member`, `overflow`, `route`, `fallback`), built from a tenant's routing records
//! loaded in a few queries. Pure: no SQL, no HTTP, so it is tested and benchmarked alone.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use utoipa::ToSchema;

use crate::schedule::{self, Closure, Reason, WeeklyHours};

/// The node types, each the prefix of its nodes' ids (`ivr:42`).
pub const NODE_TYPES: &[&str] = &[
    "number",
    "ivr",
    "queue",
    "business-hours",
    "paging-group",
    "extension",
    "voicemail",
    "external",
    "hangup",
    "media-file",
    "pharmacy-agent",
];

/// A record of the graph.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Node {
    /// `type:id` (`ivr:42`, `number:7`, `external:5551234`, `hangup`).
    pub id: String,
    /// The node's type (one of the id prefixes).
    #[serde(rename = "type")]
    pub node_type: String,
    /// What an admin calls it: the name and number.
    pub label: String,
    /// Where the record is read in the API; null for dialled numbers and hang-ups.
    pub href: Option<String>,
    /// At `?at=`: whether the business hours are open then (business-hours nodes, and
    /// pharmacy agents with after-hours business hours).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open: Option<bool>,
    /// At `?at=`: why (`inside-hours`, `outside-hours`, `holiday`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Reached at `maxDepth`: its own edges are not shown.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Named by a reference whose record does not exist.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing: bool,
    /// Outside the caller's reach (another branch's extension or business hours, for a
    /// branch admin): shown where calls go, without its label, link or onward paths.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub opaque: bool,
}

impl Node {
    /// A node of `node_type` with this id, label and link.
    pub fn new(id: String, node_type: &str, label: String, href: Option<String>) -> Node {
        Node {
            id,
            node_type: node_type.to_owned(),
            label,
            href,
            open: None,
            reason: None,
            truncated: false,
            missing: false,
            opaque: false,
        }
    }

    /// A record of `node_type` outside the caller's reach: its id and type only.
    pub fn opaque(id: String, node_type: &str) -> Node {
        Node {
            opaque: true,
            ..Node::new(id, node_type, String::new(), None)
        }
    }
}

/// Why a call goes from one node to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Edge {
    /// The node the call is at.
    pub from: String,
    /// The node it goes to.
    pub to: String,
    /// Why: `route` (a number's destination), `open`, `closed`, `holiday`, `digit:N`,
    /// `timeout`, `invalid`, `member`, `overflow`, `fallback` (a pharmacy agent's
    /// pharmacist).
    pub kind: String,
    /// Position among the edges of the same kind (hunt order, member order); 0 when alone.
    pub order: i64,
    /// At `?at=`: whether a call takes this edge then (on a path from a number whose
    /// schedules all point this way).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    /// It leads back to a node already on the path: a loop, shown but not followed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cycle: bool,
}

/// Something wrong with the routing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Issue {
    /// `dangling` (a reference to a record that does not exist), `no-timeout-path` (an
    /// IVR nobody leaves when pressing nothing), `no-closed-path` (business hours with
    /// nowhere to go when closed).
    pub kind: String,
    /// The node concerned.
    pub node: String,
    /// What is wrong, in words.
    pub message: String,
}

/// The answer of `GET /destinations/graph`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Graph {
    /// The nodes the walk started from.
    pub roots: Vec<String>,
    /// Every node reached, each once.
    pub nodes: Vec<Node>,
    /// Every edge between them.
    pub edges: Vec<Edge>,
    /// What is wrong in what was reached.
    pub issues: Vec<Issue>,
    /// With `?target=`: the phone numbers (of the roots, as dialled, not their node ids)
    /// from which a call can reach it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached_from: Option<Vec<String>>,
}

/// An edge as loaded, before the walk: the target may not exist.
#[derive(Clone, Debug)]
pub struct Link {
    /// Why.
    pub kind: String,
    /// The node id it points at.
    pub to: String,
    /// Its order.
    pub order: i64,
}

/// A business-hours record's schedule, for `?at=`.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// Its weekly hours.
    pub weekly: WeeklyHours,
    /// Its holidays as closures.
    pub closures: Vec<Closure>,
    /// For each closure, the `order` of its holiday's `holiday` edge (an edge that exists
    /// when the holiday plays a media file): on a holiday only that edge is taken.
    pub holiday_orders: Vec<i64>,
    /// Its time zone.
    pub tz: Tz,
}

/// A tenant's routing records: the nodes that exist, their outgoing links, and the
/// schedules of business hours.
#[derive(Clone, Debug, Default)]
pub struct Routing {
    /// Every existing record, by node id.
    pub nodes: HashMap<String, Node>,
    /// Each node's links, in the order they are shown.
    pub links: HashMap<String, Vec<Link>>,
    /// Business hours' schedules, by node id.
    pub schedules: HashMap<String, Schedule>,
    /// The phone numbers, in id order: the default roots.
    pub numbers: Vec<String>,
    /// Each phone number's node id and the number itself (`number:7` → `15551230007`),
    /// which `reachedFrom` answers.
    pub dialled: HashMap<String, String>,
}

/// How a graph is asked for.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// The roots; every phone number when empty.
    pub roots: Vec<String>,
    /// Edges followed from a root at most.
    pub max_depth: usize,
    /// Marks the edges taken at this instant.
    pub at: Option<DateTime<Utc>>,
    /// Keeps only what reaches this node, and names the numbers that do.
    pub target: Option<String>,
}

/// Reads a node id `type:id` (or `hangup`), answering it normalized, or why not.
pub fn parse_node_id(text: &str) -> Result<String, String> {
    if text == "hangup" {
        return Ok(text.to_owned());
    }
    let Some((kind, id)) = text.split_once(':') else {
        return Err("must be type:id, as ivr:42".into());
    };
    if !NODE_TYPES.contains(&kind) {
        return Err(format!("must start with one of: {}", NODE_TYPES.join(", ")));
    }
    let valid = if kind == "external" {
        !id.is_empty()
            && id.len() <= 32
            && id.chars().all(|c| c.is_ascii_digit() || "*#+".contains(c))
    } else {
        !id.is_empty()
            && id.len() <= 18
            && !id.starts_with('0')
            && id.chars().all(|c| c.is_ascii_digit())
    };
    if valid {
        Ok(text.to_owned())
    } else {
        Err("must name a record id after the type, as ivr:42".into())
    }
}

/// The node types whose nodes are schedules (their edges depend on the time).
fn scheduled(kind: &str) -> bool {
    matches!(kind, "open" | "closed" | "holiday")
}

/// Walks `routing` from the roots of `request`.
pub fn build(routing: &Routing, request: &Request) -> Graph {
    let roots: Vec<String> = if request.roots.is_empty() {
        routing.numbers.clone()
    } else {
        request.roots.clone()
    };
    let mut walk = Walk {
        routing,
        max_depth: request.max_depth,
        nodes: BTreeMap::new(),
        order: Vec::new(),
        edges: Vec::new(),
        issues: Vec::new(),
        expanded: HashMap::new(),
        on_path: HashSet::new(),
    };
    for root in &roots {
        walk.visit(root, 0);
    }
    let Walk {
        mut nodes,
        order,
        mut edges,
        mut issues,
        ..
    } = walk;
    if let Some(at) = request.at {
        mark_active(routing, &roots, &mut nodes, &mut edges, at);
    }
    let mut reached_from = None;
    if let Some(target) = &request.target {
        let reaching = reaching(&edges, target);
        edges.retain(|e| reaching.contains(&e.from) && reaching.contains(&e.to));
        nodes.retain(|id, _| reaching.contains(id));
        issues.retain(|i| reaching.contains(&i.node));
        reached_from = Some(
            roots
                .iter()
                .filter(|r| reaching.contains(*r))
                .filter_map(|r| routing.dialled.get(r).cloned())
                .collect(),
        );
    }
    Graph {
        nodes: order
            .into_iter()
            .filter_map(|id| nodes.remove(&id))
            .collect(),
        roots,
        edges,
        issues,
        reached_from,
    }
}

/// The nodes from which `target` can be reached over `edges` (itself included, when
/// it is in the graph).
fn reaching(edges: &[Edge], target: &str) -> HashSet<String> {
    let mut incoming: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut known = false;
    for edge in edges {
        incoming.entry(&edge.to).or_default().push(&edge.from);
        known |= edge.to == target || edge.from == target;
    }
    let mut seen = HashSet::new();
    if !known {
        return seen;
    }
    let mut queue = VecDeque::from([target]);
    seen.insert(target.to_owned());
    while let Some(node) = queue.pop_front() {
        for from in incoming.get(node).into_iter().flatten() {
            if seen.insert((*from).to_owned()) {
                queue.push_back(from);
            }
        }
    }
    seen
}

/// Marks each edge active when a call at `at` takes it: a schedule's edges by whether it
/// is open, closed or on a holiday, every edge only when its source is reached from a
/// root over active edges.
fn mark_active(
    routing: &Routing,
    roots: &[String],
    nodes: &mut BTreeMap<String, Node>,
    edges: &mut [Edge],
    at: DateTime<Utc>,
) {
    let mut states: HashMap<String, (Reason, &Schedule)> = HashMap::new();
    for (id, node) in nodes.iter_mut() {
        if let Some(s) = routing.schedules.get(id) {
            let status = schedule::status(&s.weekly, &s.closures, s.tz, at);
            node.open = Some(status.open);
            node.reason = Some(
                match status.reason {
                    Reason::InsideHours => "inside-hours",
                    Reason::OutsideHours => "outside-hours",
                    Reason::Holiday { .. } => "holiday",
                }
                .to_owned(),
            );
            states.insert(id.clone(), (status.reason, s));
        }
    }
    let allowed = |edge: &Edge| match states.get(&edge.from) {
        Some((reason, schedule)) if scheduled(&edge.kind) => match edge.kind.as_str() {
            "open" => *reason == Reason::InsideHours,
            // Each holiday edge leads to that holiday's own media file: only the holiday
            // in effect plays.
            "holiday" => match reason {
                Reason::Holiday { index, .. } => {
                    schedule.holiday_orders.get(*index) == Some(&edge.order)
                }
                _ => false,
            },
            _ => *reason != Reason::InsideHours,
        },
        _ => true,
    };
    let mut outgoing: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, edge) in edges.iter().enumerate() {
        outgoing.entry(edge.from.as_str()).or_default().push(index);
    }
    let mut reached: HashSet<&str> = roots.iter().map(String::as_str).collect();
    let mut queue: VecDeque<&str> = roots.iter().map(String::as_str).collect();
    let mut active = vec![false; edges.len()];
    while let Some(node) = queue.pop_front() {
        for &index in outgoing.get(node).into_iter().flatten() {
            let edge = &edges[index];
            if allowed(edge) {
                active[index] = true;
                if reached.insert(edge.to.as_str()) {
                    queue.push_back(edge.to.as_str());
                }
            }
        }
    }
    for (edge, active) in edges.iter_mut().zip(active) {
        edge.active = Some(active);
    }
}

/// A depth-first walk: each node expanded once (at the shallowest depth it is met, if
/// that is below the limit), an edge back to a node on the current path marked as a
/// cycle and not followed.
struct Walk<'a> {
    routing: &'a Routing,
    max_depth: usize,
    nodes: BTreeMap<String, Node>,
    order: Vec<String>,
    edges: Vec<Edge>,
    issues: Vec<Issue>,
    /// Nodes expanded, with the depth they were expanded at.
    expanded: HashMap<String, usize>,
    on_path: HashSet<String>,
}

impl Walk<'_> {
    fn add_node(&mut self, id: &str) {
        if self.nodes.contains_key(id) {
            return;
        }
        let node = match self.routing.nodes.get(id) {
            Some(node) => node.clone(),
            None => {
                let kind = id.split(':').next().unwrap_or(id);
                let mut node = Node::new(id.to_owned(), kind, format!("{id} (missing)"), None);
                node.missing = true;
                node
            }
        };
        self.order.push(id.to_owned());
        self.nodes.insert(id.to_owned(), node);
    }

    fn visit(&mut self, id: &str, depth: usize) {
        // Iterative, so a long chain of records cannot overflow the stack.
        enum Step {
            Enter(String, usize),
            Leave(String),
        }
        let mut stack = vec![Step::Enter(id.to_owned(), depth)];
        while let Some(step) = stack.pop() {
            let (id, depth) = match step {
                Step::Leave(id) => {
                    self.on_path.remove(&id);
                    continue;
                }
                Step::Enter(id, depth) => (id, depth),
            };
            self.add_node(&id);
            if self.expanded.get(&id).is_some_and(|d| *d <= depth) {
                continue;
            }
            let first = !self.expanded.contains_key(&id);
            if depth >= self.max_depth {
                if let Some(node) = self.nodes.get_mut(&id) {
                    node.truncated = !self.expanded.contains_key(&id);
                }
                continue;
            }
            if !first {
                // Met again nearer a root: its edges are already shown.
                self.expanded.insert(id.clone(), depth);
                continue;
            }
            if let Some(node) = self.nodes.get_mut(&id) {
                node.truncated = false;
            }
            self.expanded.insert(id.clone(), depth);
            // A missing record has no paths; an opaque one's are not the caller's to see.
            let hidden = self.routing.nodes.get(&id).is_none_or(|node| node.opaque);
            if hidden {
                continue;
            }
            self.on_path.insert(id.clone());
            stack.push(Step::Leave(id.clone()));
            let links = self
                .routing
                .links
                .get(&id)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            self.check(&id, links);
            let mut next = Vec::new();
            for link in links {
                let cycle = self.on_path.contains(&link.to);
                self.edges.push(Edge {
                    from: id.clone(),
                    to: link.to.clone(),
                    kind: link.kind.clone(),
                    order: link.order,
                    active: None,
                    cycle,
                });
                if !self.routing.nodes.contains_key(&link.to) {
                    self.issues.push(Issue {
                        kind: "dangling".into(),
                        node: id.clone(),
                        message: format!(
                            "its {} path names {}, which does not exist",
                            link.kind, link.to
                        ),
                    });
                }
                if cycle {
                    self.add_node(&link.to);
                } else {
                    next.push(Step::Enter(link.to.clone(), depth + 1));
                }
            }
            // Pushed in reverse, so the first link is walked first.
            stack.extend(next.into_iter().rev());
        }
    }

    /// The issues a node's own links show.
    fn check(&mut self, id: &str, links: &[Link]) {
        let has = |kind: &str| links.iter().any(|l| l.kind == kind);
        if id.starts_with("ivr:") && !has("timeout") {
            self.issues.push(Issue {
                kind: "no-timeout-path".into(),
                node: id.to_owned(),
                message: "a caller who presses nothing is hung up on: set timeoutDestination"
                    .into(),
            });
        }
        if id.starts_with("business-hours:") && !has("closed") {
            self.issues.push(Issue {
                kind: "no-closed-path".into(),
                node: id.to_owned(),
                message: "calls outside the hours go nowhere: set notMatchDestinations".into(),
            });
        }
    }
}

/// Escapes a label for a double-quoted Mermaid or DOT string.
fn quoted(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "'")
        .replace(['\n', '\r'], " ")
}

impl Graph {
    /// The graph as a Mermaid flowchart (left to right; cycles dotted, inactive edges
    /// at `?at=` dotted too).
    pub fn mermaid(&self) -> String {
        let index: HashMap<&str, usize> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        let mut out = String::from("flowchart LR\n");
        for (i, node) in self.nodes.iter().enumerate() {
            out.push_str(&format!(
                "  n{i}[\"{}: {}\"]\n",
                quoted(&node.node_type),
                quoted(&node.label).replace('[', "(").replace(']', ")")
            ));
        }
        for edge in &self.edges {
            let (Some(from), Some(to)) =
                (index.get(edge.from.as_str()), index.get(edge.to.as_str()))
            else {
                continue;
            };
            let arrow = if edge.cycle || edge.active == Some(false) {
                "-.->"
            } else {
                "-->"
            };
            out.push_str(&format!(
                "  n{from} {arrow}|\"{}\"| n{to}\n",
                quoted(&edge.kind)
            ));
        }
        out
    }

    /// The graph in Graphviz DOT.
    pub fn dot(&self) -> String {
        let mut out = String::from("digraph routing {\n  rankdir=LR;\n");
        for node in &self.nodes {
            out.push_str(&format!(
                "  \"{}\" [label=\"{}\"];\n",
                quoted(&node.id),
                quoted(&node.label)
            ));
        }
        for edge in &self.edges {
            let style = if edge.cycle || edge.active == Some(false) {
                ", style=dashed"
            } else {
                ""
            };
            out.push_str(&format!(
                "  \"{}\" -> \"{}\" [label=\"{}\"{style}];\n",
                quoted(&edge.from),
                quoted(&edge.to),
                quoted(&edge.kind)
            ));
        }
        out.push_str("}\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str) -> Node {
        let kind = id.split(':').next().unwrap_or(id);
        Node::new(id.into(), kind, id.into(), None)
    }

    fn link(kind: &str, to: &str) -> Link {
        Link {
            kind: kind.into(),
            to: to.into(),
            order: 0,
        }
    }

    fn routing(links: &[(&str, &str, &str)]) -> Routing {
        let mut r = Routing::default();
        for (from, kind, to) in links {
            for id in [from, to] {
                if !id.contains("missing") {
                    r.nodes.insert((*id).into(), node(id));
                }
            }
            r.links
                .entry((*from).into())
                .or_default()
                .push(link(kind, to));
        }
        r.numbers = vec!["number:1".into()];
        r
    }

    #[test]
    fn a_cycle_is_marked_and_not_followed() {
        let r = routing(&[
            ("number:1", "route", "ivr:1"),
            ("ivr:1", "digit:1", "ivr:2"),
            ("ivr:2", "timeout", "ivr:1"),
            ("ivr:1", "timeout", "ivr:1"),
        ]);
        let g = build(
            &r,
            &Request {
                max_depth: 10,
                ..Request::default()
            },
        );
        assert_eq!(g.nodes.len(), 3);
        let cycles: Vec<_> = g
            .edges
            .iter()
            .filter(|e| e.cycle)
            .map(|e| (&*e.from, &*e.to))
            .collect();
        assert_eq!(cycles, [("ivr:1", "ivr:1"), ("ivr:2", "ivr:1")]);
        assert!(g.issues.is_empty(), "{:?}", g.issues);
    }

    #[test]
    fn depth_limits_and_dangling_references_show() {
        let r = routing(&[
            ("number:1", "route", "ivr:1"),
            ("ivr:1", "timeout", "queue:1"),
            ("queue:1", "overflow", "ivr:missing"),
        ]);
        let g = build(
            &r,
            &Request {
                max_depth: 1,
                ..Request::default()
            },
        );
        assert_eq!(g.edges.len(), 1);
        assert!(g.nodes[1].truncated);
        let g = build(
            &r,
            &Request {
                max_depth: 5,
                ..Request::default()
            },
        );
        assert_eq!(g.issues.len(), 1);
        assert_eq!(g.issues[0].kind, "dangling");
        assert!(g.nodes.iter().any(|n| n.missing));
    }

    #[test]
    fn the_reverse_question_keeps_what_reaches_the_target() {
        let mut r = routing(&[
            ("number:1", "route", "ivr:1"),
            ("ivr:1", "digit:1", "extension:5"),
            ("ivr:1", "timeout", "hangup"),
            ("number:2", "route", "queue:1"),
        ]);
        r.numbers = vec!["number:1".into(), "number:2".into()];
        r.dialled = HashMap::from([
            ("number:1".to_owned(), "15551230001".to_owned()),
            ("number:2".to_owned(), "15551230002".to_owned()),
        ]);
        let g = build(
            &r,
            &Request {
                max_depth: 10,
                target: Some("extension:5".into()),
                ..Request::default()
            },
        );
        assert_eq!(g.reached_from, Some(vec!["15551230001".to_owned()]));
        assert_eq!(g.edges.len(), 2);
        assert!(g.mermaid().starts_with("flowchart LR\n"));
        assert!(
            g.dot()
                .contains("\"ivr:1\" -> \"extension:5\" [label=\"digit:1\"];")
        );
    }

    #[test]
    fn at_a_holiday_only_its_own_edge_is_taken() {
        let mut r = routing(&[
            ("number:1", "route", "business-hours:1"),
            ("business-hours:1", "open", "ivr:1"),
            ("business-hours:1", "closed", "voicemail:1"),
        ]);
        // The holidays at positions 1 and 3 play a file each; the one at 2 is not a
        // closure (so closure indexes and edge orders differ).
        for (order, file) in [(1, "media-file:10"), (3, "media-file:30")] {
            r.nodes.insert(file.into(), node(file));
            r.links
                .get_mut("business-hours:1")
                .expect("the business hours' links")
                .push(Link {
                    kind: "holiday".into(),
                    to: file.into(),
                    order,
                });
        }
        let day = |d: &str| {
            let date = chrono::NaiveDate::parse_from_str(d, "%F").expect("a date");
            schedule::closure_for_date(d, date)
        };
        r.schedules.insert(
            "business-hours:1".into(),
            Schedule {
                weekly: WeeklyHours::default(),
                closures: vec![day("2026-12-25"), day("2027-01-01")],
                holiday_orders: vec![1, 3],
                tz: chrono_tz::UTC,
            },
        );
        let active = |at: &str| -> Vec<(String, String)> {
            build(
                &r,
                &Request {
                    max_depth: 10,
                    at: Some(at.parse().expect("an instant")),
                    ..Request::default()
                },
            )
            .edges
            .into_iter()
            .filter(|e| e.active == Some(true))
            .map(|e| (e.kind, e.to))
            .collect()
        };
        let taken = |edges: &[(&str, &str)]| -> Vec<(String, String)> {
            edges
                .iter()
                .map(|(k, t)| ((*k).to_owned(), (*t).to_owned()))
                .collect()
        };
        assert_eq!(
            active("2027-01-01T12:00:00Z"),
            taken(&[
                ("route", "business-hours:1"),
                ("closed", "voicemail:1"),
                ("holiday", "media-file:30"),
            ])
        );
        assert_eq!(
            active("2026-12-25T12:00:00Z"),
            taken(&[
                ("route", "business-hours:1"),
                ("closed", "voicemail:1"),
                ("holiday", "media-file:10"),
            ])
        );
        // Closed outside hours, no holiday: neither file plays.
        assert_eq!(
            active("2026-12-26T12:00:00Z"),
            taken(&[("route", "business-hours:1"), ("closed", "voicemail:1")])
        );
    }

    #[test]
    fn node_ids_are_read_strictly() {
        assert!(parse_node_id("ivr:42").is_ok());
        assert!(parse_node_id("external:+15551234").is_ok());
        assert!(parse_node_id("hangup").is_ok());
        for bad in ["ivr", "ivr:", "ivr:042", "ivr:x", "car:1", "external:12a"] {
            assert!(parse_node_id(bad).is_err(), "{bad}");
        }
    }
}

/// A node id in a query (`?root=ivr:42`, `?target=extension:101`).
#[derive(Clone, Copy, Debug)]
pub struct NodeRef;

/// The pattern of a node id.
pub const NODE_PATTERN: &str = "^(hangup|(number|ivr|queue|business-hours|paging-group|extension|voicemail|media-file):[1-9][0-9]{0,17}|external:[0-9*#+]{1,32})$";

impl crate::validation::Rule for NodeRef {
    type Output = String;

    fn check(&self, raw: crate::validation::Raw<'_>) -> Result<String, String> {
        parse_node_id(crate::validation::as_str(raw)?)
    }

    fn schema(&self) -> utoipa::openapi::schema::Schema {
        crate::validation::string_schema(1, 64, NODE_PATTERN).into()
    }

    fn example(&self) -> serde_json::Value {
        serde_json::json!("ivr:1")
    }
}

crate::closed_set! {
    /// The graph's answer formats.
    pub enum GraphFormat {
        /// The graph as JSON.
        Json = "json",
        /// A Mermaid flowchart.
        Mermaid = "mermaid",
        /// A Graphviz digraph.
        Dot = "dot",
    }
}

/// The query of `GET /destinations/graph`.
#[derive(Clone, Debug, Default, crate::declare::Filter)]
pub struct GraphQuery {
    /// The tenant (platform and partner admins must name one; others default to their own).
    #[field(rule = crate::validation::ID)]
    pub tenant_id: Option<crate::ids::TenantId>,
    /// Start from this node instead of every phone number (`number:7`, `ivr:42`).
    #[field(rule = NodeRef)]
    pub root: Option<String>,
    /// Edges followed from a root at most (default 32).
    #[field(rule = MAX_DEPTH)]
    pub max_depth: Option<i64>,
    /// Marks the edges a call takes at this RFC 3339 instant.
    #[field(rule = crate::validation::Instant)]
    pub at: Option<DateTime<Utc>>,
    /// Keeps only what reaches this node (`extension:101`) and names the numbers that do.
    #[field(rule = NodeRef)]
    pub target: Option<String>,
    /// `json` (default), `mermaid` or `dot`.
    #[field(rule = FORMAT)]
    pub format: Option<GraphFormat>,
}

/// The depth limit's bounds.
const MAX_DEPTH: crate::validation::Int = crate::validation::int(1, 100);
/// The format rule.
const FORMAT: crate::validation::Among<GraphFormat> = crate::validation::among();
/// The depth followed when `maxDepth` is left out.
pub const DEFAULT_DEPTH: usize = 32;
