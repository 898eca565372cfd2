//! The rate-limit middleware: every request counts against its access token (when it has
//! one) and its client address; over either limit it answers 429 with `Retry-After`.
//! Every answer carries the IETF `RateLimit-Limit`, `RateLimit-Remaining` and
//! `RateLimit-Reset` headers of the tighter of the two. Health probes are not limited.

use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::limits::Decision;
use crate::state::AppState;

const WINDOW: Duration = Duration::from_secs(60);

/// The bucket name of the request's bearer token: a keyed SipHash-1-3 (128 bits) of it,
/// never the token itself. Not SHA-256: hashing a token of a few hundred bytes with it was
/// a tenth of an authenticated GET's instructions (`bench/hot_path_instructions.py`), and
/// a key that never leaves the deployment needs no more than a keyed hash.
fn token_key(headers: &HeaderMap, key: &[u8; 16]) -> Option<String> {
    use std::hash::Hasher as _;
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let mut hasher = siphasher::sip128::SipHasher13::new_with_key(key);
    hasher.write(token.trim().as_bytes());
    Some(hex::encode(
        siphasher::sip128::Hasher128::finish128(&hasher).as_bytes(),
    ))
}

/// Counts `request` against its token's and its client address's limits: the tighter
/// decision (for the answer's headers), or the 429 answer when over either. Health probes
/// are not counted (`None`).
///
/// The keys are read from the request before anything is awaited, so the counting does
/// not hold the request (whose body may not be shared between threads).
pub fn count<'a>(
    state: &'a AppState,
    request: &Request,
) -> impl Future<Output = Result<Option<Decision>, Response>> + Send + use<'a> {
    let path = request.uri().path();
    let probe = path == "/healthz" || path == "/readyz";
    let settings = &state.settings;
    let namespace = &settings.rate_limit_namespace;
    let address = format!(
        "{namespace}addr:{}",
        crate::client::limit_key_of(request.extensions())
    );
    let token = token_key(request.headers(), &settings.rate_limit_hash_key)
        .map(|token| format!("{namespace}token:{token}"));
    async move {
        if probe {
            return Ok(None);
        }
        let mut decision = state
            .limiter
            .hit(&address, settings.rate_limit_per_address, WINDOW)
            .await;
        if let Some(token) = token {
            let by_token = state
                .limiter
                .hit(&token, settings.rate_limit_per_token, WINDOW)
                .await;
            // The tightest decision speaks: a refusal first, else the fewest remaining.
            if (by_token.allowed, by_token.remaining) < (decision.allowed, decision.remaining) {
                decision = by_token;
            }
        }
        if decision.allowed {
            return Ok(Some(decision));
        }
        crate::metrics::refused("rate_limit");
        let mut refusal = ApiError::too_many_requests(decision.reset_after_secs).into_response();
        set_headers(refusal.headers_mut(), &decision);
        Err(refusal)
    }
}

const RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
const RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
const RATELIMIT_RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

/// Sets the `RateLimit-*` headers of `decision` on an answer.
pub fn set_headers(headers: &mut HeaderMap, decision: &Decision) {
    headers.insert(RATELIMIT_LIMIT, HeaderValue::from(decision.limit));
    headers.insert(RATELIMIT_REMAINING, HeaderValue::from(decision.remaining));
    headers.insert(
        RATELIMIT_RESET,
        HeaderValue::from(decision.reset_after_secs),
    );
}

/// The rate limit as a middleware of its own: what [`crate::admission`] does about
/// limits, alone, for `bench/rate_limit_cost.rs` to measure.
pub async fn enforce(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match count(&state, &request).await {
        Err(refusal) => refusal,
        Ok(decision) => {
            let mut response = next.run(request).await;
            if let Some(decision) = decision {
                set_headers(response.headers_mut(), &decision);
            }
            response
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bearer(token: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            format!("Bearer {token}").parse().expect("a header value"),
        );
        headers
    }

    #[test]
    fn each_token_has_its_own_bucket_named_without_the_token() {
        let key = [7; 16];
        let a = token_key(&bearer("eyJ.token-a.sig"), &key).expect("a bearer token");
        assert_eq!(a.len(), 32, "128 bits in hex: {a}");
        assert!(!a.contains("token-a"));
        // The same token, however spelled around, is the same bucket in every process.
        assert_eq!(
            token_key(&bearer(" eyJ.token-a.sig "), &key).as_ref(),
            Some(&a)
        );
        let mut lower = HeaderMap::new();
        lower.insert(
            header::AUTHORIZATION,
            "bearer eyJ.token-a.sig".parse().expect("a header value"),
        );
        assert_eq!(token_key(&lower, &key).as_ref(), Some(&a));
        // Another token, or another deployment's key: another bucket.
        assert_ne!(
            token_key(&bearer("eyJ.token-b.sig"), &key).as_ref(),
            Some(&a)
        );
        assert_ne!(
            token_key(&bearer("eyJ.token-a.sig"), &[8; 16]).as_ref(),
            Some(&a)
        );
        // No bearer token, no token bucket (the address's limit still counts).
        let mut basic = HeaderMap::new();
        basic.insert(
            header::AUTHORIZATION,
            "Basic dXNlcjpwdw==".parse().expect("a header value"),
        );
        assert_eq!(token_key(&basic, &key), None);
        assert_eq!(token_key(&HeaderMap::new(), &key), None);
    }
}
