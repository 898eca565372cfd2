//! Every setting is checked at start: the binary refuses a wrong one before it opens or
//! creates anything, saying which variable and why (issue 30).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What `switchboard serve` wrote to stderr when refusing to start with `settings`
/// (beside a private data folder), after checking that it exited at once, unsuccessfully,
/// having created nothing.
fn refusal(settings: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let stderr = dir.path().join("stderr.log");
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command
        .arg("serve")
        .current_dir(dir.path())
        .env("SWITCHBOARD_LISTEN", "127.0.0.1:0")
        .env("SWITCHBOARD_DATA_DIR", &data)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap());
    for (name, value) in settings {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("the binary starts");
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "started with {settings:?}:\n{}",
                std::fs::read_to_string(&stderr).unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let said = std::fs::read_to_string(&stderr).unwrap();
    assert!(!status.success(), "{settings:?}: {said}");
    assert!(
        !data.exists(),
        "{settings:?}: nothing is created before the check"
    );
    said
}

/// Asserts that `said` holds every one of `parts`.
#[track_caller]
fn says(said: &str, parts: &[&str]) {
    for part in parts {
        assert!(said.contains(part), "{part:?} missing from:\n{said}");
    }
}

async fn a_wrong_setting_is_refused_at_start_naming_it_and_why() {
    // The case: a trailing comment, as a systemd EnvironmentFile keeps it.
    says(
        &refusal(&[(
            "SWITCHBOARD_PUBLIC_URL",
            "https://pbx-admin.example.com   # links in answers",
        )]),
        &["SWITCHBOARD_PUBLIC_URL", "comment"],
    );
    says(
        &refusal(&[("SWITCHBOARD_LISTEN", "127.0.0.1:8080   # loopback only")]),
        &["SWITCHBOARD_LISTEN", "an address and a port"],
    );
    says(
        &refusal(&[("SWITCHBOARD_DB_MAX_CONNECTIONS", "10x")]),
        &["SWITCHBOARD_DB_MAX_CONNECTIONS", "\"10x\"", "whole number"],
    );
    says(
        &refusal(&[("SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE", "yes")]),
        &["SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE", "true or false"],
    );
    says(
        &refusal(&[("SWITCHBOARD_LOG_FORMAT", "jsn")]),
        &["SWITCHBOARD_LOG_FORMAT", "text, json"],
    );
    says(
        &refusal(&[("SWITCHBOARD_REDIS_URL", "localhost:6379")]),
        &["SWITCHBOARD_REDIS_URL", "redis://"],
    );
    // A URL is shown without its password, a secret not at all.
    let said = refusal(&[(
        "SWITCHBOARD_DATABASE_URL",
        "mysql://app:s3cret@db/switchboard",
    )]);
    says(
        &said,
        &["SWITCHBOARD_DATABASE_URL", "sqlite:// or postgres://"],
    );
    assert!(!said.contains("s3cret"), "{said}");
    let said = refusal(&[(
        "SWITCHBOARD_JWT_SECRET",
        "0123456789abcdef0123456789abcdef   # from the vault",
    )]);
    says(&said, &["SWITCHBOARD_JWT_SECRET", "comment"]);
    assert!(!said.contains("0123456789abcdef"), "{said}");
    // A cost a login burst could not afford.
    says(
        &refusal(&[
            ("SWITCHBOARD_PASSWORD_HASH_MEMORY_KIB", "1048577"),
            ("SWITCHBOARD_PASSWORD_HASH_PASSES", "17"),
        ]),
        &[
            "SWITCHBOARD_PASSWORD_HASH_MEMORY_KIB: must be at most 1048576",
            "SWITCHBOARD_PASSWORD_HASH_PASSES: must be at most 16",
        ],
    );
    // Every wrong setting at once, one line each.
    says(
        &refusal(&[
            ("SWITCHBOARD_TOKEN_TTL_SECONDS", "0"),
            ("SWITCHBOARD_PUBLIC_URL", "ftp://pbx-admin.example.com"),
            ("SWITCHBOARD_PASSWORD_HASH_MEMORY_KIB", "7"),
            ("SWITCHBOARD_PASSWORD_HASH_PASSES", "0"),
        ]),
        &[
            "SWITCHBOARD_TOKEN_TTL_SECONDS: must be at least 1",
            "SWITCHBOARD_PASSWORD_HASH_MEMORY_KIB: must be at least 8",
            "SWITCHBOARD_PASSWORD_HASH_PASSES: must be at least 1",
            "SWITCHBOARD_PUBLIC_URL: \"ftp://pbx-admin.example.com\" must start with http:// or https://",
        ],
    );
}

/// A password-hashing cost below OWASP's table is served — the test suite's own choice —
/// with a warning at start naming the settings; OWASP's default draws none.
async fn a_password_hash_cost_below_owasps_is_warned_of_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let mut cheap = crate::binary::command(&dir.path().join("cheap"), &["serve"]);
    cheap
        .env("SWITCHBOARD_PASSWORD_HASH_MEMORY_KIB", "8")
        .env("SWITCHBOARD_PASSWORD_HASH_PASSES", "1");
    let mut cheap = crate::binary::Served::start(cheap, dir.path());
    cheap.ready().await;
    says(
        &cheap.log_text(),
        &["below OWASP", "SWITCHBOARD_PASSWORD_HASH_MEMORY_KIB"],
    );
    let owasp = crate::binary::command(&dir.path().join("owasp"), &["serve"]);
    let mut owasp = crate::binary::Served::start(owasp, dir.path());
    owasp.ready().await;
    let said = owasp.log_text();
    assert!(!said.contains("OWASP"), "{said}");
}

switchboard_testing::tests!(
    a_wrong_setting_is_refused_at_start_naming_it_and_why,
    a_password_hash_cost_below_owasps_is_warned_of_at_start,
);
