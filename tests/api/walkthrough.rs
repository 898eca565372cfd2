//! The README's walkthrough, run as written: the shell block between its
//! `walkthrough:start` and `walkthrough:end` markers, against a freshly seeded demo, with
//! only the address changed. Every command in it fails loudly (`curl -f`, `jq -e`,
//! `pipefail`), so a step that stops working fails this test.

use std::process::Command;

use switchboard::demo;

use crate::support::TestApp;

/// The README's walkthrough block.
fn walkthrough() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let start = readme
        .find("<!-- walkthrough:start -->")
        .expect("the README marks where its walkthrough starts");
    let end = readme
        .find("<!-- walkthrough:end -->")
        .expect("the README marks where its walkthrough ends");
    let block = &readme[start..end];
    let open = block
        .find("```sh\n")
        .expect("the walkthrough is a sh block")
        + "```sh\n".len();
    let close = block[open..].find("```").expect("the sh block ends") + open;
    block[open..close].to_owned()
}

/// Whether `program` runs here.
fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

async fn the_readme_walkthrough_runs(app: TestApp) {
    let tools = ["bash", "curl", "jq"];
    if let Some(missing) = tools.iter().find(|t| !available(t)) {
        // CI installs them (scripts/install-test-tools.sh); elsewhere say what was skipped.
        assert!(
            std::env::var_os("CI").is_none(),
            "the walkthrough needs {missing}, which CI must install"
        );
        eprintln!("skipping the README walkthrough: `{missing}` is not installed");
        return;
    }
    demo::seed(&app.state).await.unwrap();
    let script = walkthrough();
    assert!(script.contains("localhost:8080"), "{script}");
    let address = app.base.trim_start_matches("http://").to_owned();
    let script = script.replace("localhost:8080", &address);
    let output = tokio::task::spawn_blocking(move || {
        Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("bash runs")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the walkthrough failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    // What a reader is told to expect: a holiday closes the line, the audio is served.
    assert!(stdout.contains("\"open\": false"), "{stdout}");
    assert!(stdout.contains("200 audio/"), "{stdout}");
}

crate::on_both_backends!(the_readme_walkthrough_runs);
