//! A webhook receiver for the tests: a real HTTP server on loopback that records every
//! request and answers each path from a script (200 once the script runs out).

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// One request as received.
#[derive(Clone, Debug)]
pub struct Received {
    /// The path.
    pub path: String,
    /// The headers.
    pub headers: HeaderMap,
    /// The raw body.
    pub body: Bytes,
    /// When it arrived.
    pub at: Instant,
}

impl Received {
    /// A header's value ("" when absent).
    pub fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

/// An answer to give.
#[derive(Clone, Debug)]
pub struct Reply {
    /// Status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(&'static str, String)>,
    /// Body.
    pub body: String,
}

impl Reply {
    /// A status with a short body.
    pub fn status(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: format!("answered {status}"),
        }
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &'static str, value: &str) -> Reply {
        self.headers.push((name, value.to_owned()));
        self
    }

    /// Replaces the body.
    pub fn with_body(mut self, body: String) -> Reply {
        self.body = body;
        self
    }
}

#[derive(Default)]
struct Shared {
    received: Mutex<Vec<Received>>,
    script: Mutex<HashMap<String, VecDeque<Reply>>>,
    always: Mutex<HashMap<String, Reply>>,
}

/// The running receiver.
pub struct Receiver {
    /// Where it listens.
    pub address: SocketAddr,
    shared: Arc<Shared>,
    server: tokio::task::JoinHandle<()>,
}

async fn receive(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    shared.received.lock().unwrap().push(Received {
        path: path.clone(),
        headers,
        body,
        at: Instant::now(),
    });
    let scripted = shared
        .script
        .lock()
        .unwrap()
        .get_mut(&path)
        .and_then(VecDeque::pop_front);
    let reply = scripted
        .or_else(|| shared.always.lock().unwrap().get(&path).cloned())
        .unwrap_or_else(|| Reply::status(200));
    let mut response = (
        StatusCode::from_u16(reply.status).unwrap(),
        reply.body.clone(),
    )
        .into_response();
    for (name, value) in reply.headers {
        response.headers_mut().insert(name, value.parse().unwrap());
    }
    response
}

impl Receiver {
    /// Starts a receiver on `127.0.0.1:0`.
    pub async fn start() -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let shared = Arc::new(Shared::default());
        let app = axum::Router::new()
            .fallback(receive)
            .with_state(shared.clone());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Receiver {
            address,
            shared,
            server,
        }
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// Answers the next requests to `path` with `replies`, in order.
    pub fn script(&self, path: &str, replies: Vec<Reply>) {
        self.shared
            .script
            .lock()
            .unwrap()
            .entry(path.to_owned())
            .or_default()
            .extend(replies);
    }

    /// Answers every (unscripted) request to `path` with `reply`.
    pub fn always(&self, path: &str, reply: Reply) {
        self.shared
            .always
            .lock()
            .unwrap()
            .insert(path.to_owned(), reply);
    }

    /// The requests to `path` so far.
    pub fn received(&self, path: &str) -> Vec<Received> {
        self.shared
            .received
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }

    /// Every request so far.
    pub fn all(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap().clone()
    }

    /// Waits (generously: the machine may be loaded) until `path` has had `count`
    /// requests, answering them.
    pub async fn wait_for(&self, path: &str, count: usize) -> Vec<Received> {
        let received = eventually(Duration::from_secs(30), || {
            let received = self.received(path);
            (received.len() >= count).then_some(received)
        })
        .await;
        received.unwrap_or_else(|| {
            panic!(
                "{path} received {} requests, not {count}",
                self.received(path).len()
            )
        })
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// Polls `check` every 20 ms until it answers something or `deadline` passes.
pub async fn eventually<T>(deadline: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let until = Instant::now() + deadline;
    loop {
        if let Some(found) = check() {
            return Some(found);
        }
        if Instant::now() > until {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
