//! The console's one stylesheet, embedded in the binary and served under a name carrying
//! a hash of its content: a new build's file has a new name, so browsers may keep each
//! one for good (no CDN, nothing fetched from anywhere else).

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use sha2::Digest;

use crate::pages::not_found;

/// The stylesheet's content.
const CSS: &str = include_str!("../assets/console.css");

/// The stylesheet's file name: `console.<16 hex digits of its SHA-256>.css`.
static CSS_NAME: LazyLock<String> = LazyLock::new(|| {
    let digest = sha2::Sha256::digest(CSS.as_bytes());
    format!("console.{}.css", hex::encode(&digest[..8]))
});

/// The stylesheet's path, for the pages' `<link>`.
pub(crate) fn css_path() -> String {
    format!("/console/assets/{}", CSS_NAME.as_str())
}

/// `GET /console/assets/{name}`: the stylesheet under its current name, 404 otherwise.
pub(crate) async fn serve(Path(name): Path<String>) -> Response {
    if name != *CSS_NAME {
        return not_found().await;
    }
    let mut response = CSS.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/css; charset=utf-8"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    response
}
