//! What every request goes through around its handler, in one place and in this order:
//! its log span (method, route template, path, request id), its client's address, the
//! lingering read of what the handler leaves of its body, the rate limits, the time and
//! upload bounds, and the audit trail's acting context; once answered, one log line and
//! the request metrics.
//!
//! One middleware rather than one per concern: every `from_fn` layer clones the services
//! inside it and boxes a future on every request, and six of them in a row cost more than
//! the concerns themselves (issue 17, docs/benchmarks.md). Each concern stays in its own
//! module ([`crate::client`], [`crate::linger`], [`crate::rate_limit`], [`crate::guard`],
//! [`crate::metrics`]) as a function this one calls.

use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::Instrument;

use crate::paths::RouteTemplate;
use crate::state::AppState;

/// Admits `request` to its handler and sees its answer out (see the module's text).
pub async fn admit(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let route = request.extensions().get::<RouteTemplate>().cloned();
    let span = request_span(&request, route.as_ref());
    let response = handle(&state, request, next).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    span.in_scope(|| log_answer(&response, elapsed));
    crate::metrics::record_request(&method, route.as_ref(), response.status(), elapsed);
    response
}

/// The request's handling, inside its span.
async fn handle(state: &AppState, mut request: Request, next: Next) -> Response {
    crate::client::resolve(state, &mut request);
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

/// The span every line logged for `request` carries: the route template (not only the
/// path, so ids stay out of the log's keys) and the request id.
fn request_span(request: &Request, route: Option<&RouteTemplate>) -> tracing::Span {
    let id = request
        .headers()
        .get(crate::REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    tracing::info_span!(
        "request",
        method = %request.method(),
        route = route.map(RouteTemplate::as_str),
        uri = %request.uri().path(),
        request_id = %id
    )
}

/// The access log's line for an answered request: at `info`, or `error` for a server
/// error.
fn log_answer(response: &Response, elapsed: Duration) {
    let status = response.status().as_u16();
    let latency_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    if response.status().is_server_error() {
        tracing::error!(status, latency_ms, "answered");
    } else {
        tracing::info!(status, latency_ms, "answered");
    }
}

