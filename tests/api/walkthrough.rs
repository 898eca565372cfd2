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

/// The programs the walkthrough runs: without them its test is reported ignored with a
/// line saying so, never passed; CI (`CI=true`) requires them
/// (`scripts/install-test-tools.sh` installs them).
pub static SHELL_TOOLS: switchboard_testing::Service = switchboard_testing::Service {
    name: "bash, curl and jq",
    require_var: "CI",
    how: "Install bash, curl and jq (scripts/install-test-tools.sh does) to run it.",
    probe: probe_tools,
};

fn probe_tools() -> Result<(), String> {
    for program in ["bash", "curl", "jq"] {
        let runs = Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !runs {
            return Err(format!("`{program}` is not installed"));
        }
    }
    Ok(())
}

/// Runs `script` with bash (`-euo pipefail`) from the project folder against `app`, its
/// `localhost:8080` replaced by the app's address; answers its standard output, failing
/// with both outputs when it fails.
pub async fn run_against(app: &TestApp, script: &str) -> String {
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
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the script failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    stdout
}

async fn the_readme_walkthrough_runs(app: TestApp) {
    demo::seed(&app.state).await.unwrap();
    let stdout = run_against(&app, &walkthrough()).await;
    // What a reader is told to expect: a holiday closes the line, the audio is served.
    assert!(stdout.contains("\"open\": false"), "{stdout}");
    assert!(stdout.contains("200 audio/"), "{stdout}");
}

async fn the_readme_walkthrough_runs_on_a_seeded_demo() {
    let app = TestApp::start(crate::support::Backend::Sqlite)
        .await
        .expect("a SQLite app");
    the_readme_walkthrough_runs(app).await;
}

switchboard_testing::tests!(needs SHELL_TOOLS; the_readme_walkthrough_runs_on_a_seeded_demo);
