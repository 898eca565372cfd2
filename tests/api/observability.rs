//! Operations: `/metrics` on its own listener only, with figures that move; `/readyz`
//! following the pool and the object store; the client address taken from a trusted
//! proxy's header and from nobody else's.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{PASSWORD, TestApp};

/// A port free now (the metrics listener binds it when the app starts).
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Held across each scrape. The metrics recorder is the process's, shared by every test's
/// app: a scrape sets the gauges it reads from its own database (queue depths, the
/// circuit) and then renders them, and another app's scrape in between would set them to
/// its own figures (a real process serves one app, and its scrapes set the same figures).
static ONE_SCRAPE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The metrics page, retried while the listener comes up.
pub(crate) async fn scrape(app: &TestApp) -> String {
    let address = app.config.metrics_listen.expect("metrics are on");
    let _turn = ONE_SCRAPE_AT_A_TIME.lock().await;
    for _ in 0..50 {
        if let Ok(response) = app
            .client
            .get(format!("http://{address}/metrics"))
            .timeout(Duration::from_secs(10))
            .send()
            .await
        {
            assert_eq!(response.status(), 200);
            let content_type = response.headers()["content-type"]
                .to_str()
                .unwrap()
                .to_owned();
            assert!(
                content_type.starts_with("text/plain; version=0.0.4"),
                "{content_type}"
            );
            return response.text().await.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the metrics listener never answered");
}

/// The value of the series `name{labels…}` whose labels include every one of `labels`
/// (summed over the others), 0 when absent.
pub(crate) fn figure(page: &str, name: &str, labels: &[&str]) -> f64 {
    page.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, ""));
            (metric == name && labels.iter().all(|l| rest.contains(l)))
                .then(|| value.parse::<f64>().ok())
                .flatten()
        })
        .sum()
}

/// Metrics on a listener of their own (no other setting changed).
pub(crate) fn metrics_on(config: &mut switchboard::Config) {
    config.metrics_listen = Some(([127, 0, 0, 1], free_port()).into());
}

fn with_metrics(config: &mut switchboard::Config) {
    config.metrics_listen = Some(([127, 0, 0, 1], free_port()).into());
    config.rate_limit_per_minute = 5;
    config.webhook_allow_private = true;
}

async fn metrics_move_and_stay_off_the_public_port(app: TestApp) {
    let w = World::seed(&app).await;
    // The public port does not serve them, with or without a token.
    let token = app.login(w.admin_a).await;
    app.get("/metrics", &token).await.error(404, "NotFound");
    let before = scrape(&app).await;
    let route = "route=\"/v2/admin/extensions/\"";
    let ok = "status=\"200\"";
    let requests = "switchboard_http_requests_total";
    let latency = "switchboard_http_request_duration_seconds_count";
    for _ in 0..3 {
        app.get("/v2/admin/extensions/", &token).await.expect(200);
    }
    // A raw path with an id counts under its template.
    app.get(&format!("/v2/admin/extensions/{}", w.ext_a), &token)
        .await
        .expect(200);
    // Six wrong passwords: five failures, then the account is locked.
    for _ in 0..6 {
        app.login_answer(w.user_a, "not the password at all").await;
    }
    // The per-token limit is 5 a minute here: the token's later requests are refused.
    let mut refused = 0;
    for _ in 0..4 {
        if app.get("/v2/admin/branches/", &token).await.status == 429 {
            refused += 1;
        }
    }
    assert!(refused > 0, "the token's limit was reached");
    let after = scrape(&app).await;
    let moved =
        |name: &str, labels: &[&str]| figure(&after, name, labels) - figure(&before, name, labels);
    assert!(moved(requests, &[route, ok]) >= 3.0, "{after}");
    assert!(moved(latency, &[route, ok]) >= 3.0, "{after}");
    assert!(
        moved(requests, &["route=\"/v2/admin/extensions/{id}\"", ok]) >= 1.0,
        "by template: {after}"
    );
    assert!(
        !after.contains(&format!("/v2/admin/extensions/{}\"", w.ext_a)),
        "no series per id"
    );
    assert!(moved("switchboard_login_failures_total", &[]) >= 5.0);
    assert!(moved("switchboard_login_lockouts_total", &[]) >= 1.0);
    assert!(moved("switchboard_rate_limit_refusals_total", &[]) >= f64::from(refused));
    assert!(moved(requests, &["status=\"429\""]) >= f64::from(refused));
    for gauge in [
        "switchboard_db_pool_connections",
        "switchboard_db_pool_idle",
        "switchboard_db_pool_waiting",
        "switchboard_webhook_outbox_pending",
        "switchboard_jobs_pending",
    ] {
        assert!(after.contains(&format!("{gauge} ")), "{gauge} in {after}");
    }
    assert!(figure(&after, "switchboard_db_pool_connections", &[]) >= 1.0);
    assert!(after.contains("switchboard_db_acquire_seconds_bucket"));
}

/// A webhook test sent to a receiver that answers 200: the attempts by outcome move, and
/// the outbox depth is reported.
async fn webhook_outcomes_are_counted(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let before = scrape(&app).await;
    let receiver = crate::receiver::Receiver::start().await;
    let hook = app
        .create(
            "/v2/webhooks/",
            &token,
            json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": receiver.url("/hook")}),
        )
        .await;
    app.post(
        &format!("/v2/webhooks/{}/test", hook["id"]),
        &token,
        json!({}),
    )
    .await
    .expect(200);
    let after = scrape(&app).await;
    let delivered = "outcome=\"delivered\"";
    assert!(
        figure(&after, "switchboard_webhook_attempts_total", &[delivered])
            > figure(&before, "switchboard_webhook_attempts_total", &[delivered]),
        "{after}"
    );
    assert!(after.contains("switchboard_webhook_outbox_pending "));
}

on_both_backends!(with with_metrics; metrics_move_and_stay_off_the_public_port, webhook_outcomes_are_counted);

fn with_metrics_and_engine(config: &mut switchboard::Config) {
    with_metrics(config);
    crate::engine::engine_token(config);
}

/// The engine job queue's depth by kind and state follows the queue: texts queued are
/// due, claimed ones leased, one put off scheduled; a kind with none shows 0.
async fn engine_job_queue_depth_is_scraped(app: TestApp) {
    let w = World::seed(&app).await;
    let depth = |page: &str, kind: &str, state: &str| {
        figure(
            page,
            "switchboard_engine_jobs_pending",
            &[&format!("kind=\"{kind}\""), &format!("state=\"{state}\"")],
        )
    };
    let empty = scrape(&app).await;
    assert_eq!(depth(&empty, "sms", "due"), 0.0, "{empty}");
    assert!(
        empty.contains("switchboard_engine_jobs_pending{kind=\"fax\",state=\"due\"} 0"),
        "every kind is shown: {empty}"
    );
    crate::engine_jobs::queue_texts(&app, w.tenant_a, 5).await;
    let queued = scrape(&app).await;
    assert_eq!(depth(&queued, "sms", "due"), 5.0, "{queued}");
    assert_eq!(depth(&queued, "sms", "leased"), 0.0);
    let claimed = crate::engine::claim_from(&app, &app.base, &["sms"], 2, None).await;
    assert_eq!(claimed.len(), 2);
    let put_off = "UPDATE engine_jobs SET due_at = due_at + 3600 WHERE id = \
        (SELECT MIN(id) FROM engine_jobs WHERE state = 'pending' AND lease_until IS NULL)";
    app.raw_sql(put_off, put_off).await;
    let after = scrape(&app).await;
    assert_eq!(
        (
            depth(&after, "sms", "due"),
            depth(&after, "sms", "leased"),
            depth(&after, "sms", "scheduled"),
            depth(&after, "fax", "due"),
        ),
        (2.0, 2.0, 1.0, 0.0),
        "{after}"
    );
    assert_eq!(
        figure(&after, "switchboard_metrics_queue_read_ok", &[]),
        1.0
    );
}

on_both_backends!(with with_metrics_and_engine; engine_job_queue_depth_is_scraped);

async fn metrics_are_off_by_default(app: TestApp) {
    assert!(app.config.metrics_listen.is_none());
    let answer = app.call(Method::GET, "/metrics", None, None).await;
    answer.error(404, "NotFound");
}

on_both_backends!(metrics_are_off_by_default);

async fn ready(app: &TestApp) -> u16 {
    app.client
        .get(app.url("/readyz"))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn one_connection(config: &mut switchboard::Config) {
    config.db_max_connections = 1;
}

async fn readiness_follows_the_pool_not_the_store(app: TestApp) {
    assert_eq!(ready(&app).await, 200);
    // The only connection is held: no connection can be had within the bound.
    let held = app.state.db.begin().await.unwrap();
    let started = std::time::Instant::now();
    assert_eq!(ready(&app).await, 503);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "answered within the bound"
    );
    drop(held);
    assert_eq!(ready(&app).await, 200);
    // The object folder goes away: still ready (only the routes that keep files need
    // it; see resilience::stalled_storage).
    let objects = app.config.data_dir.join("objects");
    let aside = app.config.data_dir.join("objects-aside");
    std::fs::rename(&objects, &aside).unwrap();
    assert_eq!(ready(&app).await, 200);
    std::fs::rename(&aside, &objects).unwrap();
}

on_both_backends!(with one_connection; readiness_follows_the_pool_not_the_store);

fn address_limited(config: &mut switchboard::Config) {
    config.rate_limit_per_minute_per_address = 3;
}

fn behind_a_proxy(config: &mut switchboard::Config) {
    address_limited(config);
    config.trusted_proxies = "10.0.0.0/8, 127.0.0.1/32".into();
}

/// An unauthenticated request claiming to come from `client`.
async fn from(app: &TestApp, client: &str) -> u16 {
    app.client
        .get(app.url("/v2/admin/extensions/"))
        .header("x-forwarded-for", client)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn forwarded_addresses_count_behind_a_trusted_proxy(app: TestApp) {
    let w = World::seed(&app).await;
    // The peer (127.0.0.1) is a trusted proxy: each forwarded client has its own limit,
    // and a spoofed hop left of the proxy's own entry changes nothing.
    for _ in 0..3 {
        assert_eq!(from(&app, "6.6.6.6, 203.0.113.5").await, 401);
    }
    assert_eq!(from(&app, "7.7.7.7, 203.0.113.5").await, 429);
    assert_eq!(from(&app, "203.0.113.6").await, 401, "another client");
    // Failed logins are counted and audited under the forwarded address.
    let login = app
        .client
        .post(app.url("/v2/authentication/"))
        .header("x-forwarded-for", "198.51.100.23, 10.1.1.1")
        .json(&json!({"email": w.admin_a, "password": "wrong password here"}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 401);
    let login = app
        .client
        .post(app.url("/v2/authentication/"))
        .header("x-forwarded-for", "198.51.100.24")
        .json(&json!({"email": w.admin_a, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    let login = TestApp::answer(login).await.expect(200);
    let token = login["accessToken"].as_str().unwrap().to_owned();
    let trail = app.audit_entries(&token, "entities=authentication").await;
    let addresses: Vec<&str> = trail
        .iter()
        .map(|e| e["clientAddress"].as_str().unwrap())
        .collect();
    assert_eq!(addresses, ["198.51.100.23", "198.51.100.24"]);
}

on_both_backends!(with behind_a_proxy; forwarded_addresses_count_behind_a_trusted_proxy);

/// An IPv6 client is limited by its /64 (a site picks any address of its /64), an IPv4
/// client by its address.
async fn ipv6_clients_share_their_64s_limit(app: TestApp) {
    World::seed(&app).await;
    for client in ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::3"] {
        assert_eq!(from(&app, client).await, 401, "{client}");
    }
    assert_eq!(
        from(&app, "2001:db8:1:2:8000::42").await,
        429,
        "another address of the same /64"
    );
    assert_eq!(from(&app, "2001:db8:1:3::1").await, 401, "the next /64");
    assert_eq!(from(&app, "[2001:db8:1:3::2]:4711").await, 401);
    // IPv4 neighbours are separate clients.
    for client in ["203.0.113.1", "203.0.113.1", "203.0.113.1"] {
        assert_eq!(from(&app, client).await, 401);
    }
    assert_eq!(from(&app, "203.0.113.1").await, 429);
    assert_eq!(from(&app, "203.0.113.2").await, 401);
}

on_both_backends!(with behind_a_proxy; ipv6_clients_share_their_64s_limit);

async fn forwarded_headers_are_ignored_without_trusted_proxies(app: TestApp) {
    let w = World::seed(&app).await;
    // Every request is the peer's, whatever it claims.
    for client in ["203.0.113.1", "203.0.113.2", "203.0.113.3"] {
        assert_eq!(from(&app, client).await, 401);
    }
    assert_eq!(from(&app, "203.0.113.4").await, 429);
    let login = app
        .client
        .post(app.url("/v2/authentication/"))
        .header("x-forwarded-for", "198.51.100.23")
        .header("forwarded", "for=198.51.100.23")
        .json(&json!({"email": w.admin_a, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    // Limited by the address too: the peer has spent its requests.
    assert_eq!(login.status(), 429);
}

on_both_backends!(with address_limited; forwarded_headers_are_ignored_without_trusted_proxies);
