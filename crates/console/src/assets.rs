//! The console's one stylesheet, embedded in the binary and served under a name carrying
//! a hash of its content: a new build's file has a new name, so browsers may keep each
//! one for good (no CDN, nothing fetched from anywhere else); served by
//! [`crate::chrome::serve`].

use std::sync::LazyLock;

use sha2::Digest;

/// The stylesheet's content.
pub(crate) const CSS: &str = include_str!("../assets/console.css");

/// The stylesheet's file name: `console.<16 hex digits of its SHA-256>.css`.
pub(crate) static CSS_NAME: LazyLock<String> = LazyLock::new(|| {
    let digest = sha2::Sha256::digest(CSS.as_bytes());
    format!("console.{}.css", hex::encode(&digest[..8]))
});

/// The stylesheet's path, for the pages' `<link>`.
pub(crate) fn css_path() -> String {
    format!("/console/assets/{}", CSS_NAME.as_str())
}
