//! Probes and a graceful stop.

use std::time::Duration;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{PASSWORD, TestApp};

async fn probes_answer(app: TestApp) {
    let health = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(
        health.json::<serde_json::Value>().await.unwrap()["status"],
        "ok"
    );
    let ready = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    assert_eq!(
        ready.json::<serde_json::Value>().await.unwrap()["status"],
        "ready"
    );
    let docs = app.client.get(app.url("/docs/")).send().await.unwrap();
    assert_eq!(docs.status(), 200);
    assert!(docs.text().await.unwrap().contains("swagger-ui"));
}

async fn in_flight_requests_finish_on_shutdown(mut app: TestApp) {
    let w = World::seed(&app).await;
    // A login takes a while (argon2); start one, then signal shutdown while it runs.
    let login = tokio::spawn(app.login_answer_owned(w.admin_a.to_owned(), PASSWORD.to_owned()));
    tokio::time::sleep(Duration::from_millis(5)).await;
    app.signal_shutdown();
    let answer = login.await.unwrap();
    assert_eq!(
        answer.status, 200,
        "the in-flight login completed: {}",
        answer.body
    );
    app.join().await.unwrap();
    assert!(
        app.client.get(app.url("/healthz")).send().await.is_err(),
        "no longer accepting"
    );
}

on_both_backends!(probes_answer, in_flight_requests_finish_on_shutdown);
