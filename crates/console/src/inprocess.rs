//! Requests sent to the API application itself, in process: no listener, no network, yet
//! every request passes the same middleware, handlers, rules, audit trail and webhook
//! events as a client's. The console speaks to the API this way, with the signed-in
//! person's own token and the browser's address; so does the demo's seeding.

use std::convert::Infallible;
use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, header};
use axum::response::Response;
use serde_json::Value;
use tower::ServiceExt;
use tower::util::BoxCloneSyncService;

/// The API application as a service answering requests in process: the binary makes it
/// (`switchboard_api::in_process`), with media links answered as the service's own, which
/// the console streams from its own origin.
pub type App = BoxCloneSyncService<Request<Body>, Response, Infallible>;

/// The headers a trusted proxy may have written that name the client: passed on as the
/// browser's request carried them, so the API settles on the same client address (its
/// own rules decide whether to believe them).
const FORWARDED: [HeaderName; 2] = [
    HeaderName::from_static("x-forwarded-for"),
    HeaderName::from_static("forwarded"),
];

/// The API application, ready to answer requests in process.
#[derive(Clone)]
pub struct InProcess {
    app: App,
}

/// Who a request comes from: the connection's peer and the forwarding headers it sent.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The TCP peer of the browser's (or the seeding's) connection.
    pub peer: SocketAddr,
    /// The forwarding headers of the browser's request, as received.
    pub forwarded: HeaderMap,
}

impl Origin {
    /// The loopback, for requests the service makes of itself (the demo's seeding).
    pub fn local() -> Origin {
        Origin {
            peer: SocketAddr::from(([127, 0, 0, 1], 0)),
            forwarded: HeaderMap::new(),
        }
    }

    /// The origin of a browser request from `peer` with `headers`.
    pub fn of(peer: SocketAddr, headers: &HeaderMap) -> Origin {
        let mut forwarded = HeaderMap::new();
        for name in FORWARDED {
            for value in headers.get_all(&name) {
                forwarded.append(name.clone(), value.clone());
            }
        }
        Origin { peer, forwarded }
    }
}

/// An API answer: its status, headers and body.
#[derive(Debug)]
pub struct Answer {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body's bytes.
    pub body: bytes::Bytes,
}

impl Answer {
    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

impl InProcess {
    /// Requests to `app`, the API application (its routes only).
    pub fn new(app: App) -> InProcess {
        InProcess { app }
    }

    /// Sends one request from `origin`, with `token` as its bearer token when given.
    pub async fn send(
        &self,
        origin: &Origin,
        method: Method,
        path: &str,
        token: Option<&str>,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> anyhow::Result<Answer> {
        let response = self
            .respond(origin, method, path, token, content_type, body)
            .await?;
        let (parts, body) = response.into_parts();
        let body = axum::body::to_bytes(body, usize::MAX).await?;
        Ok(Answer {
            status: parts.status,
            headers: parts.headers,
            body,
        })
    }

    /// Sends one request as [`InProcess::send`] does, answering the API's response with
    /// its body not yet read: an export is passed on as it streams, never held whole.
    pub async fn respond(
        &self,
        origin: &Origin,
        method: Method,
        path: &str,
        token: Option<&str>,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> anyhow::Result<Response> {
        let mut headers = HeaderMap::new();
        if let Some(content_type) = content_type {
            headers.insert(header::CONTENT_TYPE, HeaderValue::try_from(content_type)?);
        }
        self.respond_with(origin, method, path, token, headers, body)
            .await
    }

    /// Sends one request as [`InProcess::respond`] does, with `headers` besides (a
    /// player's `Range`).
    pub async fn respond_with(
        &self,
        origin: &Origin,
        method: Method,
        path: &str,
        token: Option<&str>,
        headers: HeaderMap,
        body: Vec<u8>,
    ) -> anyhow::Result<Response> {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .extension(ConnectInfo(origin.peer));
        if let Some(sent) = request.headers_mut() {
            sent.extend(origin.forwarded.clone());
            sent.extend(headers);
            if let Some(token) = token {
                sent.insert(
                    header::AUTHORIZATION,
                    HeaderValue::try_from(format!("Bearer {token}"))?,
                );
            }
        }
        // A task of its own, as the server gives each connection: the request's middleware
        // and handler run on a fresh stack rather than nested inside the caller's futures
        // (which, in a debug build, overflowed a 2 MiB thread stack).
        let answered = self.app.clone().oneshot(request.body(Body::from(body))?);
        let response = tokio::spawn(answered).await??;
        Ok(response)
    }
}
