//! Nothing one client does starves the others: stalled readers of streamed lists hold no
//! database connection and are cut off, and streamed lists read in rounds still answer
//! every record once, in order.

use std::time::{Duration, Instant};

use serde_json::Value;
use switchboard_domain::ids::TenantId;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// Messages in the stalled tenant: some 10 MB of JSON, more than the kernel's socket
/// buffers (4 MiB to send, the client's shrunk to 4 KiB) take in, so a stream stalls.
const MESSAGES: usize = 20_000;

/// Opens a connection with a tiny receive buffer, sends `GET path` with `token` and
/// never reads the answer.
async fn stalled_reader(app: &TestApp, path: &str, token: &str) -> TcpStream {
    let address: std::net::SocketAddr = app
        .base
        .trim_start_matches("http://")
        .parse()
        .expect("an address");
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(address).await.unwrap();
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

async fn stalled_streams_do_not_starve_other_tenants(app: TestApp) {
    let w = World::seed(&app).await;
    switchboard_db::synthetic::voicemail(&app.state.db, TenantId(w.tenant_a), MESSAGES, 50)
        .await
        .unwrap();
    let a = app.login(w.admin_a).await;
    let b = app.login(w.admin_b).await;
    // More stalled streams than the pool has connections (5 in tests).
    let mut readers = Vec::new();
    for _ in 0..12 {
        readers.push(stalled_reader(&app, "/v2/admin/voicemail-messages/?paginated=0", &a).await);
    }
    // Every stream fills its socket and stalls, holding no database connection; the
    // rounds are short, so the pool is soon idle (on today's code five streams keep
    // their connections for as long as their clients read nothing).
    let mut idle_since = None;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if app.state.db.connections_in_use() == 0 {
            let since = *idle_since.get_or_insert_with(Instant::now);
            if since.elapsed() > Duration::from_secs(2) {
                break;
            }
        } else {
            idle_since = None;
        }
    }
    assert_eq!(
        app.state.db.connections_in_use(),
        0,
        "stalled streams hold no connection"
    );
    for _ in 0..3 {
        let started = Instant::now();
        let list = app.get("/v2/admin/extensions/", &b).await.expect(200);
        let took = started.elapsed();
        assert_eq!(list["totalRecords"], 1, "{list}");
        assert!(
            took < Duration::from_millis(1000),
            "another tenant's list took {took:?} beside 12 stalled streams"
        );
    }
    // The stalled streams were real: each got its answer's head and then stopped.
    let mut head = [0u8; 12];
    readers[0].read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    drop(readers);
}

/// The ids of `path`'s records.
fn ids(list: &Value) -> Vec<i64> {
    list["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["id"].as_i64().expect("an id"))
        .collect()
}

async fn streams_read_in_rounds_answer_every_record_once_in_order(app: TestApp) {
    let w = World::seed(&app).await;
    // More than two rounds of the stream (500 rows each).
    switchboard_db::synthetic::voicemail(&app.state.db, TenantId(w.tenant_a), 1_234, 7)
        .await
        .unwrap();
    switchboard_db::synthetic::phone_numbers(&app.state.db, TenantId(w.tenant_a), 1_111)
        .await
        .unwrap();
    let a = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    let cases = [
        // Sorted by id; by a value with many ties; by a text; by a column that is NULL
        // in every row (no branch), each way.
        (
            "/v2/admin/voicemail-messages/",
            "sortBy=id&sortDirection=asc",
            &a,
        ),
        (
            "/v2/admin/voicemail-messages/",
            "sortBy=duration&sortDirection=desc",
            &a,
        ),
        (
            "/v2/admin/voicemail-messages/",
            "sortBy=mailboxUser&sortDirection=asc",
            &a,
        ),
        (
            "/v2/admin/voicemail-messages/",
            "sortBy=callerId&sortDirection=desc",
            &a,
        ),
        (
            "/v2/admin/phone-numbers/",
            "sortBy=branchId&sortDirection=asc",
            &platform,
        ),
        (
            "/v2/admin/phone-numbers/",
            "sortBy=branchId&sortDirection=desc",
            &platform,
        ),
        (
            "/v2/admin/phone-numbers/",
            "sortBy=inUse&sortDirection=asc",
            &platform,
        ),
    ];
    for (path, order, token) in cases {
        let streamed = app
            .get(&format!("{path}?paginated=0&{order}"), token)
            .await
            .expect(200);
        let streamed = ids(&streamed);
        let mut paged = Vec::new();
        for page in 1..=2 {
            let list = app
                .get(
                    &format!("{path}?paginated=1&recordsPerPage=1000&page={page}&{order}"),
                    token,
                )
                .await
                .expect(200);
            paged.extend(ids(&list));
        }
        assert!(paged.len() > 1_000, "{path}?{order}: {}", paged.len());
        assert_eq!(streamed, paged, "{path}?{order}");
    }
}

on_both_backends!(
    stalled_streams_do_not_starve_other_tenants,
    streams_read_in_rounds_answer_every_record_once_in_order
);

/// With a short stall limit (its own module: one configuration per macro use).
mod cut_off {
    use super::*;

    fn stall_quickly(config: &mut switchboard::Config) {
        config.write_stall_seconds = 2;
    }

    async fn a_reader_that_reads_nothing_is_cut_off(app: TestApp) {
        let w = World::seed(&app).await;
        switchboard_db::synthetic::voicemail(&app.state.db, TenantId(w.tenant_a), MESSAGES, 50)
            .await
            .unwrap();
        let a = app.login(w.admin_a).await;
        let mut reader =
            stalled_reader(&app, "/v2/admin/voicemail-messages/?paginated=0", &a).await;
        tokio::time::sleep(Duration::from_secs(5)).await;
        // The server gave up: what it had written is there, then the connection ends
        // without the chunked body's last chunk.
        let mut received = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(20), reader.read_to_end(&mut received))
            .await
            .expect("the server closed the connection");
        // A reset after the buffered bytes is as good as an end.
        let _ = read;
        assert!(
            received.starts_with(b"HTTP/1.1 200"),
            "{:?}",
            &received[..received.len().min(40)]
        );
        assert!(
            !received.ends_with(b"\r\n0\r\n\r\n"),
            "the stream was cut short, not completed ({} bytes)",
            received.len()
        );
        // The server is still fine.
        app.get("/v2/admin/extensions/", &a).await.expect(200);
    }

    on_both_backends!(with stall_quickly; a_reader_that_reads_nothing_is_cut_off);
}
