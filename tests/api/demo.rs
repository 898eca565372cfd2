//! `serve --demo`: the seeded tenant answers the README's walk-through — extensions,
//! voicemail with audio, a recorded call — for the demo logins.

use switchboard::demo;

use crate::support::TestApp;

async fn the_demo_tenant(app: TestApp) {
    assert!(demo::is_empty(&app.state).await.unwrap());
    let seeded = demo::seed(&app.state).await.unwrap();
    assert!(!demo::is_empty(&app.state).await.unwrap());
    let admin = app
        .login_answer(demo::ADMIN_EMAIL, demo::PASSWORD)
        .await
        .expect(200);
    let token = admin["accessToken"].as_str().unwrap();
    let extensions = app.get("/v2/admin/extensions/", token).await.expect(200);
    assert!(
        extensions["totalRecords"].as_i64().unwrap() >= 4,
        "{extensions}"
    );
    let voicemail = app
        .get("/v2/admin/voicemail-messages/?stats=1", token)
        .await
        .expect(200);
    assert_eq!(
        voicemail["stats"],
        serde_json::json!({"total": 3, "unread": 2, "read": 1})
    );
    // Durations are the audio's own length, measured, not made up.
    let greeting = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/demo-greeting.wav"
    ))
    .unwrap();
    let format = switchboard_storage::audio::sniff(&greeting).unwrap();
    let seconds = switchboard_storage::audio::duration_seconds(format, &greeting).unwrap();
    let whole_seconds = seconds.round().max(1.0) as i64;
    let durations: Vec<i64> = voicemail["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["duration"].as_i64().unwrap())
        .collect();
    assert_eq!(durations, [whole_seconds; 3], "{voicemail}");
    let url = voicemail["records"][0]["mediaURL"].as_str().unwrap();
    assert_eq!(app.fetch(url, None).await.0, 200);
    let recordings = app
        .get("/v2/admin/call-recordings/", token)
        .await
        .expect(200);
    assert_eq!(recordings["totalRecords"], 1);
    let (status, headers, _) = app
        .fetch(recordings["records"][0]["mediaURL"].as_str().unwrap(), None)
        .await;
    assert_eq!(
        (status.as_u16(), headers["content-type"].to_str().unwrap()),
        (200, "audio/mpeg")
    );
    // The three calls, recorded or not, each the front desk's (101) by its channel.
    let calls = app
        .get("/v2/admin/calls/?sortBy=time", token)
        .await
        .expect(200);
    assert_eq!(calls["totalRecords"], 3, "{calls}");
    let records = calls["records"].as_array().unwrap();
    let recorded: Vec<bool> = records
        .iter()
        .map(|c| c["hasRecording"].as_bool().unwrap())
        .collect();
    assert_eq!(recorded, [true, false, false]);
    // The recorded call talked exactly as long as its recording plays.
    assert_eq!(records[0]["billsec"], whole_seconds, "{calls}");
    assert!(
        records[0]["mediaURL"]
            .as_str()
            .unwrap()
            .contains("signature=")
    );
    assert_eq!(records[1]["mediaURL"], "");
    let statuses: Vec<&str> = records
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["ended", "ended", "missed"]);
    let front_desk = app
        .get("/v2/admin/extensions/?sortBy=number", token)
        .await
        .expect(200)["records"][0]["id"]
        .as_i64()
        .unwrap();
    // One party each: the front desk; the trunk's endpoint is no extension.
    assert_eq!(app.count("call_parties", None).await, 3);
    assert!(
        voicemail["records"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["extensionId"] == front_desk),
        "{voicemail}"
    );
    // The platform admin's password is the random one seeding made, not the tenant's.
    assert_eq!(seeded.platform_password.len(), 24);
    app.login_answer(demo::PLATFORM_EMAIL, demo::PASSWORD)
        .await
        .error(401, "Unauthorized");
    app.login_answer(demo::PLATFORM_EMAIL, &seeded.platform_password)
        .await
        .expect(200);
}

crate::on_both_backends!(the_demo_tenant);
