//! The call-flow picture of a phone number: the routing graph the API answers
//! (`GET /v2/destinations/graph?root=number:N[&at=…]`) laid out by layout-rs and written
//! as SVG, with the path a call takes at the asked moment drawn in the active colour.
//!
//! The picture is served as an image of its own (`<img src=…>`), never inlined into a
//! page: the writer puts a `<style>` element in the SVG, which the console's
//! Content-Security-Policy forbids inside a page, and an image document runs no script
//! whatever its labels hold (they are escaped by the writer as well).

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;
use serde::Deserialize;

/// The routing graph as the API answers it, in the parts the picture draws.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct FlowGraph {
    /// Every node reached, each once.
    #[serde(default)]
    pub nodes: Vec<FlowNode>,
    /// Every edge between them.
    #[serde(default)]
    pub edges: Vec<FlowEdge>,
    /// What the API found wrong in what was reached.
    #[serde(default)]
    pub issues: Vec<FlowIssue>,
}

/// A record calls reach.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct FlowNode {
    /// `type:id` (`ivr:42`, `number:7`, `hangup`).
    pub id: String,
    /// The node's type (`number`, `business-hours`, `ivr`, `queue` …).
    #[serde(rename = "type")]
    pub node_type: String,
    /// Its name and number.
    pub label: String,
    /// At a moment: whether business hours are open then.
    #[serde(default)]
    pub open: Option<bool>,
    /// Named by a reference whose record does not exist.
    #[serde(default)]
    pub missing: bool,
    /// Another branch's record: shown where calls go, without its name.
    #[serde(default)]
    pub opaque: bool,
    /// Reached at the walk's depth limit: its own paths are not shown.
    #[serde(default)]
    pub truncated: bool,
}

/// A way a call goes from one node to another.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct FlowEdge {
    /// The node the call is at.
    pub from: String,
    /// The node it goes to.
    pub to: String,
    /// Why (`route`, `open`, `closed`, `digit:1`, `timeout`, `member` …).
    pub kind: String,
    /// At a moment: whether a call takes it then.
    #[serde(default)]
    pub active: Option<bool>,
    /// It leads back to a node already on the path.
    #[serde(default)]
    pub cycle: bool,
}

/// Something wrong with the routing, as the API words it.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct FlowIssue {
    /// The node concerned.
    pub node: String,
    /// What is wrong, in words.
    pub message: String,
}

/// The words an administrator uses for a node's type.
pub fn type_name(node_type: &str) -> &str {
    match node_type {
        "number" => "Phone number",
        "business-hours" => "Business hours",
        "ivr" => "IVR menu",
        "queue" => "Queue",
        "paging-group" => "Paging group",
        "extension" => "Extension",
        "voicemail" => "Voicemail",
        "media-file" => "Announcement",
        "pharmacy-agent" => "Pharmacy agent",
        "external" => "Outside number",
        "hangup" => "Hang up",
        other => other,
    }
}

/// The words an administrator uses for why a call takes an edge.
pub fn edge_name(kind: &str) -> String {
    match kind {
        "route" => "rings".into(),
        "open" => "open".into(),
        "closed" => "closed".into(),
        "holiday" => "holiday".into(),
        "timeout" => "no key".into(),
        "invalid" => "wrong key".into(),
        "member" => "member".into(),
        "overflow" => "overflow".into(),
        "fallback" => "pharmacist".into(),
        other => match other.strip_prefix("digit:") {
            Some(key) => format!("key {key}"),
            None => other.into(),
        },
    }
}

const INK: u32 = 0x1f2933ff;
const PAPER: u32 = 0xffffffff;
/// The path a call takes at the asked moment (a green with 7:1 contrast on white).
const ACTIVE: u32 = 0x0b6e4fff;
const ACTIVE_FILL: u32 = 0xd8f3e6ff;
const INACTIVE: u32 = 0x9aa5b1ff;
const PROBLEM: u32 = 0xb42318ff;
const PROBLEM_FILL: u32 = 0xfde8e7ff;
const LOOP: u32 = 0xb54708ff;
const FONT_SIZE: usize = 14;

/// The call flow drawn as an SVG document; `None` when the layout library cannot lay it
/// out (the page then shows the flow as text only, which it always shows as well).
pub fn svg(graph: &FlowGraph) -> Option<String> {
    if graph.nodes.is_empty() {
        return None;
    }
    // layout-rs asserts on shapes it cannot place; a picture is not worth a failed page.
    catch_unwind(AssertUnwindSafe(|| draw(graph))).ok()
}

fn draw(graph: &FlowGraph) -> String {
    let on_path = nodes_on_active_path(graph);
    let with_problem: HashSet<&str> = graph.issues.iter().map(|i| i.node.as_str()).collect();
    let mut picture = VisualGraph::new(Orientation::LeftToRight);
    let mut handles = std::collections::HashMap::new();
    for node in &graph.nodes {
        let text = node_text(node);
        let shape = ShapeKind::new_box(&text);
        let (line, fill) = if node.missing || with_problem.contains(node.id.as_str()) {
            (PROBLEM, PROBLEM_FILL)
        } else if on_path.contains(node.id.as_str()) {
            (ACTIVE, ACTIVE_FILL)
        } else {
            (INK, PAPER)
        };
        let look = StyleAttr::new(Color::new(line), 2, Some(Color::new(fill)), 6, FONT_SIZE);
        let size = get_shape_size(Orientation::LeftToRight, &shape, FONT_SIZE, false);
        let element = Element::create(shape, look, Orientation::LeftToRight, size);
        handles.insert(node.id.as_str(), picture.add_node(element));
    }
    for edge in &graph.edges {
        let (Some(from), Some(to)) = (
            handles.get(edge.from.as_str()),
            handles.get(edge.to.as_str()),
        ) else {
            continue;
        };
        // A loop back to the same node is named in the text; the layout cannot draw it.
        if from == to {
            continue;
        }
        let (colour, width, style) = if edge.cycle {
            (LOOP, 2, LineStyleKind::Dashed)
        } else {
            match edge.active {
                Some(true) => (ACTIVE, 3, LineStyleKind::Normal),
                Some(false) => (INACTIVE, 1, LineStyleKind::Dashed),
                None => (INK, 1, LineStyleKind::Normal),
            }
        };
        let look = StyleAttr::new(Color::new(colour), width, None, 0, FONT_SIZE - 2);
        let arrow = Arrow::new(
            LineEndKind::None,
            LineEndKind::Arrow,
            style,
            &edge_name(&edge.kind),
            &look,
            &None,
            &None,
        );
        picture.add_edge(arrow, *from, *to);
    }
    let mut writer = SVGWriter::new();
    picture.do_it(false, false, false, &mut writer);
    writer.finalize()
}

/// A node's two lines: what it is, and its name (another branch's record unnamed).
fn node_text(node: &FlowNode) -> String {
    let kind = type_name(&node.node_type);
    let name = if node.opaque {
        "(another branch)".to_owned()
    } else if node.missing {
        "(missing)".to_owned()
    } else {
        shorten(&node.label, 36)
    };
    let state = match node.open {
        Some(true) => " — open",
        Some(false) => " — closed",
        None => "",
    };
    let more = if node.truncated { " …" } else { "" };
    format!("{kind}{state}\n{name}{more}")
}

fn shorten(text: &str, most: usize) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    if one_line.chars().count() <= most {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(most - 1).collect();
    cut.push('…');
    cut
}

/// The nodes a call passes at the asked moment: the ends of every active edge.
pub fn nodes_on_active_path(graph: &FlowGraph) -> HashSet<&str> {
    graph
        .edges
        .iter()
        .filter(|e| e.active == Some(true) && !e.cycle)
        .flat_map(|e| [e.from.as_str(), e.to.as_str()])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, label: &str) -> FlowNode {
        FlowNode {
            id: id.into(),
            node_type: id.split(':').next().unwrap_or(id).into(),
            label: label.into(),
            ..FlowNode::default()
        }
    }

    fn edge(from: &str, to: &str, kind: &str, active: Option<bool>) -> FlowEdge {
        FlowEdge {
            from: from.into(),
            to: to.into(),
            kind: kind.into(),
            active,
            cycle: false,
        }
    }

    fn pharmacy() -> FlowGraph {
        FlowGraph {
            nodes: vec![
                node("number:1", "+1 202 555 0100"),
                node("business-hours:1", "Pharmacy hours"),
                node("ivr:1", "Main menu <&>"),
                node("voicemail:2", "After hours"),
                node("queue:1", "Pharmacists"),
            ],
            edges: vec![
                edge("number:1", "business-hours:1", "route", Some(true)),
                edge("business-hours:1", "ivr:1", "open", Some(true)),
                edge("business-hours:1", "voicemail:2", "closed", Some(false)),
                edge("ivr:1", "queue:1", "digit:2", Some(true)),
            ],
            issues: vec![],
        }
    }

    #[test]
    fn the_picture_names_every_node_and_escapes_labels() {
        let svg = svg(&pharmacy()).expect("a picture");
        assert!(svg.starts_with("<?xml") || svg.contains("<svg"), "{svg}");
        for text in [
            "Pharmacy hours",
            "Pharmacists",
            "key 2",
            "Main menu &lt;&amp;&gt;",
        ] {
            assert!(svg.contains(text), "{text} missing from {svg}");
        }
        assert!(!svg.contains("<&>"), "a label is written unescaped");
    }

    #[test]
    fn the_active_path_is_drawn_in_its_colour_and_the_rest_is_not() {
        let svg = svg(&pharmacy()).expect("a picture");
        let active = Color::new(ACTIVE_FILL).to_web_color();
        // Four nodes on the path (number, hours, IVR, queue), voicemail off it.
        assert_eq!(
            svg.matches(&format!("fill=\"{active}\"")).count(),
            4,
            "{svg}"
        );
        let graph = pharmacy();
        let on = nodes_on_active_path(&graph);
        assert!(!on.contains("voicemail:2"));
        assert!(on.contains("queue:1"));
    }

    #[test]
    fn a_graph_without_a_moment_has_no_active_path() {
        let mut graph = pharmacy();
        for edge in &mut graph.edges {
            edge.active = None;
        }
        let svg = svg(&graph).expect("a picture");
        let active = Color::new(ACTIVE_FILL).to_web_color();
        assert!(!svg.contains(&format!("fill=\"{active}\"")));
    }

    #[test]
    fn loops_self_edges_missing_and_opaque_nodes_still_draw() {
        let mut graph = pharmacy();
        graph.nodes.push(node("extension:9", "secret name"));
        graph.nodes.last_mut().expect("pushed").opaque = true;
        graph.nodes.push(node("ivr:7", "gone"));
        graph.nodes.last_mut().expect("pushed").missing = true;
        graph
            .edges
            .push(edge("queue:1", "extension:9", "member", None));
        graph.edges.push(FlowEdge {
            cycle: true,
            ..edge("ivr:1", "ivr:1", "timeout", None)
        });
        graph.edges.push(FlowEdge {
            cycle: true,
            ..edge("queue:1", "ivr:1", "overflow", None)
        });
        graph.edges.push(edge("ivr:1", "ivr:7", "digit:9", None));
        let svg = svg(&graph).expect("a picture");
        assert!(svg.contains("(another branch)"));
        assert!(!svg.contains("secret name"), "an opaque node's name leaked");
        assert!(svg.contains("(missing)"));
    }

    #[test]
    fn nothing_to_draw_is_no_picture() {
        assert!(svg(&FlowGraph::default()).is_none());
    }

    #[test]
    fn the_api_answer_deserialises() {
        let answer = serde_json::json!({
            "roots": ["number:1"],
            "nodes": [{"id": "number:1", "type": "number", "label": "12025550100", "href": null},
                      {"id": "hangup", "type": "hangup", "label": "hang up", "href": null, "open": false}],
            "edges": [{"from": "number:1", "to": "hangup", "kind": "route", "order": 0, "active": true}],
            "issues": [{"kind": "dangling", "node": "number:1", "message": "…"}]
        });
        let graph: FlowGraph = serde_json::from_value(answer).expect("the API's graph");
        assert_eq!(graph.nodes.len(), 2);
        assert_eq!(graph.edges[0].active, Some(true));
        assert!(svg(&graph).is_some());
    }

    #[test]
    fn many_random_graphs_never_fail_the_page() {
        // A small deterministic generator: layouts of every shape of graph either draw or
        // answer None, and never take the thread down.
        let mut seed: u64 = 0x5eed;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..200 {
            let count = 1 + next(12);
            let nodes: Vec<FlowNode> = (0..count)
                .map(|i| node(&format!("ivr:{i}"), &format!("menu {i}")))
                .collect();
            let edges: Vec<FlowEdge> = (0..next(30))
                .map(|_| {
                    let from = format!("ivr:{}", next(count));
                    let to = format!("ivr:{}", next(count));
                    let active = [None, Some(true), Some(false)][next(3) as usize];
                    FlowEdge {
                        cycle: next(4) == 0,
                        ..edge(&from, &to, "timeout", active)
                    }
                })
                .collect();
            let _ = svg(&FlowGraph {
                nodes,
                edges,
                issues: vec![],
            });
        }
    }
}
