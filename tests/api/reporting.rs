//! `/admin/reporting/calls`: one call's report with its transcript legend as recorded,
//! transcripts ingested once per call and found by the lists' search, and the
//! aggregates (counts, mean and nearest-rank p90 wait and talk) cut into the tenant's
//! local days and hours, hand-computed.

use serde_json::{Value, json};

use crate::engine::{TOKEN, engine_token};
use crate::fixture::World;
use crate::support::{TestApp, fixture};

const CALLS: &str = "/v2/ingest/calls";
const TRANSCRIPTS: &str = "/v2/ingest/transcripts";

/// An ended call of `tenant` starting at `start`, answered after `wait` seconds and
/// talking `talk` seconds (`wait: None`: missed after 20 seconds).
fn call(tenant: i64, unique_id: &str, start: &str, wait: Option<i64>, talk: i64) -> Value {
    let start_at = chrono::DateTime::parse_from_rfc3339(start).unwrap();
    let iso = |t: chrono::DateTime<chrono::FixedOffset>| {
        t.to_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let mut fields = json!({
        "tenantId": tenant,
        "uniqueId": unique_id,
        "event": "ended",
        "direction": "inbound",
        "callerIdNum": format!("555{}", unique_id.len()),
        "callerIdName": "A caller",
        "dialedNum": "101",
        "dstChannel": "PJSIP/101-0000001a",
        "time": start,
    });
    match wait {
        Some(wait) => {
            let answer = start_at + chrono::Duration::seconds(wait);
            fields["answerTime"] = json!(iso(answer));
            fields["endTime"] = json!(iso(answer + chrono::Duration::seconds(talk)));
            fields["disposition"] = json!("ANSWERED");
        }
        None => {
            fields["endTime"] = json!(iso(start_at + chrono::Duration::seconds(20)));
            fields["disposition"] = json!("NO ANSWER");
        }
    }
    fields
}

fn transcript(tenant: i64, unique_id: &str, legend: Value) -> Value {
    json!({
        "tenantId": tenant,
        "uniqueId": unique_id,
        "channels": legend,
        "segments": [
            {"channel": 1, "startMs": 2500, "endMs": 4000, "text": "Of course, which prescription?",
             "confidence": 0.88, "language": "en-US"},
            {"channel": 0, "startMs": 0, "endMs": 2100, "text": "Hello, I need a refill of my inhaler.",
             "confidence": 0.93},
        ],
    })
}

async fn report_with_transcript_legend(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    app.push(
        &platform,
        CALLS,
        (
            "call",
            call(world.tenant_a, "r.1", "2026-11-02T15:00:00Z", Some(5), 120),
        ),
        Some(("recording", fixture("tone.mp3"))),
    )
    .await
    .expect(200);
    app.post(
        CALLS,
        &platform,
        call(world.tenant_b, "r.b", "2026-11-02T15:00:00Z", Some(5), 60),
    )
    .await
    .expect(200);
    // The callee speaks on channel 1, the caller on 0: the legend is what the service
    // recording it says, not a guess from the call.
    let legend = json!([
        {"channel": 1, "role": "callee", "party": "101"},
        {"channel": 0, "role": "caller", "party": "5553"},
    ]);
    let first = app
        .post(
            TRANSCRIPTS,
            &platform,
            transcript(world.tenant_a, "r.1", legend),
        )
        .await
        .expect(200);
    assert_eq!(first["recorded"], true);
    // Once per call: a second transcript (another legend) changes nothing.
    let swapped = json!([
        {"channel": 0, "role": "agent", "party": "x"},
        {"channel": 1, "role": "caller", "party": "y"},
    ]);
    let again = app
        .post(
            TRANSCRIPTS,
            &platform,
            transcript(world.tenant_a, "r.1", swapped),
        )
        .await
        .expect(200);
    assert_eq!(
        (again["recorded"].clone(), again["id"].clone()),
        (json!(false), first["id"].clone())
    );

    let admin = app.login(world.admin_a).await;
    for path in [
        "/admin/reporting/calls/r.1",
        "/v2/admin/reporting/calls/r.1",
    ] {
        let report = app.get(path, &admin).await.expect(200);
        assert_eq!(report["call"]["uniqueId"], "r.1");
        assert_eq!(
            report["transcript"]["channels"],
            json!([
                {"channel": 0, "role": "caller", "party": "5553"},
                {"channel": 1, "role": "callee", "party": "101"},
            ])
        );
        let segments = report["transcript"]["segments"].as_array().unwrap();
        assert_eq!(
            segments
                .iter()
                .map(|s| (
                    s["channel"].as_i64().unwrap(),
                    s["startMs"].as_i64().unwrap()
                ))
                .collect::<Vec<_>>(),
            [(0, 0), (1, 2500)]
        );
        assert_eq!(segments[0]["language"], Value::Null);
        assert_eq!(segments[1]["confidence"], 0.88);
        let events: Vec<&str> = report["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["event"].as_str().unwrap())
            .collect();
        assert_eq!(events, ["started", "answered", "ended"]);
        assert_eq!(report["timeline"][1]["at"], "2026-11-02T15:00:05Z");
        // The callee is the tenant's extension 101 (from the called channel); the caller
        // an outside number.
        assert_eq!(
            report["parties"],
            json!([
                {"role": "caller", "extensionId": null, "number": "5553", "name": "A caller"},
                {"role": "callee", "extensionId": world.ext_a, "number": "101", "name": report["parties"][1]["name"]},
            ])
        );
        let url = report["recording"]["mediaURL"].as_str().unwrap();
        let (status, _, _) = app.fetch(url, None).await;
        assert_eq!(status.as_u16(), 200);
    }
    // The lists' search finds what was said.
    for path in [
        "/v2/admin/calls/?query=inhaler",
        "/v2/admin/call-recordings/?query=INHALER",
    ] {
        let page = app.get(path, &admin).await.expect(200);
        assert_eq!(page["totalRecords"], 1, "{path}");
        assert_eq!(page["records"][0]["uniqueId"], "r.1");
    }
    assert_eq!(
        app.get(
            "/v2/admin/calls/?query=prescription",
            &app.login(world.admin_b).await
        )
        .await
        .expect(200)["totalRecords"],
        0
    );
    // A call without a transcript or recording answers null for both.
    let other = app
        .get("/admin/reporting/calls/r.b", &platform)
        .await
        .expect(200);
    assert_eq!(
        (other["transcript"].clone(), other["recording"].clone()),
        (Value::Null, Value::Null)
    );

    // Another tenant's admin does not see the call, nor may it push transcripts.
    let admin_b = app.login(world.admin_b).await;
    app.get("/admin/reporting/calls/r.1", &admin_b)
        .await
        .error(404, "NotFound");
    app.post(
        TRANSCRIPTS,
        &admin_b,
        transcript(
            world.tenant_b,
            "r.b",
            json!([{"channel": 0, "role": "caller"}, {"channel": 1, "role": "callee"}]),
        ),
    )
    .await
    .error(403, "Forbidden");
    // A user sees only its own calls.
    let user = app.login(world.user_a).await;
    app.get("/admin/reporting/calls/r.1", &user)
        .await
        .error(404, "NotFound");
}

async fn transcript_rules(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    app.post(
        CALLS,
        &platform,
        call(world.tenant_a, "v.1", "2026-11-02T15:00:00Z", Some(5), 60),
    )
    .await
    .expect(200);
    let two = json!([{"channel": 0, "role": "caller"}, {"channel": 1, "role": "callee"}]);
    // A segment on a channel the legend lacks.
    let mut body = transcript(
        world.tenant_a,
        "v.1",
        json!([{"channel": 0, "role": "caller"}]),
    );
    let errors = app
        .post(TRANSCRIPTS, &platform, body.clone())
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        ["'body/segments/0/channel' must be a channel of the legend"]
    );
    // A legend with a gap or a repeat, a role outside the three, a fraction above 1,
    // a segment ending before it starts, a channel given as a string.
    body["channels"] = json!([{"channel": 0, "role": "caller"}, {"channel": 2, "role": "callee"}]);
    let errors = app
        .post(TRANSCRIPTS, &platform, body.clone())
        .await
        .error(400, "ValidationError");
    assert!(
        errors.contains(
            &"'body/channels/1/channel' must number the channels 0, 1, … once each".to_owned()
        ),
        "{errors:?}"
    );
    for (change, expected) in [
        (
            json!({"channels": [{"channel": 0, "role": "caller"}, {"channel": 0, "role": "callee"}]}),
            "'body/channels/1/channel' must number the channels 0, 1, … once each",
        ),
        (
            json!({"channels": [{"channel": 0, "role": "boss"}, {"channel": 1, "role": "callee"}]}),
            "'body/channels/0/role' must be one of: caller, callee, agent",
        ),
        (
            json!({"channels": [{"channel": "0", "role": "caller"}, {"channel": 1, "role": "callee"}]}),
            "'body/channels/0/channel' must be an integer",
        ),
    ] {
        let mut bad = transcript(world.tenant_a, "v.1", two.clone());
        bad["channels"] = change["channels"].clone();
        let errors = app
            .post(TRANSCRIPTS, &platform, bad)
            .await
            .error(400, "ValidationError");
        assert!(
            errors.contains(&expected.to_owned()),
            "{expected}: {errors:?}"
        );
    }
    let mut bad = transcript(world.tenant_a, "v.1", two.clone());
    bad["segments"][0]["confidence"] = json!(1.5);
    let errors = app
        .post(TRANSCRIPTS, &platform, bad)
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        ["'body/segments/0/confidence' must be a number from 0 to 1",]
    );
    let mut bad = transcript(world.tenant_a, "v.1", two.clone());
    bad["segments"][1]["endMs"] = json!(0);
    bad["segments"][1]["startMs"] = json!(10);
    let errors = app
        .post(TRANSCRIPTS, &platform, bad)
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        ["'body/segments/1/endMs' must not be before startMs"]
    );
    // The call must have been reported, in that tenant.
    let errors = app
        .post(
            TRANSCRIPTS,
            &platform,
            transcript(world.tenant_b, "v.1", two.clone()),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(errors, ["'body/uniqueId' must name a call of the tenant"]);
    // Nothing was recorded by the refused pushes.
    assert_eq!(app.count("call_transcripts", None).await, 0);
    // Voicemail search matches a message's transcript too.
    let mut message = json!({"tenantId": world.tenant_a, "mailboxContext": "default",
        "mailboxUser": "101", "msgId": "1700000000-1", "messageNumber": 0, "dir": "INBOX",
        "callerId": "5551234", "dateUnix": 1_700_000_000, "duration": 7, "extNum": "101",
        "transcript": "Please call me back about the refill."});
    app.post("/v2/ingest/voicemail-messages", &platform, message.clone())
        .await
        .expect(200);
    message["msgId"] = json!("1700000000-2");
    message["transcript"] = json!("Wrong number, sorry.");
    app.post("/v2/ingest/voicemail-messages", &platform, message)
        .await
        .expect(200);
    let admin = app.login(world.admin_a).await;
    for query in ["refill", "Call Me Back", "me"] {
        let page = app
            .get(
                &format!(
                    "/v2/admin/voicemail-messages/?query={}",
                    query.replace(' ', "%20")
                ),
                &admin,
            )
            .await
            .expect(200);
        assert_eq!(page["totalRecords"], 1, "{query}");
        assert_eq!(
            page["records"][0]["transcript"],
            "Please call me back about the refill."
        );
    }
}

fn period(bucket: &Value) -> (&str, i64, i64, i64) {
    (
        bucket["period"].as_str().unwrap(),
        bucket["total"].as_i64().unwrap(),
        bucket["answered"].as_i64().unwrap(),
        bucket["missed"].as_i64().unwrap(),
    )
}

fn times(figures: &Value) -> Value {
    json!([
        figures["averageWaitSeconds"],
        figures["p90WaitSeconds"],
        figures["averageTalkSeconds"],
        figures["p90TalkSeconds"]
    ])
}

async fn aggregates_in_the_tenant_zone(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    app.patch(
        &format!("/v2/admin/tenants/{}", world.tenant_a),
        &platform,
        json!({"timezone": "America/New_York"}),
    )
    .await
    .expect(200);
    // New York is at UTC-5 in November: 2026-11-10T04:59:59Z is still the 9th there.
    // The 9th (local): five answered calls waiting 1, 2, 3, 4 and 100 seconds and talking
    // 10 to 50, and one missed.
    let ninth = [
        ("d9.1", "2026-11-09T05:00:00Z", Some(1), 10),
        ("d9.2", "2026-11-09T14:00:00Z", Some(2), 20),
        ("d9.3", "2026-11-10T01:00:00Z", Some(3), 30),
        ("d9.4", "2026-11-10T03:00:00Z", Some(100), 40),
        ("d9.5", "2026-11-10T04:30:00Z", Some(4), 50),
        ("d9.6", "2026-11-10T04:59:00Z", None, 0),
    ];
    // The 10th (local), though the same UTC day as most of the 9th's: waits 7 and 9,
    // talks 60 and 90.
    let tenth = [
        ("d10.1", "2026-11-10T05:00:00Z", Some(9), 90),
        ("d10.2", "2026-11-10T15:00:00Z", Some(7), 60),
    ];
    for (id, start, wait, talk) in ninth.iter().chain(tenth.iter()) {
        app.post(
            CALLS,
            &platform,
            call(world.tenant_a, id, start, *wait, *talk),
        )
        .await
        .expect(200);
    }
    // Outside the range, and another tenant's in it: neither counts.
    app.post(
        CALLS,
        &platform,
        call(world.tenant_a, "early", "2026-11-09T04:59:59Z", Some(1), 1),
    )
    .await
    .expect(200);
    app.post(
        CALLS,
        &platform,
        call(world.tenant_b, "b.1", "2026-11-10T01:00:00Z", Some(1), 1),
    )
    .await
    .expect(200);

    let admin = app.login(world.admin_a).await;
    let range = "from=2026-11-09T05:00:00Z&to=2026-11-11T05:00:00Z";
    for path in ["/admin/reporting/calls/", "/v2/admin/reporting/calls"] {
        let report = app
            .get(
                &format!("{path}?{range}&recordsPerPage=3&sortBy=time"),
                &admin,
            )
            .await
            .expect(200);
        // The page is a page; the aggregates cover every match.
        assert_eq!(report["totalRecords"], 8);
        assert_eq!(report["records"].as_array().unwrap().len(), 3);
        assert_eq!(report["records"][0]["uniqueId"], "d9.1");
        let aggregates = &report["aggregates"];
        assert_eq!(
            (
                aggregates["timeZone"].clone(),
                aggregates["groupBy"].clone()
            ),
            (json!("America/New_York"), json!("day"))
        );
        let buckets = aggregates["buckets"].as_array().unwrap();
        assert_eq!(
            buckets.iter().map(period).collect::<Vec<_>>(),
            [("2026-11-09", 6, 5, 1), ("2026-11-10", 2, 2, 0)]
        );
        // Nearest rank: p90 of five values is the fifth (an interpolating method would
        // say 61.6); of two, the second.
        assert_eq!(times(&buckets[0]), json!([22.0, 100, 30.0, 50]));
        assert_eq!(times(&buckets[1]), json!([8.0, 9, 75.0, 90]));
        let totals = &aggregates["totals"];
        assert_eq!(
            (
                totals["total"].clone(),
                totals["answered"].clone(),
                totals["missed"].clone()
            ),
            (json!(8), json!(7), json!(1))
        );
        assert_eq!(times(totals), json!([18.0, 100, 42.86, 90]));
    }
    // By the hour: local hours, labelled in the tenant's zone.
    let hourly = app
        .get(
            &format!("/admin/reporting/calls/?{range}&groupBy=hour"),
            &admin,
        )
        .await
        .expect(200);
    let buckets = hourly["aggregates"]["buckets"].as_array().unwrap();
    let labels: Vec<&str> = buckets
        .iter()
        .map(|b| b["period"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "2026-11-09T00:00",
            "2026-11-09T09:00",
            "2026-11-09T20:00",
            "2026-11-09T22:00",
            "2026-11-09T23:00",
            "2026-11-10T00:00",
            "2026-11-10T10:00",
        ]
    );
    assert_eq!(period(&buckets[4]), ("2026-11-09T23:00", 2, 1, 1));
    // Filters narrow the list and the aggregates alike.
    let missed = app
        .get(
            &format!("/admin/reporting/calls/?{range}&disposition=NO%20ANSWER"),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(missed["totalRecords"], 1);
    assert_eq!(
        times(&missed["aggregates"]["totals"]),
        json!([null, null, null, null])
    );
    let outbound = app
        .get(
            &format!("/admin/reporting/calls/?{range}&direction=outbound"),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(outbound["aggregates"]["totals"]["total"], 0);
    assert_eq!(outbound["aggregates"]["buckets"], json!([]));
    let by_extension = app
        .get(
            &format!(
                "/admin/reporting/calls/?{range}&extensionId={}",
                world.ext_a
            ),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(by_extension["totalRecords"], 8);
    let by_other = app
        .get(
            &format!(
                "/admin/reporting/calls/?{range}&extensionId={}",
                world.ext_a2
            ),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(by_other["totalRecords"], 0);
    let by_number = app
        .get(
            &format!("/admin/reporting/calls/?{range}&number=5554"),
            &admin,
        )
        .await
        .expect(200);
    // callerIdNum is 555 followed by the id's length: d9.1 … d9.6 are 4 long.
    assert_eq!(by_number["totalRecords"], 6);

    // Wrong ranges and groupings are refused.
    for (query, expected) in [
        (
            "from=2026-11-10T00:00:00Z&to=2026-11-09T00:00:00Z",
            "'query/from' must be before to",
        ),
        (
            "from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&groupBy=hour",
            "'query/to' must be at most 31 days after from with groupBy=hour",
        ),
        (
            "from=2024-01-01T00:00:00Z&to=2026-03-01T00:00:00Z",
            "'query/to' must be at most 366 days after from",
        ),
        ("groupBy=week", "'query/groupBy' must be one of: day, hour"),
    ] {
        let errors = app
            .get(&format!("/admin/reporting/calls/?{query}"), &admin)
            .await
            .error(400, "ValidationError");
        assert_eq!(errors, [expected], "{query}");
    }
    // Another tenant: 403 when named, nothing of tenant A otherwise.
    let admin_b = app.login(world.admin_b).await;
    app.get(
        &format!(
            "/admin/reporting/calls/?{range}&tenantId={}",
            world.tenant_a
        ),
        &admin_b,
    )
    .await
    .error(403, "Forbidden");
    let own_b = app
        .get(&format!("/admin/reporting/calls/?{range}"), &admin_b)
        .await
        .expect(200);
    assert_eq!(own_b["totalRecords"], 1);
    assert_eq!(own_b["aggregates"]["timeZone"], "UTC");
    // A user without an extension has no calls to report on.
    let user = app.login(world.user_a).await;
    let own = app
        .get(&format!("/admin/reporting/calls/?{range}"), &user)
        .await
        .expect(200);
    assert_eq!(
        (
            own["totalRecords"].clone(),
            own["aggregates"]["totals"]["total"].clone()
        ),
        (json!(0), json!(0))
    );
}

/// Transcripts arrive from the engine (or the transcription service) with the ingest
/// token (`ingest:write`), not only from a platform admin: it records one, once.
async fn the_engine_token_records_transcripts(app: TestApp) {
    let world = World::seed(&app).await;
    app.post(
        CALLS,
        TOKEN,
        call(world.tenant_a, "e.1", "2026-11-02T15:00:00Z", Some(5), 60),
    )
    .await
    .expect(200);
    let legend = json!([
        {"channel": 0, "role": "caller", "party": "5553"},
        {"channel": 1, "role": "agent", "party": "101"},
    ]);
    let body = transcript(world.tenant_a, "e.1", legend);
    app.post(TRANSCRIPTS, "not-the-engine-token-0123456789", body.clone())
        .await
        .error(401, "Unauthorized");
    assert_eq!(app.count("call_transcripts", None).await, 0);
    let first = app.post(TRANSCRIPTS, TOKEN, body.clone()).await.expect(200);
    assert_eq!(first["recorded"], true);
    let again = app.post(TRANSCRIPTS, TOKEN, body).await.expect(200);
    assert_eq!(
        (again["recorded"].clone(), again["id"].clone()),
        (json!(false), first["id"].clone())
    );
    assert_eq!(app.count("call_transcripts", None).await, 1);
    let admin = app.login(world.admin_a).await;
    let report = app
        .get("/v2/admin/reporting/calls/e.1", &admin)
        .await
        .expect(200);
    assert_eq!(report["transcript"]["channels"][1]["role"], "agent");
    let said: Vec<&str> = report["transcript"]["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        said,
        [
            "Hello, I need a refill of my inhaler.",
            "Of course, which prescription?"
        ]
    );
}

crate::on_both_backends!(with engine_token;
    the_engine_token_records_transcripts,
);

crate::on_both_backends!(
    report_with_transcript_legend,
    transcript_rules,
    aggregates_in_the_tenant_zone
);
