//! The rate-limit middleware: every request counts against its access token (when it has
//! one) and its client address; over either limit it answers 429 with `Retry-After`.
//! Every answer carries the IETF `RateLimit-Limit`, `RateLimit-Remaining` and
//! `RateLimit-Reset` headers of the tighter of the two. Health probes are not limited.

use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::Digest;

use crate::error::ApiError;
use crate::limits::Decision;
use crate::state::AppState;

const WINDOW: Duration = Duration::from_secs(60);

fn token_key(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    // Keys hold a hash of the token, never the token itself.
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| hex::encode(&sha2::Sha256::digest(token.trim().as_bytes())[..16]))
}

fn set_headers(headers: &mut HeaderMap, decision: &Decision) {
    headers.insert("ratelimit-limit", HeaderValue::from(decision.limit));
    headers.insert("ratelimit-remaining", HeaderValue::from(decision.remaining));
    headers.insert(
        "ratelimit-reset",
        HeaderValue::from(decision.reset_after_secs),
    );
}

/// Counts the request, refusing it over a limit.
pub async fn enforce(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if path == "/healthz" || path == "/readyz" {
        return next.run(request).await;
    }
    let settings = &state.settings;
    let namespace = &settings.rate_limit_namespace;
    let (parts, body) = request.into_parts();
    let address = crate::client::limit_key(&crate::client::of(&parts));
    let mut decisions = vec![
        state
            .limiter
            .hit(
                &format!("{namespace}addr:{address}"),
                settings.rate_limit_per_address,
                WINDOW,
            )
            .await,
    ];
    if let Some(token) = token_key(&parts.headers) {
        decisions.push(
            state
                .limiter
                .hit(
                    &format!("{namespace}token:{token}"),
                    settings.rate_limit_per_token,
                    WINDOW,
                )
                .await,
        );
    }
    // The tightest decision speaks: a refusal first, else the fewest remaining.
    let Some(decision) = decisions
        .into_iter()
        .min_by_key(|d| (d.allowed, d.remaining))
    else {
        return next.run(Request::from_parts(parts, body)).await;
    };
    let mut response = if decision.allowed {
        next.run(Request::from_parts(parts, body)).await
    } else {
        crate::metrics::refused("rate_limit");
        ApiError::too_many_requests(decision.reset_after_secs).into_response()
    };
    set_headers(response.headers_mut(), &decision);
    response
}
