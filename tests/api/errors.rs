//! The error contract (CONTRACT §5): every rejection answers the Error body, with the
//! right status and every broken rule listed.

use reqwest::Method;
use serde_json::json;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

async fn malformed_json_and_wrong_content_type(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let send = |content_type: &'static str, body: &'static str| {
        app.client
            .post(app.url("/v2/admin/extensions/"))
            .bearer_auth(&token)
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    TestApp::answer(send("application/json", "{\"number\":").await.unwrap())
        .await
        .error(400, "BadRequest");
    TestApp::answer(send("application/json", "").await.unwrap())
        .await
        .error(400, "BadRequest");
    TestApp::answer(
        send("text/plain", "{\"number\":\"5\",\"name\":\"x\"}")
            .await
            .unwrap(),
    )
    .await
    .error(415, "UnsupportedMediaType");
    TestApp::answer(
        send(
            "application/json; charset=utf-8",
            "{\"number\":\"555\",\"name\":\"ok\"}",
        )
        .await
        .unwrap(),
    )
    .await
    .expect(200);
    let problems = app
        .post("/v2/admin/extensions/", &token, json!([1, 2]))
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/' must be an object"]);
}

async fn every_broken_rule_is_listed(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let problems = app
        .post(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "12a", "name": "", "branchId": "one", "tenantId": 0}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/tenantId' must be at least 1",
            "'body/branchId' must be an integer",
            "'body/number' must match pattern ^[0-9#+][0-9*#+]*$",
            "'body/name' must be at least 1 character",
        ]
    );
    let problems = app
        .post(
            "/v2/admin/users/",
            &token,
            json!({"permissions": ["x", 3], "darkMode": 2, "timezone": "Mars/Base"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/email' is required",
            "'body/password' is required",
            "'body/userRole' is required",
            "'body/permissions/0' must be a known permission",
            "'body/permissions/1' must be a string",
            "'body/timezone' must be an IANA time zone name",
            "'body/darkMode' must be at most 1",
        ]
    );
    // Nothing was written.
    let list = app
        .get("/v2/admin/users/?recordsPerPage=100", &token)
        .await
        .expect(200);
    assert!(
        list["records"]
            .as_array()
            .unwrap()
            .iter()
            .all(|u| u["email"] != "")
    );
}

async fn path_ids_routes_and_methods(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    for bad in ["0", "01", "-1", "abc", "1.5"] {
        let problems = app
            .get(&format!("/v2/admin/extensions/{bad}"), &token)
            .await
            .error(400, "ValidationError");
        assert_eq!(
            problems,
            ["'path/id' must match pattern ^[1-9][0-9]*$"],
            "{bad}"
        );
    }
    app.get("/v2/admin/extensions/99999999999999999999", &token)
        .await
        .error(404, "NotFound");
    app.get("/v2/admin/extensions/424242", &token)
        .await
        .error(404, "NotFound");
    app.get("/v2/admin/nothing-here", &token)
        .await
        .error(404, "NotFound");
    app.call(Method::GET, "/no/such/route", None, None)
        .await
        .error(404, "NotFound");
    app.call(
        Method::PUT,
        &format!("/v2/admin/extensions/{}", w.ext_a),
        Some(&token),
        None,
    )
    .await
    .error(405, "MethodNotAllowed");
    app.call(Method::DELETE, "/v2/admin/extensions/", Some(&token), None)
        .await
        .error(405, "MethodNotAllowed");
}

async fn collections_answer_with_and_without_trailing_slash(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let with = app
        .get("/v2/admin/extensions/?sortBy=number", &token)
        .await
        .expect(200);
    let without = app
        .get("/v2/admin/extensions?sortBy=number", &token)
        .await
        .expect(200);
    assert_eq!(with, without);
    app.post(
        "/v2/admin/extensions",
        &token,
        json!({"number": "300", "name": "No slash"}),
    )
    .await
    .expect(200);
    app.call(
        Method::POST,
        "/v2/authentication",
        None,
        Some(json!({"email": w.admin_a, "password": "x"})),
    )
    .await
    .error(401, "Unauthorized");
}

async fn bad_query_strings_list_every_problem(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let problems = app
        .get("/v2/admin/extensions/?paginated=yes&page=0&recordsPerPage=5000&sortBy=secret&sortDirection=sideways&tenantId=01", &token)
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'query/paginated' must be an integer",
            "'query/page' must be at least 1",
            "'query/recordsPerPage' must be at most 1000",
            "'query/sortBy' must be one of: id, number, name, tenantId, branchId",
            "'query/sortDirection' must be one of: asc, desc",
            "'query/tenantId' must match pattern ^[1-9][0-9]*$",
        ]
    );
    let long = "x".repeat(256);
    let problems = app
        .get(&format!("/v2/admin/extensions/?query={long}"), &token)
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'query/query' must be at most 255 characters"]);
    let long = "x".repeat(51);
    let problems = app
        .get(&format!("/v2/admin/extensions/?sortBy={long}"), &token)
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'query/sortBy' must be at most 50 characters"]);
}

async fn oversized_bodies_are_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let huge = format!(
        "{{\"number\":\"1\",\"name\":\"{}\"}}",
        "x".repeat(3 * 1024 * 1024)
    );
    let answer = app
        .client
        .post(app.url("/v2/admin/extensions/"))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    TestApp::answer(answer).await.error(413, "PayloadTooLarge");
}

type Writer = tokio::net::tcp::OwnedWriteHalf;
type Reader = tokio::io::BufReader<tokio::net::tcp::OwnedReadHalf>;

/// Sends one request on `writer` from its own task, so that a service which stops
/// reading cannot block the test; the task answers the writer and whether all was sent.
fn send(mut writer: Writer, request: Vec<u8>) -> tokio::task::JoinHandle<(Writer, bool)> {
    use tokio::io::AsyncWriteExt;
    tokio::spawn(async move {
        let sent = writer.write_all(&request).await.is_ok() && writer.flush().await.is_ok();
        (writer, sent)
    })
}

/// Reads one HTTP/1.1 answer (head and a `Content-Length` body), answering its head in
/// lower case, or `None` if the connection ended first.
async fn read_answer(reader: &mut Reader) -> Option<String> {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line.to_ascii_lowercase());
    }
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse::<usize>().expect("a length"));
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.ok()?;
    Some(head)
}

/// A body refused before it was read (over the limit, as its length announces) is read
/// to its end before the 413 goes out, so the connection serves the next request; one
/// too large to read is answered with `Connection: close`. Otherwise a client that had
/// written its whole body into the socket would reuse a connection the service was
/// closing, and its next request would fail with no answer.
async fn refused_bodies_leave_the_connection_usable(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let address = app.base.trim_start_matches("http://").to_owned();
    let post = |length: usize| {
        let mut request = format!(
            "POST /v2/admin/extensions/ HTTP/1.1\r\nhost: {address}\r\nauthorization: Bearer {token}\r\ncontent-type: application/json\r\ncontent-length: {length}\r\n\r\n"
        )
        .into_bytes();
        request.resize(request.len() + length, b'x');
        request
    };
    let get = format!(
        "GET /v2/admin/extensions/ HTTP/1.1\r\nhost: {address}\r\nauthorization: Bearer {token}\r\n\r\n"
    )
    .into_bytes();
    let stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let (reader, mut writer) = stream.into_split();
    let mut reader = tokio::io::BufReader::new(reader);
    for round in 0..3 {
        let sending = send(writer, post(3 * 1024 * 1024));
        let head = read_answer(&mut reader)
            .await
            .expect("an answer to the large body");
        assert!(head.starts_with("http/1.1 413"), "{head}");
        assert!(!head.contains("connection: close"), "{head}");
        let (returned, sent) = sending.await.unwrap();
        assert!(sent, "round {round}: the whole body was taken");
        let sending = send(returned, get.clone());
        let head = read_answer(&mut reader)
            .await
            .unwrap_or_else(|| panic!("round {round}: the connection still answers"));
        assert!(head.starts_with("http/1.1 200"), "{head}");
        writer = sending.await.unwrap().0;
    }
    // Past what the service will read for nothing, it says it closes the connection.
    let _sending = send(writer, post(40 * 1024 * 1024));
    let head = read_answer(&mut reader)
        .await
        .expect("an answer to the huge body");
    assert!(head.starts_with("http/1.1 413"), "{head}");
    assert!(head.contains("connection: close"), "{head}");
}

async fn delete_accepts_empty_and_empty_json_bodies(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let mut ids = Vec::new();
    for number in ["801", "802", "803"] {
        ids.push(
            app.create(
                "/v2/admin/extensions/",
                &token,
                json!({"number": number, "name": "Temp"}),
            )
            .await["id"]
                .clone(),
        );
    }
    let bodies: [Option<&str>; 3] = [None, Some(""), Some("{}")];
    for (id, body) in ids.iter().zip(bodies) {
        let mut request = app
            .client
            .delete(app.url(&format!("/v2/admin/extensions/{id}")))
            .bearer_auth(&token);
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body);
        }
        let deleted = TestApp::answer(request.send().await.unwrap())
            .await
            .expect(200);
        assert_eq!(&deleted["id"], id);
        app.get(&format!("/v2/admin/extensions/{id}"), &token)
            .await
            .error(404, "NotFound");
    }
}

async fn request_ids_are_echoed_or_made(app: TestApp) {
    let answer = app
        .client
        .get(app.url("/healthz"))
        .header("x-request-id", "trace-me-42")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.headers()["x-request-id"], "trace-me-42");
    let answer = app.client.get(app.url("/no/route")).send().await.unwrap();
    let made = answer.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(made.len(), 36, "a UUID: {made}");
    // An id that could forge fields of a text log line, or is too long, is replaced.
    for forged in [
        "abc\" status=200".to_owned(),
        "a b".to_owned(),
        "x".repeat(129),
    ] {
        let answer = app
            .client
            .get(app.url("/healthz"))
            .header("x-request-id", &forged)
            .send()
            .await
            .unwrap();
        let made = answer.headers()["x-request-id"].to_str().unwrap();
        assert_eq!(made.len(), 36, "a UUID instead of {forged:?}: {made}");
    }
}

on_both_backends!(
    malformed_json_and_wrong_content_type,
    every_broken_rule_is_listed,
    path_ids_routes_and_methods,
    collections_answer_with_and_without_trailing_slash,
    bad_query_strings_list_every_problem,
    oversized_bodies_are_refused,
    refused_bodies_leave_the_connection_usable,
    delete_accepts_empty_and_empty_json_bodies,
    request_ids_are_echoed_or_made,
);
