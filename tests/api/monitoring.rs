//! Monitoring from a process's start (issue 30): `/metrics` of a real `serve` process,
//! scraped before anything happened, describes every series (`# HELP`), has the
//! `process_*` series and the build, every counter an alert takes a `rate()` of at 0, the
//! database circuit and the last backup's age — which a `backup` then moves; and every
//! series the shipped alert rules (`ops/prometheus/alerts.yml`), the dashboard
//! (`ops/grafana/switchboard.json`) and docs/operations.md name is one the process
//! exports.

use crate::binary::{self, Served};
use crate::on_both_backends;
use crate::support::TestApp;
use std::collections::BTreeSet;

/// A `serve` process on `app`'s database and objects with its metrics listener on; the
/// listener's page address.
async fn serve_with_metrics(app: &TestApp, logs: &std::path::Path) -> (Served, String) {
    let port = binary::free_port();
    let mut command = binary::command(&app.config.data_dir, &["serve"]);
    command
        .env("SWITCHBOARD_DATABASE_URL", app.config.database_url())
        .env("SWITCHBOARD_STORAGE_URL", app.config.storage_url())
        .env("SWITCHBOARD_JWT_SECRET", crate::support::JWT_SECRET)
        .env("SWITCHBOARD_METRICS_LISTEN", format!("127.0.0.1:{port}"));
    let mut served = Served::start(command, logs);
    served.ready().await;
    (served, format!("http://127.0.0.1:{port}/metrics"))
}

async fn scrape(url: &str) -> String {
    let answer = reqwest::get(url)
        .await
        .expect("the metrics listener answers");
    assert_eq!(answer.status(), 200);
    answer.text().await.unwrap()
}

/// The metric family of a sample's name: a histogram's `_bucket`, `_sum` and `_count`
/// samples belong to the family their `# TYPE` line names.
fn family<'a>(name: &'a str, typed: &BTreeSet<&str>) -> &'a str {
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(base) = name.strip_suffix(suffix)
            && typed.contains(base)
        {
            return base;
        }
    }
    name
}

/// The names of the samples of `page`.
fn sample_names(page: &str) -> BTreeSet<&str> {
    page.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split(['{', ' ']).next().unwrap())
        .collect()
}

/// The value of the one sample `series` (its name with its labels as rendered).
fn value(page: &str, series: &str) -> f64 {
    page.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no sample {series} in:\n{page}"))
        .trim()
        .parse()
        .unwrap()
}

/// The series names (`switchboard_…`, `process_…`) an expression uses.
fn names_in(expr: &str) -> Vec<String> {
    let mut names = Vec::new();
    let bytes = expr.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if !expr.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let rest = &expr[i..];
        if starts_word && (rest.starts_with("switchboard_") || rest.starts_with("process_")) {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            names.push(rest[..end].to_owned());
            i += end;
        } else {
            i += 1;
        }
    }
    names
}

/// Every `expr` of the shipped alert rules, with its alert's name.
fn rule_expressions() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/ops/prometheus/alerts.yml");
    let text = std::fs::read_to_string(path).unwrap();
    let mut alert = String::new();
    let mut found = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("- alert:") {
            alert = name.trim().to_owned();
        } else if let Some(expr) = line.strip_prefix("expr:") {
            assert!(!alert.is_empty(), "an expr before any alert: {line}");
            found.push((alert.clone(), expr.trim().to_owned()));
        }
    }
    let alerts = text.matches("- alert:").count();
    assert_eq!(found.len(), alerts, "one one-line expr per alert");
    assert!(alerts >= 10, "{alerts} alerts");
    found
}

/// Every target `expr` of the shipped dashboard, with its panel's title.
fn dashboard_expressions() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/ops/grafana/switchboard.json");
    let dashboard: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap())
            .expect("the dashboard is JSON");
    assert_eq!(dashboard["uid"], "switchboard");
    let mut found = Vec::new();
    for panel in dashboard["panels"].as_array().expect("panels") {
        let title = panel["title"].as_str().expect("a title").to_owned();
        let targets = panel["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "{title} has no query");
        for target in targets {
            found.push((title.clone(), target["expr"].as_str().unwrap().to_owned()));
        }
    }
    found
}

/// The Metrics section of docs/operations.md (to the next section of its level), as one
/// place naming series.
fn documented_series() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/operations.md");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find("\n## Metrics\n").expect("a Metrics section");
    let section = &text[start + 1..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    vec![("docs/operations.md".to_owned(), section[..end].to_owned())]
}

async fn every_series_is_described_and_there_from_the_start(app: TestApp) {
    let logs = tempfile::tempdir().unwrap();
    let (served, url) = serve_with_metrics(&app, logs.path()).await;
    let page = scrape(&url).await;

    // Every family has its help and type, and every sample a family.
    let typed: BTreeSet<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    let helped: BTreeSet<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix("# HELP "))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(typed, helped, "a # HELP line for every series:\n{page}");
    for name in sample_names(&page) {
        assert!(
            typed.contains(family(name, &typed)),
            "{name} has no # TYPE line"
        );
    }

    // The process and the build.
    let now = chrono::Utc::now().timestamp() as f64;
    let started = value(&page, "process_start_time_seconds");
    assert!(
        started <= now + 1.0 && started > now - 600.0,
        "started at {started}, now {now}"
    );
    assert!(value(&page, "process_resident_memory_bytes") > 1e6);
    assert!(value(&page, "process_cpu_seconds_total") >= 0.0);
    let fds = value(&page, "process_open_fds");
    assert!(
        fds >= 3.0 && fds <= value(&page, "process_max_fds"),
        "{fds}"
    );
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        value(
            &page,
            &format!("switchboard_build_info{{version=\"{version}\"}}")
        ),
        1.0
    );

    // Nothing happened yet: the counters alerts take rates of are there, at 0.
    for series in [
        "switchboard_login_failures_total",
        "switchboard_login_lockouts_total",
        "switchboard_rate_limit_refusals_total{limit=\"rate_limit\"}",
        "switchboard_rate_limit_fail_open_total",
        "switchboard_webhook_attempts_total{outcome=\"failed\"}",
        "switchboard_webhook_attempts_total{outcome=\"delivered\"}",
        "switchboard_storage_errors_total{kind=\"timeout\"}",
        "switchboard_storage_errors_total{kind=\"backend\"}",
        "switchboard_webhook_attempt_seconds_count",
        "switchboard_db_circuit_open",
        "switchboard_backup_last_finished_timestamp_seconds",
    ] {
        assert_eq!(value(&page, series), 0.0, "{series}");
    }
    assert!(
        value(&page, "switchboard_backup_age_seconds") > 86400.0 * 365.0 * 50.0,
        "no backup yet: the age alert fires"
    );

    // Every series the alert rules and the dashboard name is exported.
    // A histogram is named by its family or by its samples.
    let exported: BTreeSet<&str> = sample_names(&page)
        .into_iter()
        .chain(typed.iter().copied())
        .collect();
    let named: Vec<(String, String)> = rule_expressions()
        .into_iter()
        .chain(dashboard_expressions())
        .chain(documented_series())
        .collect();
    for (place, expr) in &named {
        let names = names_in(expr);
        assert!(!names.is_empty(), "{place} names no series: {expr}");
        for name in names {
            assert!(
                exported.contains(name.as_str()),
                "{place} uses {name}, which /metrics does not export"
            );
        }
    }

    // A backup is recorded where every process reads it.
    let backup = logs.path().join("backup");
    let mut command = binary::command(&app.config.data_dir, &["backup", backup.to_str().unwrap()]);
    command
        .env("SWITCHBOARD_DATABASE_URL", app.config.database_url())
        .env("SWITCHBOARD_STORAGE_URL", app.config.storage_url())
        .env("SWITCHBOARD_JWT_SECRET", crate::support::JWT_SECRET);
    let output = binary::run(command, "");
    assert!(output.status.success(), "{}", binary::stderr(&output));
    let page = scrape(&url).await;
    let finished = value(&page, "switchboard_backup_last_finished_timestamp_seconds");
    let now = chrono::Utc::now().timestamp() as f64;
    assert!(finished <= now && finished > now - 120.0, "{finished}");
    assert!(value(&page, "switchboard_backup_age_seconds") < 120.0);
    drop(served);
}

on_both_backends!(every_series_is_described_and_there_from_the_start);
