//! What every handler shares: the database, the token and password services, settings.

use std::sync::Arc;

use switchboard_db::Db;

use crate::auth::password::Passwords;
use crate::auth::token::Tokens;

/// Uploads that may run at once unless configured.
pub const DEFAULT_UPLOADS: usize = 8;

/// Settings the HTTP layer needs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The base URL the service hands out in links.
    pub public_url: String,
    /// Largest accepted request body, in bytes.
    pub body_limit: usize,
    /// How long a signed media URL stays valid.
    pub media_url_ttl: std::time::Duration,
    /// How long an MMS media URL stays valid: carriers fetch it when the message goes out,
    /// which may be a while after the upload.
    pub mms_url_ttl: std::time::Duration,
    /// Bytes of MMS media a tenant may hold (unless it has a quota of its own).
    pub mms_quota_bytes: i64,
    /// Seconds an MMS media upload is kept before retention removes it.
    pub mms_retention_seconds: i64,
    /// Leases of one engine job that may run out without a result before the job is
    /// given up (its record failed) instead of being claimed again.
    pub engine_max_leases: i64,
    /// How long a session (and its refresh tokens) lives without a new login.
    pub refresh_ttl: std::time::Duration,
    /// Failed logins of one account within [`Settings::failure_window`] before it is
    /// locked.
    pub lockout_threshold: i64,
    /// The window failed logins are counted in.
    pub failure_window: std::time::Duration,
    /// The first lock's length; each further failure doubles it, up to
    /// [`Settings::lockout_max`].
    pub lockout_base: std::time::Duration,
    /// The longest lock, so an attacker cannot lock a user out for long.
    pub lockout_max: std::time::Duration,
    /// Failed logins from one client address within the window before it is refused.
    pub address_threshold: i64,
    /// Requests per minute per access token.
    pub rate_limit_per_token: u64,
    /// Requests per minute per client address.
    pub rate_limit_per_address: u64,
    /// Prefix of rate-limit keys, to share one Redis among several deployments.
    pub rate_limit_namespace: String,
    /// The key of the tokens' hashes in rate-limit keys: derived from the signing key, so
    /// every process of one deployment names a token's bucket alike, and nobody without
    /// it can make one token's bucket another's.
    pub rate_limit_hash_key: [u8; 16],
    /// The telephony engine's bearer token for `/v2/ingest/…`, when configured.
    pub ingest_token: Option<String>,
    /// How long a response may wait for its client to read before the connection closes.
    pub write_stall: std::time::Duration,
    /// Longest a request (not an upload) may take to answer; 503 beyond.
    pub request_timeout: std::time::Duration,
    /// Longest an upload may take, its body included; 503 beyond (a client trickling bytes
    /// holds an upload slot no longer than this).
    pub upload_timeout: std::time::Duration,
    /// Uploads that may run at once, shared fairly between tenants; the next is refused
    /// with 503 (see `crate::middleware::guard`).
    pub upload_slots: Arc<crate::middleware::slots::UploadSlots>,
    /// The reverse proxies whose `Forwarded` / `X-Forwarded-For` name the client (see
    /// `crate::client`); empty: the TCP peer is the client.
    pub trusted_proxies: Arc<[ipnet::IpNet]>,
    /// The header those proxies write the client's address into.
    pub forwarded_header: crate::client::ForwardedHeader,
    /// Where `/metrics` is served (a listener of its own, never the public port); off
    /// when `None`.
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// Whether each answer says how many database statements it took (`Server-Timing`,
    /// see [`crate::middleware::admission`]): for measuring reads, off by default since it tells a
    /// client how much work its request was.
    pub server_timing: bool,
}

impl Settings {
    /// Settings for `public_url` with every security default.
    pub fn new(public_url: String) -> Settings {
        Settings {
            public_url,
            body_limit: 2 * 1024 * 1024,
            media_url_ttl: std::time::Duration::from_secs(900),
            mms_url_ttl: std::time::Duration::from_secs(7 * 24 * 3600),
            mms_quota_bytes: 1024 * 1024 * 1024,
            mms_retention_seconds: 30 * 24 * 3600,
            engine_max_leases: 5,
            refresh_ttl: std::time::Duration::from_secs(30 * 24 * 3600),
            lockout_threshold: 5,
            failure_window: switchboard_db::security::FAILURE_WINDOW,
            lockout_base: std::time::Duration::from_secs(30),
            lockout_max: std::time::Duration::from_secs(15 * 60),
            address_threshold: 50,
            rate_limit_per_token: 1200,
            rate_limit_per_address: 6000,
            rate_limit_namespace: String::new(),
            rate_limit_hash_key: [0; 16],
            ingest_token: None,
            write_stall: std::time::Duration::from_secs(30),
            request_timeout: std::time::Duration::from_secs(30),
            upload_timeout: std::time::Duration::from_secs(300),
            upload_slots: crate::middleware::slots::UploadSlots::new(DEFAULT_UPLOADS),
            trusted_proxies: Arc::from([]),
            forwarded_header: crate::client::ForwardedHeader::XForwardedFor,
            metrics_listen: None,
            server_timing: false,
        }
    }
}

/// Shared state of the application: a handle to one [`Shared`].
///
/// Every request clones the state several times (once per middleware holding it, once
/// per `State` extractor), so a clone must cost one reference count, not a copy of the
/// token keys, the pools' handles and the rest (it once cost about 14% of the CPU time
/// of an authenticated GET: issue 17).
#[derive(Clone, Debug)]
pub struct AppState(Arc<Shared>);

impl AppState {
    /// The handle to `shared`.
    pub fn new(shared: Shared) -> Self {
        AppState(Arc::new(shared))
    }

    /// The parts to change before serving (a test swapping the object store): the
    /// handle's own copy when others share it.
    pub fn shared_mut(&mut self) -> &mut Shared {
        Arc::make_mut(&mut self.0)
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What every request and worker of the application shares.
#[derive(Clone, Debug)]
pub struct Shared {
    /// The database.
    pub db: Db,
    /// Access tokens.
    pub tokens: Tokens,
    /// The access tokens this process has verified (see [`crate::auth::verified`]).
    pub verified_tokens: Arc<crate::auth::verified::VerifiedTokens>,
    /// Password hashing.
    pub passwords: Passwords,
    /// Object storage for audio and media.
    pub storage: switchboard_storage::Storage,
    /// Seals secrets kept at rest (TOTP secrets).
    pub sealer: switchboard_db::seal::Sealer,
    /// Rate limits: in-process, or shared through Redis.
    pub limiter: crate::limits::Limiter,
    /// Background work (webhook delivery, the job queue): this process's worker name,
    /// settings and wake-up.
    pub jobs: switchboard_jobs::Jobs,
    /// Text-to-speech: the engine, its voice catalogue and the rendering queue.
    pub speech: switchboard_speech::Speech,
    /// Settings.
    pub settings: Arc<Settings>,
    /// Set when a stop is asked for: `/readyz` answers 503 from then on (see
    /// [`crate::middleware::drain`]).
    pub draining: Arc<crate::middleware::drain::Draining>,
}
