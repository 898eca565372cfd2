//! `serve --demo`: the seeded pharmacy answers the README's walk-through and the tour —
//! voicemail in two mailboxes with audio, a week of calls with recordings and
//! transcripts — every list of the OpenAPI document answers its administrator at least
//! one record, and seeding again (or over a database in use) changes nothing.

use serde_json::Value;
use switchboard::demo;

use crate::support::TestApp;

/// Every table the demo writes to, with the audit trail and the outboxes: what a second
/// seeding must leave as it found it.
const TABLES: &[&str] = &[
    "partners",
    "tenants",
    "branches",
    "users",
    "extensions",
    "ivrs",
    "queues",
    "queue_members",
    "paging_groups",
    "business_hours",
    "holidays",
    "announcements",
    "media_files",
    "music_on_hold",
    "custom_voices",
    "phone_numbers",
    "conduits",
    "devices",
    "button_layouts",
    "pharmacy_agents",
    "refill_requests",
    "call_campaigns",
    "campaign_records",
    "call_outcomes",
    "opt_outs",
    "calls",
    "call_transcripts",
    "voicemail_messages",
    "sms_messages",
    "mms_media",
    "faxes",
    "webhooks",
    "webhook_events",
    "webhook_deliveries",
    "engine_jobs",
    "audit_log",
    "sessions",
];

async fn counts(app: &TestApp) -> Vec<(&'static str, i64)> {
    let mut counts = Vec::new();
    for table in TABLES {
        counts.push((*table, app.count(table, None).await));
    }
    counts
}

async fn the_demo_tenant(app: TestApp) {
    assert!(demo::is_empty(&app.state).await.unwrap());
    let demo::Outcome::Seeded(seeded) = demo::prepare(&app.state).await.unwrap() else {
        panic!("an empty database is seeded");
    };
    assert!(!demo::is_empty(&app.state).await.unwrap());
    let admin = app
        .login_answer(demo::ADMIN_EMAIL, demo::PASSWORD)
        .await
        .expect(200);
    let token = admin["accessToken"].as_str().unwrap();
    let extensions = app.get("/v2/admin/extensions/", token).await.expect(200);
    assert!(
        extensions["totalRecords"].as_i64().unwrap() >= 5,
        "{extensions}"
    );
    let voicemail = app
        .get("/v2/admin/voicemail-messages/?stats=1", token)
        .await
        .expect(200);
    assert_eq!(
        voicemail["stats"],
        serde_json::json!({"total": 5, "unread": 3, "read": 2})
    );
    // Two mailboxes, each message its extension's.
    let mut mailboxes: Vec<&str> = voicemail["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["mailboxUser"].as_str().unwrap())
        .collect();
    mailboxes.sort_unstable();
    mailboxes.dedup();
    assert_eq!(mailboxes, ["101", "102"], "{voicemail}");
    // Durations are the audio's own length, measured, not made up.
    let greeting = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/demo-greeting.wav"
    ))
    .unwrap();
    let format = switchboard_storage::audio::sniff(&greeting).unwrap();
    let seconds = switchboard_storage::audio::duration_seconds(format, &greeting).unwrap();
    let whole_seconds = seconds.round().max(1.0) as i64;
    assert!(
        voicemail["records"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["duration"] == whole_seconds),
        "{voicemail}"
    );
    let url = voicemail["records"][0]["mediaURL"].as_str().unwrap();
    assert_eq!(app.fetch(url, None).await.0, 200);
    // A week of calls: three a day in, one out, and today's three; the pharmacist's
    // answered calls recorded, each recording as long as the talk and served as MP3.
    let calls = app
        .get("/v2/admin/calls/?recordsPerPage=100", token)
        .await
        .expect(200);
    assert_eq!(calls["totalRecords"], 7 * 4 + 3, "{calls}");
    let recordings = app
        .get("/v2/admin/call-recordings/?recordsPerPage=100", token)
        .await
        .expect(200);
    assert_eq!(recordings["totalRecords"], 7 + 1, "{recordings}");
    for call in calls["records"].as_array().unwrap() {
        if call["hasRecording"] == true {
            assert_eq!(call["billsec"], call["recordingDuration"], "{call}");
        }
    }
    let (status, headers, _) = app
        .fetch(recordings["records"][0]["mediaURL"].as_str().unwrap(), None)
        .await;
    assert_eq!(
        (status.as_u16(), headers["content-type"].to_str().unwrap()),
        (200, "audio/mpeg")
    );
    // The platform admin's password is the random one seeding made, not the tenant's.
    assert_eq!(seeded.platform_password.len(), 24);
    app.login_answer(demo::PLATFORM_EMAIL, demo::PASSWORD)
        .await
        .error(401, "Unauthorized");
    app.login_answer(demo::PLATFORM_EMAIL, &seeded.platform_password)
        .await
        .expect(200);
    // The office manager's own changes are in the audit trail with before and after.
    let trail = app
        .get(
            "/v2/admin/audit-log/?action=update&entities=extension",
            token,
        )
        .await
        .expect(200);
    assert!(
        trail["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["userEmail"] == demo::ADMIN_EMAIL),
        "{trail}"
    );
}

/// The paths of the OpenAPI document's list operations: a GET answering a page
/// (`Page_…`, `…Page`) or an array of records.
fn list_paths() -> Vec<String> {
    let document: Value = serde_json::from_str(
        &switchboard_api::openapi()
            .to_json()
            .expect("the document serializes"),
    )
    .unwrap();
    let mut paths = Vec::new();
    for (path, operations) in document["paths"].as_object().unwrap() {
        let Some(get) = operations.get("get") else {
            continue;
        };
        let schema = get["responses"]["200"]["content"]["application/json"]["schema"].clone();
        let reference = schema["$ref"].as_str().unwrap_or_default();
        let page = reference.contains("/Page_") || reference.ends_with("Page");
        let array = schema["type"] == "array" && schema["items"]["$ref"].is_string();
        if page || array {
            paths.push(path.clone());
        }
    }
    paths
}

/// The list of a path with `{…}` parameters, each the id of the first record of the
/// list it is under (`/v2/webhooks/{id}/deliveries`: the first webhook's).
async fn concrete(app: &TestApp, token: &str, path: &str) -> String {
    let mut done = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').unwrap() + open;
        let parent = format!("{done}{}", &rest[..open]);
        let listed = app.get(&parent, token).await.expect(200);
        let first = listed["records"]
            .get(0)
            .or_else(|| listed.get(0))
            .unwrap_or_else(|| panic!("{parent} lists nothing to open {path} with: {listed}"));
        done = format!("{parent}{}", first["id"]);
        rest = &rest[close + 1..];
    }
    format!("{done}{rest}")
}

/// The lists only a platform admin reads (above any one tenant): answered by the
/// platform admin instead of the tenant's.
const PLATFORM_LISTS: &[&str] = &["/v2/admin/partners/"];

async fn every_list_answers_a_record(app: TestApp) {
    let demo::Outcome::Seeded(seeded) = demo::prepare(&app.state).await.unwrap() else {
        panic!("an empty database is seeded");
    };
    let token = |answer: crate::support::Answer| {
        answer.expect(200)["accessToken"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let admin = token(app.login_answer(demo::ADMIN_EMAIL, demo::PASSWORD).await);
    let platform = token(
        app.login_answer(demo::PLATFORM_EMAIL, &seeded.platform_password)
            .await,
    );
    let paths = list_paths();
    assert!(paths.len() > 40, "{paths:?}");
    let mut empty = Vec::new();
    for path in &paths {
        let token = if PLATFORM_LISTS.contains(&path.as_str()) {
            &platform
        } else {
            &admin
        };
        let url = concrete(&app, token, path).await;
        let answer = app.get(&url, token).await.expect(200);
        let records = answer
            .get("records")
            .or(Some(&answer))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if records == 0 {
            empty.push(format!("{url}: {answer}"));
        }
    }
    assert!(
        empty.is_empty(),
        "lists answering nothing:\n{}",
        empty.join("\n")
    );
}

async fn a_second_seeding_changes_nothing(app: TestApp) {
    assert!(matches!(
        demo::prepare(&app.state).await.unwrap(),
        demo::Outcome::Seeded(_)
    ));
    let before = counts(&app).await;
    let again = demo::prepare(&app.state).await.unwrap();
    assert!(matches!(again, demo::Outcome::AlreadySeeded));
    assert!(again.describe().unwrap().contains("holds the demo already"));
    assert_eq!(counts(&app).await, before);
}

/// A database holding accounts of its own is served as it is: no demo tenant, no demo
/// logins, said plainly.
async fn a_database_in_use_gets_no_demo(app: TestApp) {
    switchboard::cli::create_user(
        &app.state,
        switchboard::cli::NewUser {
            email: "owner@pharmacy.example".into(),
            password: "a-long-owner-password-2026".into(),
            role: "platform-admin".into(),
            tenant: None,
            partner: None,
            branch: None,
        },
    )
    .await
    .unwrap();
    let before = counts(&app).await;
    let outcome = demo::prepare(&app.state).await.unwrap();
    assert!(matches!(outcome, demo::Outcome::NotDemo { accounts: 1 }));
    let said = outcome.describe().unwrap();
    assert!(
        said.contains("1 account(s) and no demo tenant") && said.contains("nothing was seeded"),
        "{said}"
    );
    assert_eq!(counts(&app).await, before);
    app.login_answer(demo::ADMIN_EMAIL, demo::PASSWORD)
        .await
        .error(401, "Unauthorized");
}

/// The records that carry destination lists, by collection path: what `demo --scale 0
/// --routing N` copies (the routing suite of `bench/list_latency.py`, issue 32).
const ROUTING: &[&str] = &[
    "/v2/admin/paging-groups/",
    "/v2/admin/business-hours/",
    "/v2/admin/ivrs/",
    "/v2/admin/queues/",
    "/v2/admin/phone-numbers/",
    "/v2/admin/music-on-hold/",
    "/v2/admin/call-campaigns/",
    "/v2/admin/pharmacy/agents/",
];

/// A record as the API answers it without what tells a copy from its original (its
/// holidays' ids included: they are rows of their own).
fn without_identity(record: &Value) -> Value {
    let mut record = record.clone();
    if let Some(fields) = record.as_object_mut() {
        for field in ["id", "name", "number", "isDefault", "status", "createdAt"] {
            fields.remove(field);
        }
        for holiday in fields
            .get_mut("holidays")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(holiday) = holiday.as_object_mut() {
                holiday.remove("id");
            }
        }
    }
    record
}

/// `demo --scale 0 --routing 3` seeds the demo into the empty database, then copies
/// three times each of its records that carry destination lists (and once more, five
/// times, two copies a statement): each copy answers the lists (and a queue's members,
/// business hours' holidays) of one of the demo's records (the same targets, resolved to
/// the same names and numbers), under a name and number of its own, and the dial plan
/// takes every copy's number, the second run's too.
async fn routing_copies_answer_their_originals_lists(app: TestApp) {
    let answered = demo::scale(
        &app.state,
        demo::Scale {
            messages: 0,
            devices: 0,
            calls: 0,
            routing: 3,
        },
    )
    .await
    .unwrap();
    let answered: Value = serde_json::from_str(&answered).unwrap();
    let copies = answered["copies"].as_object().unwrap();
    assert_eq!(copies.len(), ROUTING.len(), "{answered}");
    assert!(copies.values().all(|count| count == 3), "{answered}");
    assert!(
        answered["platformPassword"].is_string(),
        "the run that seeded the demo says its platform admin's password: {answered}"
    );
    let tenant = answered["tenantId"].as_i64().unwrap();
    let again = switchboard_db::synthetic::routing_copies(
        &app.state.db,
        switchboard_domain::ids::TenantId(tenant),
        5,
        2,
    )
    .await
    .unwrap();
    assert_eq!(again.len(), ROUTING.len(), "{again:?}");
    assert!(again.iter().all(|(_, count)| *count == 5), "{again:?}");
    let token = app
        .login_answer(
            answered["email"].as_str().unwrap(),
            answered["password"].as_str().unwrap(),
        )
        .await
        .expect(200)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    for path in ROUTING {
        let answer = app
            .get(&format!("{path}?paginated=0"), &token)
            .await
            .expect(200);
        let mut records = answer["records"].as_array().unwrap().clone();
        records.sort_by_key(|record| record["id"].as_i64());
        assert!(records.len() > 8, "{path}: {answer}");
        let (originals, copied) = records.split_at(records.len() - 8);
        for copy in copied {
            let shape = without_identity(copy);
            assert!(
                originals
                    .iter()
                    .any(|original| without_identity(original) == shape),
                "{path}: the copy {copy} answers the lists of no original:\n{originals:?}"
            );
            assert_eq!(
                app.get(&format!("{path}{}", copy["id"]), &token)
                    .await
                    .expect(200),
                *copy,
                "{path}: the copy read alone"
            );
        }
        let numbers: std::collections::BTreeSet<_> = records
            .iter()
            .filter_map(|r| r["number"].as_str())
            .collect();
        let dialled = records.iter().filter(|r| r["number"].is_string()).count();
        assert_eq!(numbers.len(), dialled, "{path}: a number taken twice");
    }
}

crate::on_both_backends!(
    the_demo_tenant,
    a_second_seeding_changes_nothing,
    a_database_in_use_gets_no_demo,
    routing_copies_answer_their_originals_lists
);
crate::on_both_backends!(needs switchboard_testing::ESPEAK_NG; every_list_answers_a_record);

/// The binary says it on start: `serve --demo` over a database holding an account of its
/// own serves it without the demo, on standard error in plain words, and prints no demo
/// login.
async fn serve_demo_on_a_database_in_use_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let created = crate::binary::run(
        crate::binary::command(
            &data,
            &[
                "user",
                "create",
                "--email",
                "owner@pharmacy.example",
                "--password-stdin",
                "--role",
                "platform-admin",
            ],
        ),
        "a-long-owner-password-2026\n",
    );
    assert!(
        created.status.success(),
        "{}",
        crate::binary::stderr(&created)
    );
    let mut served = crate::binary::Served::start(
        crate::binary::command(&data, &["serve", "--demo"]),
        dir.path(),
    );
    served.ready().await;
    let log = served.log_text();
    assert!(
        log.contains("this database holds 1 account(s) and no demo tenant")
            && log.contains("nothing was seeded"),
        "{log}"
    );
    let printed = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".out"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect::<String>();
    assert!(printed.contains("(no demo seeded)"), "{printed}");
    assert!(!printed.contains(demo::PASSWORD), "{printed}");
    served.kill();
}

switchboard_testing::tests!(serve_demo_on_a_database_in_use_says_so);
