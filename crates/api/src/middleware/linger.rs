//! Reading what a refused request left unread, so that its client sees the refusal.
//!
//! A handler may answer before it has read the whole body: a part over its limit, a
//! body over the route's limit, an unknown part, a rate limit. Hyper then closes the
//! connection with the rest of the body unread, and the kernel answers those unread
//! bytes with a reset, which can reach the client before the answer does: the client
//! sees "connection reset" instead of the 413 or 400 it was sent. Reading (and
//! dropping) a bounded remainder before answering lets the answer through, the way
//! nginx's lingering close does, and keeps the connection usable: a client that wrote
//! its whole body into the socket puts the connection back in its pool, and would send
//! its next request into a connection the service was closing. A remainder too large to
//! read is answered with `Connection: close`, so the client does not reuse it.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use http_body::{Body as HttpBody, Frame, SizeHint};

/// At most this much of an unread remainder is read and dropped; past it the connection
/// closes as before (a client sending that much more after a refusal gets a reset).
const LINGER_BYTES: usize = 8 * 1024 * 1024;

/// At most this long is spent reading it, so a stalled client cannot hold the answer.
const LINGER_TIME: Duration = Duration::from_secs(5);

/// The request body, kept where this middleware can still reach it after the handler.
type Slot = Arc<Mutex<Option<Body>>>;

/// A body read through the shared slot: the handler reads it as usual, and whatever it
/// leaves stays in the slot.
struct SharedBody(Slot);

impl HttpBody for SharedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match slot.as_mut() {
            Some(body) => Pin::new(body).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        let slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.as_ref().is_none_or(HttpBody::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        let slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.as_ref().map(HttpBody::size_hint).unwrap_or_default()
    }
}

/// The part of a request's body its handler may leave unread, kept for [`Remainder::drain`].
pub struct Remainder(Option<Slot>);

/// `request` with its body read through a slot that keeps whatever the handler leaves
/// (nothing to keep for a request without a body).
pub fn share_body(request: Request) -> (Request, Remainder) {
    let (parts, body) = request.into_parts();
    if body.is_end_stream() {
        return (Request::from_parts(parts, body), Remainder(None));
    }
    let slot: Slot = Arc::new(Mutex::new(Some(body)));
    let shared = Body::new(SharedBody(slot.clone()));
    (Request::from_parts(parts, shared), Remainder(Some(slot)))
}

impl Remainder {
    /// Reads what is left of the body (bounded in bytes and time) before `response` goes
    /// out; if the rest could not be read, the answer says the connection closes.
    pub async fn drain(self, mut response: Response) -> Response {
        let Some(slot) = self.0 else {
            return response;
        };
        let rest = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(rest) = rest.filter(|body| !body.is_end_stream()) {
            let read = tokio::time::timeout(LINGER_TIME, drain(rest)).await;
            if !matches!(read, Ok(true)) {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
        }
        response
    }
}

/// Reads and drops up to [`LINGER_BYTES`] of `body`, answering whether it reached the end.
async fn drain(mut body: Body) -> bool {
    let mut read = 0;
    while read <= LINGER_BYTES {
        let frame = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await;
        match frame {
            Some(Ok(frame)) => read += frame.data_ref().map_or(0, Bytes::len),
            Some(Err(_)) => return false,
            None => return true,
        }
    }
    false
}
