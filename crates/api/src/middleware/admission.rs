//! What every request goes through around its handler, in one place and in this order:
//! its log span (its request id), its client's address, the
//! lingering read of what the handler leaves of its body, the rate limits, the time and
//! upload bounds, and the audit trail's acting context; once answered, `Connection:
//! close` while the process drains ([`crate::drain`]), the count of its database
//! statements when asked for (`SWITCHBOARD_SERVER_TIMING`), one log line (with the
//! client's address and, once authenticated, the user and tenant: [`Identified`]) and the
//! request
//! metrics.
//!
//! One middleware rather than one per concern: every `from_fn` layer clones the services
//! inside it and boxes a future on every request, and six of them in a row cost more than
//! the concerns themselves (issue 17, docs/benchmarks.md). Each concern stays in its own
//! module ([`crate::client`], [`crate::linger`], [`crate::rate_limit`], [`crate::guard`],
//! [`crate::metrics`]) as a function this one calls.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::Instrument;

use crate::paths::RouteTemplate;
use crate::state::AppState;

/// Admits `request` to its handler and sees its answer out (see the module's text).
pub async fn admit(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    crate::client::resolve(
        &state.settings.trusted_proxies,
        state.settings.forwarded_header,
        &mut request,
    );
    let identified = Identified::default();
    request.extensions_mut().insert(identified.clone());
    let described = Described {
        method: request.method().clone(),
        route: request.extensions().get::<RouteTemplate>().cloned(),
        path: request.uri().path().to_owned(),
        client: crate::client::address(request.extensions()),
        identified,
    };
    let span = request_span(&request);
    let (mut response, statements) =
        switchboard_db::statements::counted(handle(&state, request, next).instrument(span.clone()))
            .await;
    if state.settings.server_timing {
        server_timing(&mut response, statements);
    }
    if state.draining.is_draining() {
        // The client's next request goes to a connection of its own (on another process,
        // once the balancer has seen `/readyz`), not into this one's close.
        response.headers_mut().insert(
            axum::http::header::CONNECTION,
            axum::http::HeaderValue::from_static("close"),
        );
    }
    let elapsed = started.elapsed();
    span.in_scope(|| log_answer(&described, &response, elapsed));
    crate::metrics::record_request(
        &described.method,
        described.route.as_ref(),
        response.status(),
        elapsed,
    );
    response
}

/// Says in the answer how many statements the request sent to the database
/// (`Server-Timing: db;desc="3 statements"`, which a browser's developer tools show beside
/// the request): what the statement budget of every read is held to (issue 32).
fn server_timing(response: &mut Response, statements: u32) {
    if let Ok(value) =
        axum::http::HeaderValue::try_from(format!("db;desc=\"{statements} statements\""))
    {
        response.headers_mut().append("server-timing", value);
    }
}

/// The request's handling, inside its span.
async fn handle(state: &AppState, request: Request, next: Next) -> Response {
    let (request, remainder) = crate::linger::share_body(request);
    let response = match crate::rate_limit::count(state, &request).await {
        Err(refusal) => refusal,
        Ok(decision) => {
            let mut response = match crate::guard::bound(state, &request) {
                Err(refusal) => refusal.into_response(),
                Ok(bound) => {
                    // The handler's writes are audited with the client's address (and
                    // with the user, once the `Caller` extractor has authenticated it).
                    let address = crate::client::address(request.extensions());
                    bound
                        .run(switchboard_db::audit::acting(address, next.run(request)))
                        .await
                }
            };
            if let Some(decision) = decision {
                crate::rate_limit::set_headers(response.headers_mut(), &decision);
            }
            response
        }
    };
    remainder.drain(response).await
}

/// The span every line logged for `request` carries: its request id, so that what a
/// handler logs can be told apart from the lines of other requests. (The rest of the
/// request's description is written once, on its access-log line.)
fn request_span(request: &Request) -> tracing::Span {
    let id = request
        .headers()
        .get(super::request_id::REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    tracing::info_span!("request", request_id = %id)
}

/// The access log's line for an answered request: method, route template (so ids stay
/// out of the log's keys), path, status, latency, the client's address and — once the
/// request authenticated — the user and their tenant (none for platform and partner
/// admins), at `info`; a server error at `error`, the first of its kind (method, route,
/// status) in a window only, its repeats summarised when the window ends
/// ([`crate::repeats`]).
fn log_answer(request: &Described, response: &Response, elapsed: Duration) {
    let status = response.status().as_u16();
    let latency_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    let route = request.route.as_ref().map(RouteTemplate::as_str);
    let (method, uri, client) = (&request.method, &request.path, &request.client);
    let who = request.identified.0.get();
    let user = who.map(|w| w.user);
    let tenant = who.and_then(|w| w.tenant);
    if !response.status().is_server_error() {
        tracing::info!(%method, route, %uri, status, latency_ms, %client, user, tenant, "answered");
        return;
    }
    let kind = format!(
        "answered {method} {} {status}",
        route.unwrap_or("unmatched")
    );
    let (summary_method, summary_route) = (method.clone(), route.map(str::to_owned));
    let first = crate::repeats::first_in_window(kind, move |repeats| {
        let seconds = crate::repeats::WINDOW.as_secs();
        tracing::error!(
            method = %summary_method,
            route = summary_route.as_deref(),
            status,
            repeats,
            "{repeats} more like this in the last {seconds} seconds"
        );
    });
    if first {
        tracing::error!(%method, route, %uri, status, latency_ms, %client, user, tenant, "answered");
    }
}

/// Who a request authenticated as, for its access-log line: filled by the
/// [`Caller`](crate::auth::Caller) extractor (inside the handler) through the request's
/// extensions, read by [`admit`] once the request is answered.
#[derive(Clone, Debug, Default)]
pub struct Identified(Arc<OnceLock<Who>>);

/// The user of a request and the one tenant it is bound to.
#[derive(Clone, Copy, Debug)]
struct Who {
    user: i64,
    tenant: Option<i64>,
}

impl Identified {
    /// Notes the request of `extensions` as `user`'s, bound to `tenant` (nothing for a
    /// request not admitted by [`admit`]).
    pub fn note(extensions: &axum::http::Extensions, user: i64, tenant: Option<i64>) {
        if let Some(identified) = extensions.get::<Identified>() {
            let _ = identified.0.set(Who { user, tenant });
        }
    }
}

/// What the access log and the metrics say of a request, read before it is handled.
struct Described {
    method: axum::http::Method,
    route: Option<RouteTemplate>,
    path: String,
    client: String,
    identified: Identified,
}
