//! The client's address, for failed-login counting, rate limits and the audit trail: the
//! peer of the TCP connection (a deployment behind a proxy should make the proxy the only
//! peer and rate-limit there too).

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

/// The client's IP address as text (`unknown` when the server was not given connection
/// information, as in some tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientAddress(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientAddress(of(parts)))
    }
}

/// The client address of a request's parts.
pub fn of(parts: &Parts) -> String {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(address)| address.ip().to_canonical().to_string())
        .unwrap_or_else(|| "unknown".to_owned())
}
