//! Configuration (interface §1): environment variables `SWITCHBOARD_*`, over an optional
//! `switchboard.toml` with the same keys, over the defaults.

use std::net::SocketAddr;
use std::path::PathBuf;

use figment::Figment;
use figment::providers::{Env, Format, Toml};
use serde::Deserialize;

/// A value that never shows in `Debug` output or logs.
#[derive(Clone, Deserialize)]
#[serde(transparent)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Log output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// Every setting of the service.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Folder for the embedded database, objects and the generated signing key.
    pub data_dir: PathBuf,
    /// `sqlite://…` or `postgres://…`; defaults to a SQLite file in the data folder.
    pub database_url: Option<String>,
    /// `file://…` or `s3://BUCKET`; defaults to a folder in the data folder.
    pub storage_url: Option<String>,
    /// Longest one call to the object store may take (a second more per MiB it carries)
    /// before the request needing it answers 503.
    pub storage_timeout_seconds: u64,
    /// The base URL handed out in links; defaults to `http://` + the listen address.
    pub public_url: Option<String>,
    /// The access-token signing key (at least 32 bytes); generated and kept in the data
    /// folder when unset. Set it explicitly when several hosts serve one database.
    pub jwt_secret: Option<Secret>,
    /// Access token lifetime.
    pub token_ttl_seconds: u64,
    /// Whether webhooks may target loopback and private addresses.
    pub webhook_allow_private: bool,
    /// Waits between delivery attempts, `5s,5m,30m,2h,5h,10h,10h` (units ms, s, m, h).
    pub webhook_retry_schedule: String,
    /// How often an idle delivery worker looks for due deliveries.
    pub webhook_poll_interval_ms: u64,
    /// How long a webhook may fail without a success before it is disabled.
    pub webhook_disable_after_seconds: u64,
    /// Time allowed for one delivery attempt.
    pub webhook_timeout_seconds: u64,
    /// Log output format.
    pub log_format: LogFormat,
    /// Largest database pool.
    pub db_max_connections: u32,
    /// Longest a PostgreSQL statement may wait for its answer before its request is
    /// answered 503 (a connection gone silent holds nothing longer).
    pub db_statement_timeout_seconds: u64,
    /// Largest request body, in bytes.
    pub body_limit_bytes: usize,
    /// After SIGTERM, how long the process goes on serving while `/readyz` answers 503,
    /// so that balancers take it out of rotation before its listener closes.
    pub drain_seconds: u64,
    /// How long in-flight requests may run once the listener has closed.
    pub shutdown_grace_seconds: u64,
    /// How long a signed media download URL stays valid.
    pub media_url_ttl_seconds: u64,
    /// How long a session's refresh tokens live (without a new login).
    pub refresh_ttl_seconds: u64,
    /// Bytes of MMS media a tenant may hold.
    pub mms_quota_bytes: u64,
    /// Days an MMS media upload is kept before retention removes it and its file.
    pub mms_retention_days: u64,
    /// Leases of one engine job that may run out without a result (its engine died or
    /// hung) before the job is given up and its record failed.
    pub engine_max_leases: u64,
    /// Requests per minute per access token.
    pub rate_limit_per_minute: u64,
    /// Requests per minute per client address.
    pub rate_limit_per_minute_per_address: u64,
    /// Redis for rate limits shared by several `serve` processes; in-process when unset.
    pub redis_url: Option<String>,
    /// Prefix of rate-limit keys in Redis, to share one Redis among deployments.
    pub rate_limit_namespace: String,
    /// The bearer token the telephony engine pushes calls and voicemail with
    /// (`/v2/ingest/…`); only platform admins may push when unset.
    pub ingest_token: Option<Secret>,
    /// The first lock after too many failed logins; each further failure doubles it (up
    /// to 15 minutes).
    pub lockout_base_seconds: u64,
    /// How long a password check may wait for a free hashing thread before it answers
    /// 503 with `Retry-After` (a burst of logins is refused, not queued for minutes).
    pub password_hash_wait_ms: u64,
    /// How long a response may wait for its client to read before the connection is
    /// closed (a stalled reader holds nothing longer than this).
    pub write_stall_seconds: u64,
    /// Longest a request (other than an upload) may take before it is answered 503.
    pub request_timeout_seconds: u64,
    /// Longest an upload may take, its body included, before it is answered 503.
    pub upload_timeout_seconds: u64,
    /// Uploads (media files, MMS media, ingest with audio) that may run at once; the next
    /// is answered 503 with `Retry-After`.
    pub upload_concurrency: usize,
    /// The espeak-ng program text-to-speech runs (a name on the PATH or a path).
    pub tts_espeak_ng: PathBuf,
    /// Prompts rendered at once (default: the machine's cores).
    pub tts_workers: Option<usize>,
    /// Prompts that may wait for a rendering worker; the next is answered 503 with
    /// `Retry-After`.
    pub tts_queue: usize,
    /// The longest audio one prompt may become when spoken, its segments and pauses
    /// together; a longer one is refused with 400, so a text spoken at length cannot fill
    /// the memory.
    pub tts_max_audio_seconds: u64,
    /// Where `GET /metrics` (Prometheus text) is served, a listener of its own; off when
    /// unset. Never the public port: bind it where only the scraper reaches.
    pub metrics_listen: Option<SocketAddr>,
    /// Reverse proxies (CIDRs or addresses, comma-separated) whose forwarding header names
    /// the client; empty: the TCP peer is the client.
    pub trusted_proxies: String,
    /// The header those proxies append the client to: `x-forwarded-for` or `forwarded`.
    pub forwarded_header: String,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data_dir: PathBuf::from("switchboard-data"),
            database_url: None,
            storage_url: None,
            storage_timeout_seconds: switchboard_storage::DEFAULT_TIMEOUT.as_secs(),
            public_url: None,
            jwt_secret: None,
            token_ttl_seconds: 900,
            webhook_allow_private: false,
            webhook_retry_schedule: switchboard_jobs::delivery::schedule::DEFAULT_SCHEDULE.into(),
            webhook_poll_interval_ms: 250,
            webhook_disable_after_seconds: 5 * 24 * 3600,
            webhook_timeout_seconds: 15,
            log_format: LogFormat::Text,
            db_max_connections: 10,
            db_statement_timeout_seconds: switchboard_db::circuit::DEFAULT_STATEMENT_TIMEOUT
                .as_secs(),
            body_limit_bytes: 2 * 1024 * 1024,
            drain_seconds: 5,
            shutdown_grace_seconds: 30,
            media_url_ttl_seconds: 900,
            refresh_ttl_seconds: 30 * 24 * 3600,
            mms_quota_bytes: 1024 * 1024 * 1024,
            mms_retention_days: 30,
            engine_max_leases: 5,
            lockout_base_seconds: 30,
            password_hash_wait_ms: 5000,
            write_stall_seconds: 30,
            request_timeout_seconds: 30,
            upload_timeout_seconds: 300,
            upload_concurrency: switchboard_api::state::DEFAULT_UPLOADS,
            tts_espeak_ng: PathBuf::from("espeak-ng"),
            tts_workers: None,
            tts_queue: 16,
            tts_max_audio_seconds: 720,
            ingest_token: None,
            rate_limit_per_minute: 1200,
            rate_limit_per_minute_per_address: 6000,
            redis_url: None,
            rate_limit_namespace: String::new(),
            metrics_listen: None,
            trusted_proxies: String::new(),
            forwarded_header: "x-forwarded-for".into(),
        }
    }
}

impl Config {
    /// Reads the configuration: defaults, then `switchboard.toml`, then `SWITCHBOARD_*`.
    pub fn load() -> anyhow::Result<Config> {
        Ok(Figment::new()
            .merge(Toml::file("switchboard.toml"))
            .merge(Env::prefixed("SWITCHBOARD_"))
            .extract()?)
    }

    /// The database URL in effect.
    pub fn database_url(&self) -> String {
        self.database_url.clone().unwrap_or_else(|| {
            format!(
                "sqlite://{}",
                self.data_dir.join("switchboard.db").display()
            )
        })
    }

    /// Which database and data folder are in use, for a person to read: absolute paths,
    /// and a PostgreSQL URL without its password.
    pub fn describe_storage(&self) -> String {
        let absolute = |path: &std::path::Path| {
            std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
        };
        let url = self.database_url();
        let database = match url.strip_prefix("sqlite://") {
            Some(path) => {
                let path = path.split('?').next().unwrap_or(path);
                format!("SQLite {}", absolute(std::path::Path::new(path)).display())
            }
            None => format!("PostgreSQL {}", without_password(&url)),
        };
        format!(
            "database: {database}; data folder: {}",
            absolute(&self.data_dir).display()
        )
    }

    /// The object storage URL in effect.
    pub fn storage_url(&self) -> String {
        self.storage_url
            .clone()
            .unwrap_or_else(|| format!("file://{}", self.data_dir.join("objects").display()))
    }

    /// The public base URL in effect, without a trailing slash.
    pub fn public_url(&self) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.listen))
            .trim_end_matches('/')
            .to_owned()
    }
}

/// `url` with the password of its user part (`user:password@`) left out.
pub(crate) fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.split_once('@') {
        Some((user, host)) => {
            let user = user.split(':').next().unwrap_or(user);
            format!("{scheme}://{user}@{host}")
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::without_password;

    #[test]
    fn passwords_are_left_out_of_the_database_description() {
        assert_eq!(
            without_password("postgres://app:s3cret@db:5432/switchboard"),
            "postgres://app@db:5432/switchboard"
        );
        assert_eq!(
            without_password("postgres://db/switchboard"),
            "postgres://db/switchboard"
        );
    }
}
