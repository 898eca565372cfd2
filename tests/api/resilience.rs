//! Nothing one client does starves the others: stalled readers of streamed lists hold no
//! database connection and are cut off, and streamed lists read in rounds still answer
//! every record once, in order.

use std::time::{Duration, Instant};

use switchboard_domain::ids::TenantId;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, record_ids};

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
    // Up to 30 s: a loaded machine (eight tests at once on two cores) fills the sockets
    // slowly; an idle pool ends the wait after its two seconds.
    for _ in 0..300 {
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
        let streamed = record_ids(&streamed);
        let mut paged = Vec::new();
        for page in 1..=2 {
            let list = app
                .get(
                    &format!("{path}?paginated=1&recordsPerPage=1000&page={page}&{order}"),
                    token,
                )
                .await
                .expect(200);
            paged.extend(record_ids(&list));
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
    use std::net::SocketAddr;

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
        // Wait for the server to cut the connection off before reading anything: a read
        // begun earlier lets the stream run to its end (on a loaded machine the server
        // may take longer than any fixed pause to fill its send buffer and give up). The
        // server's end of the connection leaves ESTABLISHED when it closes it, while its
        // unsent bytes are still queued.
        let (server, client) = (reader.peer_addr().unwrap(), reader.local_addr().unwrap());
        assert_eq!(
            tcp_state(server, client),
            Some(TCP_ESTABLISHED),
            "the server's end of {client} is in /proc/net/tcp"
        );
        let waited = Instant::now();
        while tcp_state(server, client) == Some(TCP_ESTABLISHED) {
            assert!(
                waited.elapsed() < Duration::from_secs(120),
                "the server never cut off a client that read nothing"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // The server gave up: what it had written is there, then the connection ends
        // without the chunked body's last chunk.
        let mut received = Vec::new();
        let read =
            tokio::time::timeout(Duration::from_secs(60), reader.read_to_end(&mut received)).await;
        // A reset after the buffered bytes is as good as an end.
        assert!(
            read.is_ok(),
            "the connection was not closed: {} bytes read, the last chunk {}",
            received.len(),
            if received.ends_with(b"\r\n0\r\n\r\n") {
                "read"
            } else {
                "not read"
            }
        );
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

    /// The kernel's state number of an established TCP connection (`include/net/tcp_states.h`).
    const TCP_ESTABLISHED: u8 = 1;

    /// The state of the IPv4 connection whose local end is `local` and remote end
    /// `remote`, as the kernel lists it in `/proc/net/tcp`; `None` when it is not there.
    fn tcp_state(local: SocketAddr, remote: SocketAddr) -> Option<u8> {
        // Addresses are written as the kernel holds them: the IPv4 address as a
        // native-endian u32 in hex, the port in hex.
        fn written(address: SocketAddr) -> String {
            let SocketAddr::V4(address) = address else {
                panic!("{address} is not IPv4")
            };
            format!(
                "{:08X}:{:04X}",
                u32::from_ne_bytes(address.ip().octets()),
                address.port()
            )
        }
        let (local, remote) = (written(local), written(remote));
        let table = std::fs::read_to_string("/proc/net/tcp").expect("/proc/net/tcp");
        table.lines().skip(1).find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.get(1) == Some(&local.as_str()) && fields.get(2) == Some(&remote.as_str()))
                .then(|| u8::from_str_radix(fields[3], 16).expect("a state"))
        })
    }
}

/// A PostgreSQL outage, made by a TCP relay between the service and the server that the
/// test cuts (connections refused) or blackholes (accepted, never answered).
mod outage {
    use std::time::{Duration, Instant};

    use serde_json::{Value, json};
    use sqlx::Connection;
    use tokio::net::{TcpListener, TcpStream};
    use tokio::sync::watch;
    use tokio::task::JoinHandle;

    use crate::fixture::World;
    use crate::support::{Backend, TestApp};

    /// What the relay does with connections to PostgreSQL.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Mode {
        /// Forwards every byte both ways.
        Forward,
        /// The server is gone: open connections are closed, new ones refused (the port
        /// is closed).
        Refuse,
        /// The server went silent: open connections are kept but nothing more crosses
        /// them, new ones are accepted and never answered.
        Blackhole,
    }

    /// A TCP relay to PostgreSQL whose [`Mode`] the test sets. Leaving a mode closes the
    /// connections it held (a partition that heals after the connections' state is lost).
    struct Relay {
        address: String,
        mode: watch::Sender<Mode>,
        accepting: JoinHandle<()>,
    }

    impl Relay {
        async fn start(target: String) -> Relay {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap().to_string();
            let (mode, watching) = watch::channel(Mode::Forward);
            let accepting = tokio::spawn(accept(listener, address.clone(), target, watching));
            Relay {
                address,
                mode,
                accepting,
            }
        }

        /// The database goes away: open connections break, new ones are refused.
        fn cut(&self) {
            self.mode.send_replace(Mode::Refuse);
        }

        /// The database goes silent.
        fn blackhole(&self) {
            self.mode.send_replace(Mode::Blackhole);
        }

        /// The database is back.
        fn reopen(&self) {
            self.mode.send_replace(Mode::Forward);
        }
    }

    impl Drop for Relay {
        fn drop(&mut self) {
            self.accepting.abort();
            self.mode.send_replace(Mode::Refuse);
        }
    }

    /// Accepts on `listener` (closing it while refusing, bound again at `address` after).
    async fn accept(
        mut listener: TcpListener,
        address: String,
        target: String,
        mut mode: watch::Receiver<Mode>,
    ) {
        loop {
            let relaying = mode.clone();
            let refusing = tokio::select! {
                accepted = listener.accept() => {
                    if let Ok((client, _)) = accepted {
                        tokio::spawn(relay(client, target.clone(), relaying));
                    }
                    false
                }
                changed = mode.wait_for(|m| *m == Mode::Refuse) => changed.is_ok(),
            };
            if refusing {
                drop(listener);
                if mode.wait_for(|m| *m != Mode::Refuse).await.is_err() {
                    return;
                }
                listener = TcpListener::bind(&address).await.unwrap();
            }
        }
    }

    /// Relays one connection as the mode says.
    async fn relay(mut client: TcpStream, target: String, mut mode: watch::Receiver<Mode>) {
        if *mode.borrow() == Mode::Blackhole {
            let _ = mode.wait_for(|m| *m != Mode::Blackhole).await;
            return;
        }
        let Ok(mut server) = TcpStream::connect(&target).await else {
            return;
        };
        let left = tokio::select! {
            _ = tokio::io::copy_bidirectional(&mut client, &mut server) => None,
            left = mode.wait_for(|m| *m != Mode::Forward) => left.ok().map(|m| *m),
        };
        if left == Some(Mode::Blackhole) {
            // Both sockets stay open and unread until the mode changes again.
            let _ = mode.wait_for(|m| *m != Mode::Blackhole).await;
        }
    }

    /// `host:port` of a `postgres://user@host:port/db` URL.
    fn host_and_port(url: &str) -> String {
        let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
        let rest = rest.rsplit_once('@').map_or(rest, |(_, rest)| rest);
        rest.split(['/', '?']).next().unwrap().to_owned()
    }

    /// A relay to the test PostgreSQL server and an app whose database is reached through
    /// it, `configure` applied; the app's database URL without the relay, for the test's
    /// own connections.
    async fn through_relay(configure: fn(&mut switchboard::Config)) -> (Relay, TestApp, String) {
        let admin = std::env::var("SWITCHBOARD_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let target = host_and_port(&admin);
        let relay = Relay::start(target.clone()).await;
        let through = relay.address.clone();
        let replaced = target.clone();
        let app = TestApp::start_with(Backend::Postgres, move |config| {
            let url = config.database_url.take().unwrap();
            config.database_url = Some(url.replacen(&replaced, &through, 1));
            configure(config);
        })
        .await
        .expect("a PostgreSQL app (the harness skips this test without one)");
        let url = app.config.database_url.clone().unwrap();
        assert!(
            url.contains(&relay.address),
            "the service talks to the database through the relay"
        );
        let direct = url.replacen(&relay.address, &target, 1);
        (relay, app, direct)
    }

    async fn readiness(app: &TestApp) -> u16 {
        app.client
            .get(app.url("/readyz"))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    /// An answer and when it came.
    struct Timed {
        status: u16,
        body: Value,
        at: Instant,
    }

    /// Sends `method path` with `token` (and `body`) on a task of its own; a client
    /// timeout of 20 s, so that a request the service never answers fails the test.
    fn spawn_request(
        app: &TestApp,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> JoinHandle<Timed> {
        let mut request = app
            .client
            .request(method, app.url(path))
            .bearer_auth(token)
            .timeout(Duration::from_secs(20));
        if let Some(body) = body {
            request = request.json(&body);
        }
        tokio::spawn(async move {
            let response = request.send().await.expect("an answer within 20 s");
            let status = response.status().as_u16();
            let body = response.json().await.unwrap_or(Value::Null);
            Timed {
                status,
                body,
                at: Instant::now(),
            }
        })
    }

    /// Holds the extensions table against writers (on a connection of its own, not
    /// through the relay) until rolled back.
    async fn lock_extensions(direct: &str) -> sqlx::PgConnection {
        let mut conn = sqlx::PgConnection::connect(direct).await.unwrap();
        sqlx::query("BEGIN").execute(&mut conn).await.unwrap();
        sqlx::query("LOCK TABLE extensions IN ACCESS EXCLUSIVE MODE")
            .execute(&mut conn)
            .await
            .unwrap();
        conn
    }

    fn two_connections(config: &mut switchboard::Config) {
        config.db_max_connections = 2;
    }

    /// Both pooled connections held by writes waiting on a lock, and six more requests
    /// waiting for a connection: what the database's going away (`go`) must release.
    struct Queued {
        writes: Vec<JoinHandle<Timed>>,
        waiters: Vec<JoinHandle<Timed>>,
    }

    async fn queue_behind_a_lock(app: &TestApp, w: &World, token: &str) -> Queued {
        let writes: Vec<_> = (0..2)
            .map(|i| {
                spawn_request(
                    app,
                    reqwest::Method::POST,
                    "/v2/admin/extensions/",
                    token,
                    Some(
                        json!({"number": format!("17{i}"), "name": "Held", "branchId": w.branch_a}),
                    ),
                )
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let waiters: Vec<_> = (0..6)
            .map(|_| spawn_request(app, reqwest::Method::GET, "/v2/admin/ivrs/", token, None))
            .collect();
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(
            writes.iter().chain(&waiters).all(|r| !r.is_finished()),
            "the writes wait on the lock and the others for a connection"
        );
        Queued { writes, waiters }
    }

    /// Every queued request answers 503 "the database is unavailable" within `bound` of
    /// `since`.
    async fn all_released(queued: Queued, since: Instant, bound: Duration) {
        for (kind, requests) in [("write", queued.writes), ("waiter", queued.waiters)] {
            for request in requests {
                let answer = request.await.unwrap();
                let took = answer.at.duration_since(since);
                assert_eq!(answer.status, 503, "a {kind}: {}", answer.body);
                assert_eq!(answer.body["name"], "ServiceUnavailable", "{}", answer.body);
                assert!(
                    answer.body["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("database is unavailable")),
                    "a {kind} is answered as an outage: {}",
                    answer.body
                );
                assert!(
                    took < bound,
                    "a {kind} was answered {took:?} after the database went away"
                );
            }
        }
    }

    /// The service serves again once the database is back, and none of the writes it
    /// answered 503 was kept.
    async fn recovered(app: &TestApp, token: &str) {
        let back = Instant::now();
        loop {
            let answer = app.get("/v2/admin/extensions/?query=Held", token).await;
            if answer.status == 200 {
                assert_eq!(answer.body["totalRecords"], 0, "{}", answer.body);
                break;
            }
            assert!(back.elapsed() < Duration::from_secs(15), "no recovery");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert_eq!(readiness(app).await, 200);
    }

    /// The requests already waiting for a pooled connection when the server goes away
    /// are answered as an outage at once, not after the pool's 10 s acquire timeout as
    /// "busy" (issue 30).
    async fn waiters_are_released_when_the_database_goes_away() {
        let (relay, app, direct) = through_relay(two_connections).await;
        let w = World::seed(&app).await;
        let token = app.login(w.admin_a).await;
        let lock = lock_extensions(&direct).await;
        let queued = queue_behind_a_lock(&app, &w, &token).await;
        let cut = Instant::now();
        relay.cut();
        all_released(queued, cut, Duration::from_secs(2)).await;
        lock.close().await.unwrap();
        relay.reopen();
        recovered(&app, &token).await;
    }

    /// A server gone silent (packets dropped: nothing fails, nothing answers) is found by
    /// the probe, and then the writes in flight and the requests waiting for a connection
    /// are all answered as an outage, within the probe's few seconds, not the request
    /// timeout's 30.
    async fn a_silent_database_releases_what_waits_on_it() {
        let (relay, app, direct) = through_relay(two_connections).await;
        let w = World::seed(&app).await;
        let token = app.login(w.admin_a).await;
        let lock = lock_extensions(&direct).await;
        let queued = queue_behind_a_lock(&app, &w, &token).await;
        let silent = Instant::now();
        relay.blackhole();
        all_released(queued, silent, Duration::from_secs(5)).await;
        assert_eq!(readiness(&app).await, 503);
        lock.close().await.unwrap();
        relay.reopen();
        recovered(&app, &token).await;
    }

    fn short_statements(config: &mut switchboard::Config) {
        config.db_statement_timeout_seconds = 2;
    }

    /// A statement that gets no answer is given up at the statement timeout with a 503
    /// (here: a write waiting on a lock the test holds, the server answering the probe all
    /// along, so the circuit stays closed), and its write is not kept.
    async fn a_statement_without_an_answer_is_given_up_at_the_statement_timeout() {
        let app = TestApp::start_with(Backend::Postgres, short_statements)
            .await
            .expect("a PostgreSQL app");
        let w = World::seed(&app).await;
        let token = app.login(w.admin_a).await;
        let lock = lock_extensions(app.config.database_url.as_deref().unwrap()).await;
        let sent = Instant::now();
        let write = spawn_request(
            &app,
            reqwest::Method::POST,
            "/v2/admin/extensions/",
            &token,
            Some(json!({"number": "180", "name": "Held", "branchId": w.branch_a})),
        )
        .await
        .unwrap();
        let took = write.at.duration_since(sent);
        assert_eq!(write.status, 503, "{}", write.body);
        assert!(
            write.body["message"]
                .as_str()
                .is_some_and(|m| m.contains("did not answer in time")),
            "{}",
            write.body
        );
        assert!(
            took >= Duration::from_millis(1800) && took < Duration::from_secs(5),
            "given up at the 2 s statement timeout: {took:?}"
        );
        assert_eq!(
            readiness(&app).await,
            200,
            "no outage: the circuit is closed"
        );
        lock.close().await.unwrap();
        // The same number again: the abandoned write was rolled back.
        app.create(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "180", "name": "Held", "branchId": w.branch_a}),
        )
        .await;
    }

    /// Once the outage is known, every request answers 503 at once, and the service
    /// recovers by itself when the server is back.
    async fn a_database_outage_is_answered_at_once_and_recovered_from() {
        let (relay, app, _) = through_relay(crate::observability::metrics_on).await;
        let circuit =
            |page: &str| crate::observability::figure(page, "switchboard_db_circuit_open", &[]);
        assert_eq!(circuit(&crate::observability::scrape(&app).await), 0.0);
        let w = World::seed(&app).await;
        let token = app.login(w.admin_a).await;
        app.get("/v2/admin/extensions/", &token).await.expect(200);
        assert_eq!(readiness(&app).await, 200);

        relay.cut();
        // The outage is noticed (by the first request that meets it, or the probe).
        let noticed = Instant::now();
        while readiness(&app).await != 503 {
            assert!(
                noticed.elapsed() < Duration::from_secs(5),
                "the outage went unnoticed"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        for _ in 0..5 {
            let started = Instant::now();
            let answer = app.get("/v2/admin/extensions/", &token).await;
            let took = started.elapsed();
            let retry_after = answer
                .headers
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            answer.error(503, "ServiceUnavailable");
            assert!(
                retry_after.is_some_and(|s| s >= 1),
                "Retry-After: {retry_after:?}"
            );
            assert!(
                took < Duration::from_secs(1),
                "a request took {took:?} in the outage"
            );
        }
        let started = Instant::now();
        app.login_answer(w.admin_a, crate::support::PASSWORD)
            .await
            .error(503, "ServiceUnavailable");
        assert!(started.elapsed() < Duration::from_secs(1));
        assert_eq!(readiness(&app).await, 503);
        let page = crate::observability::scrape(&app).await;
        assert_eq!(circuit(&page), 1.0, "the open circuit is shown: {page}");

        relay.reopen();
        let reopened = Instant::now();
        loop {
            let answer = app.get("/v2/admin/extensions/", &token).await;
            if answer.status == 200 {
                assert_eq!(answer.body["totalRecords"], 2, "{}", answer.body);
                break;
            }
            assert!(reopened.elapsed() < Duration::from_secs(10), "no recovery");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert_eq!(readiness(&app).await, 200);
        assert_eq!(circuit(&crate::observability::scrape(&app).await), 0.0);
    }

    switchboard_testing::tests!(
        needs switchboard_testing::POSTGRES;
        a_database_outage_is_answered_at_once_and_recovered_from,
        waiters_are_released_when_the_database_goes_away,
        a_silent_database_releases_what_waits_on_it,
        a_statement_without_an_answer_is_given_up_at_the_statement_timeout
    );
}

/// A request that takes too long is abandoned; uploads beyond the cap are refused.
mod bounds {
    use std::time::{Duration, Instant};

    use serde_json::json;
    use sqlx::Connection;
    use tokio::io::AsyncWriteExt;

    use crate::fixture::World;
    use crate::on_both_backends;
    use crate::support::{TestApp, fixture};

    fn tight(config: &mut switchboard::Config) {
        config.request_timeout_seconds = 1;
        config.upload_concurrency = 1;
    }

    /// Holds the extensions table against writers until dropped.
    enum Lock {
        Sqlite(sqlx::SqliteConnection),
        Postgres(sqlx::PgConnection),
    }

    async fn lock_extensions(app: &TestApp) -> Lock {
        let url = app.config.database_url.clone().unwrap();
        if url.starts_with("sqlite") {
            let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
            sqlx::query("BEGIN IMMEDIATE")
                .execute(&mut conn)
                .await
                .unwrap();
            Lock::Sqlite(conn)
        } else {
            let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
            sqlx::query("BEGIN").execute(&mut conn).await.unwrap();
            sqlx::query("LOCK TABLE extensions IN ACCESS EXCLUSIVE MODE")
                .execute(&mut conn)
                .await
                .unwrap();
            Lock::Postgres(conn)
        }
    }

    async fn release(lock: Lock) {
        match lock {
            Lock::Sqlite(mut conn) => {
                sqlx::query("ROLLBACK").execute(&mut conn).await.unwrap();
            }
            Lock::Postgres(mut conn) => {
                sqlx::query("ROLLBACK").execute(&mut conn).await.unwrap();
            }
        }
    }

    async fn a_request_that_takes_too_long_is_answered_503_and_undone(app: TestApp) {
        let w = World::seed(&app).await;
        let token = app.login(w.admin_a).await;
        let before = app.count("extensions", None).await;
        let lock = lock_extensions(&app).await;
        let started = Instant::now();
        let answer = app
            .post(
                "/v2/admin/extensions/",
                &token,
                json!({"number": "150", "name": "Lobby", "branchId": w.branch_a}),
            )
            .await;
        let took = started.elapsed();
        let retry_after = answer.headers.get("retry-after").cloned();
        answer.error(503, "ServiceUnavailable");
        assert!(retry_after.is_some(), "Retry-After is set");
        assert!(
            took >= Duration::from_millis(900) && took < Duration::from_secs(5),
            "answered after the 1 s timeout, not the 10 s lock wait: {took:?}"
        );
        release(lock).await;
        // The abandoned request's write was rolled back with it.
        assert_eq!(app.count("extensions", None).await, before);
        let list = app
            .get("/v2/admin/extensions/?query=Lobby", &token)
            .await
            .expect(200);
        assert_eq!(list["totalRecords"], 0, "{list}");
    }

    async fn uploads_beyond_the_cap_are_refused(app: TestApp) {
        let w = World::seed(&app).await;
        let token = app.login(w.admin_a).await;
        // An upload that sends its head and part of its body, then nothing: it holds the
        // only upload slot.
        let address = app.base.trim_start_matches("http://").to_owned();
        let mut slow = tokio::net::TcpStream::connect(&address).await.unwrap();
        let head = format!(
            "POST /v2/admin/media-files/ HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 1000000\r\n\r\n\
             --XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nslow\r\n\
             --XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.mp3\"\r\n\r\n"
        );
        slow.write_all(head.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let refused = app
            .upload(
                &token,
                &[("name", "second")],
                Some(("tone.mp3", fixture("tone.mp3"))),
            )
            .await;
        let retry_after = refused.headers.get("retry-after").cloned();
        refused.error(503, "ServiceUnavailable");
        assert_eq!(retry_after.unwrap(), "5");
        // Other requests are not held up, and are not subject to the cap.
        app.get("/v2/admin/extensions/", &token).await.expect(200);
        assert_eq!(app.count("media_files", None).await, 0);
        // The stalled upload goes; its slot is free again.
        drop(slow);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let answer = app
                .upload(
                    &token,
                    &[("name", "second")],
                    Some(("tone.mp3", fixture("tone.mp3"))),
                )
                .await;
            if answer.status != 503 {
                answer.expect(200);
                break;
            }
            assert!(Instant::now() < deadline, "the slot was never freed");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert_eq!(app.count("media_files", None).await, 1);
    }

    fn tight_uploads(config: &mut switchboard::Config) {
        tight(config);
        config.upload_timeout_seconds = 2;
    }

    /// An upload whose client stops sending is answered 503 at the upload timeout, and its
    /// slot is free for the next upload at once.
    async fn a_stalled_upload_is_cut_at_the_upload_timeout(app: TestApp) {
        use tokio::io::AsyncReadExt;
        let w = World::seed(&app).await;
        let token = app.login(w.admin_a).await;
        let address = app.base.trim_start_matches("http://").to_owned();
        let mut slow = tokio::net::TcpStream::connect(&address).await.unwrap();
        let head = format!(
            "POST /v2/admin/media-files/ HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 1000000\r\n\r\n\
             --XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nslow\r\n"
        );
        slow.write_all(head.as_bytes()).await.unwrap();
        let started = Instant::now();
        let mut answer = vec![0u8; 4096];
        let read = tokio::time::timeout(Duration::from_secs(10), slow.read(&mut answer))
            .await
            .expect("the stalled upload is answered")
            .unwrap();
        let took = started.elapsed();
        let answer = String::from_utf8_lossy(&answer[..read]);
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
        assert!(
            took >= Duration::from_millis(1500) && took < Duration::from_secs(8),
            "cut at the 2 s upload timeout: {took:?}"
        );
        app.upload(
            &token,
            &[("name", "next")],
            Some(("tone.mp3", fixture("tone.mp3"))),
        )
        .await
        .expect(200);
        // The header alone does not make a request an upload: a GET keeps its timeout and
        // takes no slot.
        let listed = app
            .client
            .get(app.url("/v2/admin/extensions/"))
            .bearer_auth(&token)
            .header("content-type", "multipart/form-data; boundary=x")
            .send()
            .await
            .unwrap();
        assert_eq!(listed.status(), 200);
    }

    fn four_uploads(config: &mut switchboard::Config) {
        config.upload_concurrency = 4;
    }

    /// The upload slots are shared fairly: a tenant whose uploads stall holds at most its
    /// share (a quarter of 4: one), so its next upload is refused while another tenant's
    /// is served.
    async fn one_tenants_stalled_uploads_do_not_refuse_another_tenant(app: TestApp) {
        let w = World::seed(&app).await;
        let (a, b) = (app.login(w.admin_a).await, app.login(w.admin_b).await);
        let address = app.base.trim_start_matches("http://").to_owned();
        let mut slow = tokio::net::TcpStream::connect(&address).await.unwrap();
        let head = format!(
            "POST /v2/admin/media-files/ HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {a}\r\n\
             Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 1000000\r\n\r\n\
             --XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nslow\r\n"
        );
        slow.write_all(head.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let tone = || Some(("tone.mp3", fixture("tone.mp3")));
        app.upload(&a, &[("name", "second")], tone())
            .await
            .error(503, "ServiceUnavailable");
        app.upload(&b, &[("name", "theirs")], tone())
            .await
            .expect(200);
        drop(slow);
    }

    fn two_connections(config: &mut switchboard::Config) {
        config.db_max_connections = 2;
        // The writes below wait on the lock longer than the default statement timeout.
        config.db_statement_timeout_seconds = 60;
    }

    /// Every pooled connection held by requests waiting on a lock is saturation, not an
    /// outage: a request that finds none free is answered 503, but the circuit stays
    /// closed, so the next request once they are free is served (an open circuit would
    /// refuse it, and everyone, until the probe closed it again).
    async fn a_saturated_pool_does_not_open_the_circuit(app: TestApp) {
        let w = World::seed(&app).await;
        let token = app.login(w.admin_a).await;
        let lock = lock_extensions(&app).await;
        let holders = futures::future::join_all((0..2).map(|i| {
            app.post(
                "/v2/admin/extensions/",
                &token,
                json!({"number": format!("16{i}"), "name": "Held", "branchId": w.branch_a}),
            )
        }));
        let starved = async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            // Waits the pool's 10 s acquire timeout: both connections are held.
            let refused = app.get("/v2/admin/ivrs/", &token).await;
            release(lock).await;
            let served = app.get("/v2/admin/ivrs/", &token).await;
            (refused, served)
        };
        let (held, (refused, served)) = tokio::join!(holders, starved);
        // SQLite's holders give up at its 10 s busy timeout, as the starved request's
        // wait ends: which comes first is a race, and it has no circuit to open.
        if app
            .config
            .database_url
            .as_deref()
            .is_some_and(|url| url.starts_with("postgres"))
        {
            let retry_after = refused.headers.get("retry-after").cloned();
            refused.error(503, "ServiceUnavailable");
            assert!(retry_after.is_some(), "Retry-After is set");
            for answer in held {
                answer.expect(200);
            }
        }
        served.expect(200);
        let ready = app.client.get(app.url("/readyz")).send().await.unwrap();
        assert_eq!(ready.status(), 200);
    }

    on_both_backends!(with tight;
        a_request_that_takes_too_long_is_answered_503_and_undone,
        uploads_beyond_the_cap_are_refused
    );
    on_both_backends!(with tight_uploads; a_stalled_upload_is_cut_at_the_upload_timeout);
    on_both_backends!(with two_connections; a_saturated_pool_does_not_open_the_circuit);
    on_both_backends!(with four_uploads; one_tenants_stalled_uploads_do_not_refuse_another_tenant);
}

/// An object store that accepts connections and never answers: only the routes that keep
/// files suffer, each within the storage timeout and saying so; readiness, which is the
/// database's, stays 200.
mod stalled_storage {
    use std::time::{Duration, Instant};

    use tokio::net::TcpListener;

    use crate::fixture::World;
    use crate::support::{Backend, TestApp, fixture};

    /// A TCP server that accepts every connection and never reads or writes a byte; its
    /// S3 address, `http://127.0.0.1:PORT`.
    async fn stalled_s3() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((connection, _)) = listener.accept().await {
                held.push(connection);
            }
        });
        format!("http://{address}")
    }

    async fn storage_that_stalls_degrades_only_the_routes_that_use_it(backend: Backend) {
        let endpoint = stalled_s3().await;
        let storage = switchboard_storage::Storage::open_with_s3_options(
            "s3://stalled-bucket/objects",
            &[7u8; 32],
            "http://127.0.0.1:8080",
            &[
                ("aws_endpoint", endpoint.as_str()),
                ("aws_access_key_id", "AKIDEXAMPLE"),
                (
                    "aws_secret_access_key",
                    "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                ),
                ("aws_region", "us-east-1"),
                ("aws_allow_http", "true"),
                ("aws_virtual_hosted_style_request", "false"),
            ],
        )
        .unwrap()
        .with_timeout(Duration::from_secs(2));
        let app = TestApp::start_on(backend, crate::observability::metrics_on, Some(storage))
            .await
            .expect("an app");
        let w = World::seed(&app).await;
        let token = app.login(w.admin_a).await;
        let timeouts = |page: &str| {
            crate::observability::figure(
                page,
                "switchboard_storage_errors_total",
                &["kind=\"timeout\""],
            )
        };
        let before = timeouts(&crate::observability::scrape(&app).await);

        // Ready at once: every request needs the database, few need the store.
        let asked = Instant::now();
        let ready = app.client.get(app.url("/readyz")).send().await.unwrap();
        assert_eq!(ready.status(), 200, "readiness is the database's");
        assert!(
            asked.elapsed() < Duration::from_secs(1),
            "{:?}",
            asked.elapsed()
        );
        app.get("/v2/admin/extensions/", &token).await.expect(200);

        // An upload needs the store: answered 503 saying so, within its timeout (the
        // S3 client alone retries for minutes).
        let form = reqwest::multipart::Form::new()
            .text("name", "hold music")
            .part(
                "file",
                reqwest::multipart::Part::bytes(fixture("tone.mp3")).file_name("tone.mp3"),
            );
        let sent = Instant::now();
        let response = app
            .client
            .post(app.url("/v2/admin/media-files/"))
            .bearer_auth(&token)
            .multipart(form)
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .expect("the upload is answered within 30 s");
        let took = sent.elapsed();
        let answer = TestApp::answer(response).await;
        assert!(
            answer.headers.contains_key("retry-after"),
            "Retry-After is set"
        );
        let message = answer.body["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        answer.error(503, "ServiceUnavailable");
        assert!(message.contains("object storage"), "{message}");
        assert!(
            took < Duration::from_secs(8),
            "the upload was given up at the 2 s storage timeout, not {took:?}"
        );
        assert_eq!(app.count("media_files", None).await, 0, "nothing recorded");

        // Readiness did not change meanwhile.
        let ready = app.client.get(app.url("/readyz")).send().await.unwrap();
        assert_eq!(ready.status(), 200);
        // The storage errors are counted for the alert.
        let after = timeouts(&crate::observability::scrape(&app).await);
        assert!(after > before, "storage timeouts {before} -> {after}");
    }

    mod sqlite {
        async fn storage_that_stalls_degrades_only_the_routes_that_use_it() {
            super::storage_that_stalls_degrades_only_the_routes_that_use_it(
                crate::support::Backend::Sqlite,
            )
            .await;
        }

        switchboard_testing::tests!(storage_that_stalls_degrades_only_the_routes_that_use_it);
    }

    mod postgres {
        async fn storage_that_stalls_degrades_only_the_routes_that_use_it() {
            super::storage_that_stalls_degrades_only_the_routes_that_use_it(
                crate::support::Backend::Postgres,
            )
            .await;
        }

        switchboard_testing::tests!(
            needs switchboard_testing::POSTGRES;
            storage_that_stalls_degrades_only_the_routes_that_use_it
        );
    }
}
