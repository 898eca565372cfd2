//! docs/tour.md, run as written against a freshly seeded demo: every `sh` block in order,
//! in one shell, and what each prints compared with the `text` block the tour shows after
//! it (a block followed by none prints nothing). A step whose answer changes fails here.

use switchboard::demo;

use crate::support::TestApp;
use crate::walkthrough::{SHELL_TOOLS, run_against};

/// Printed between two steps' outputs (no step prints it).
const STEP: &str = "@@ tour step @@";

/// The tour's steps: each `sh` block and the `text` block following it (empty when the
/// next block is another command).
fn steps() -> Vec<(String, String)> {
    let tour = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tour.md"))
        .expect("docs/tour.md");
    let mut steps: Vec<(String, String)> = Vec::new();
    let mut block: Option<(String, String)> = None;
    for line in tour.lines() {
        match (&mut block, line) {
            (None, fence) if fence.starts_with("```") => {
                block = Some((fence.trim_start_matches('`').to_owned(), String::new()));
            }
            (Some(_), "```") => {
                let (kind, text) = block.take().expect("a block");
                match kind.as_str() {
                    "sh" => steps.push((text, String::new())),
                    "text" => {
                        let last = steps.last_mut().expect("a text block follows a command");
                        assert!(last.1.is_empty(), "two outputs for one command");
                        last.1 = text;
                    }
                    other => panic!("docs/tour.md: a block of {other:?}: sh or text only"),
                }
            }
            (Some((_, text)), line) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(block.is_none(), "docs/tour.md: a block is not closed");
    steps
}

async fn the_tour_answers_as_written(app: TestApp) {
    demo::seed(&app.state).await.unwrap();
    let steps = steps();
    assert!(steps.len() >= 5, "{steps:?}");
    let script: String = steps
        .iter()
        .map(|(code, _)| format!("{code}echo '{STEP}'\n"))
        .collect();
    let stdout = run_against(&app, &script).await;
    let outputs: Vec<&str> = stdout.split(&format!("{STEP}\n")).collect();
    assert_eq!(outputs.len(), steps.len() + 1, "{stdout}");
    for ((code, expected), output) in steps.iter().zip(outputs) {
        assert_eq!(
            output.trim_end(),
            expected.trim_end(),
            "docs/tour.md: this step printed otherwise than the tour shows:\n{code}"
        );
    }
}

async fn the_tour_runs_on_a_seeded_demo() {
    let app = TestApp::start(crate::support::Backend::Sqlite)
        .await
        .expect("a SQLite app");
    the_tour_answers_as_written(app).await;
}

switchboard_testing::tests!(needs SHELL_TOOLS, switchboard_testing::ESPEAK_NG; the_tour_runs_on_a_seeded_demo);
