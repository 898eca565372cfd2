//! The request id: taken from the client when it is fit for a log line, else from a W3C
//! `traceparent`'s trace id, else made; echoed in the answer and written in every log
//! line of the request.

use axum::extract::Request;
use axum::http::HeaderName;

/// The request id header, taken from the client or made, echoed and logged.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The W3C trace context header, whose trace id becomes the request id when the client
/// sent none of its own.
pub const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");

/// The trace id of a W3C `traceparent` value (`00-<32 hex>-<16 hex>-<2 hex>`, lower-case
/// hex, neither id all zeros), or `None` for anything else.
fn trace_id(traceparent: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(traceparent).ok()?;
    let mut parts = text.split('-');
    let (version, trace, parent, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |s: &str, len: usize| {
        s.len() == len
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    // Version 00 has exactly four parts; a later version may append more.
    let known = (version == "00" && parts.next().is_none()) || (version != "00" && version != "ff");
    let valid = known
        && hex(version, 2)
        && hex(trace, 32)
        && hex(parent, 16)
        && hex(flags, 2)
        && trace.bytes().any(|b| b != b'0')
        && parent.bytes().any(|b| b != b'0');
    valid.then_some(trace)
}

/// `request` without a client's request id that is not 1 to 128 of `A-Z a-z 0-9 . _ : -`
/// (one is made instead): the id goes into every log line of the request, and quotes or
/// spaces there could forge a text line's fields. Without a request id of the client's,
/// a valid `traceparent`'s trace id is the request's id, so the log lines of a request
/// are found by the trace that reached the service (issue 30).
pub(crate) fn accept_request_id(mut request: Request) -> Request {
    let acceptable = |id: &[u8]| {
        (1..=128).contains(&id.len())
            && id
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
    };
    if request
        .headers()
        .get(REQUEST_ID)
        .is_some_and(|id| !acceptable(id.as_bytes()))
    {
        request.headers_mut().remove(REQUEST_ID);
    }
    if !request.headers().contains_key(REQUEST_ID)
        && let Some(trace) = request
            .headers()
            .get(TRACEPARENT)
            .and_then(|value| trace_id(value.as_bytes()))
            .and_then(|trace| axum::http::HeaderValue::from_str(trace).ok())
    {
        request.headers_mut().insert(REQUEST_ID, trace);
    }
    request
}
