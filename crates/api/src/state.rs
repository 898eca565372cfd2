//! What every handler shares: the database, the token and password services, settings.

use std::sync::Arc;

use switchboard_db::Db;

use crate::auth::password::Passwords;
use crate::auth::token::Tokens;

/// Settings the HTTP layer needs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The base URL the service hands out in links.
    pub public_url: String,
    /// Largest accepted request body, in bytes.
    pub body_limit: usize,
    /// How long a signed media URL stays valid.
    pub media_url_ttl: std::time::Duration,
}

/// Shared state of the application.
#[derive(Clone, Debug)]
pub struct AppState {
    /// The database.
    pub db: Db,
    /// Access tokens.
    pub tokens: Tokens,
    /// Password hashing.
    pub passwords: Passwords,
    /// Object storage for audio and media.
    pub storage: switchboard_storage::Storage,
    /// Settings.
    pub settings: Arc<Settings>,
}
