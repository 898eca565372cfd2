//! Configuration (interface §1): environment variables `SWITCHBOARD_*`, over an optional
//! `switchboard.toml` with the same keys, over the defaults.

use std::net::SocketAddr;
use std::path::PathBuf;

use figment::Figment;
use figment::providers::{Env, Format, Toml};
use serde::Deserialize;
use switchboard_api::auth::password::HashCost;
use switchboard_api::auth::token::MIN_KEY_BYTES;

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

/// The most memory one password hash may take, in KiB (1 GiB).
pub const MAX_PASSWORD_HASH_MEMORY_KIB: u32 = 1 << 20;

/// The most passes one password hash may make.
pub const MAX_PASSWORD_HASH_PASSES: u32 = 16;

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
    /// The memory of one password hash (argon2id), in KiB: OWASP's 19 MiB by default.
    pub password_hash_memory_kib: u32,
    /// The passes of one password hash over its memory: OWASP's 2 by default.
    pub password_hash_passes: u32,
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
    /// Whether each answer carries `Server-Timing: db;desc="N statements"`, the number of
    /// database statements it took (for measuring reads; off by default).
    pub server_timing: bool,
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
            password_hash_memory_kib: HashCost::OWASP.memory_kib,
            password_hash_passes: HashCost::OWASP.passes,
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
            server_timing: false,
            trusted_proxies: String::new(),
            forwarded_header: "x-forwarded-for".into(),
        }
    }
}

impl Config {
    /// The cost new password hashes are made at.
    pub fn password_hash_cost(&self) -> HashCost {
        HashCost {
            memory_kib: self.password_hash_memory_kib,
            passes: self.password_hash_passes,
        }
    }

    /// Reads the configuration: defaults, then `switchboard.toml`, then `SWITCHBOARD_*`;
    /// refused, before anything is opened or created, when a setting is wrong (see
    /// [`Config::validate`]). A `SWITCHBOARD_*` variable that is no setting is reported on
    /// stderr and ignored.
    pub fn load() -> anyhow::Result<Config> {
        for name in unknown_variables() {
            eprintln!("switchboard: {name} is not a setting; it is ignored");
        }
        let config: Config = Figment::new()
            .merge(Toml::file("switchboard.toml"))
            .merge(Env::prefixed("SWITCHBOARD_"))
            .extract()
            .map_err(|error| refused(error.into_iter().map(unreadable).collect()))?;
        config.validate()?;
        Ok(config)
    }

    /// Checks every setting that reading did not (texts, URLs, lower bounds), answering
    /// all the wrong ones at once, each naming its variable and why.
    pub fn validate(&self) -> anyhow::Result<()> {
        let mut problems = Problems::default();
        self.check_texts(&mut problems);
        self.check_urls(&mut problems);
        self.check_numbers(&mut problems);
        if problems.0.is_empty() {
            Ok(())
        } else {
            Err(refused(problems.0))
        }
    }

    /// Texts: no trailing comment or surrounding space, and those with a form of their
    /// own read by the parser that will read them.
    fn check_texts(&self, problems: &mut Problems) {
        let shown = [
            (
                "DATA_DIR",
                Some(self.data_dir.to_string_lossy().into_owned()),
            ),
            (
                "RATE_LIMIT_NAMESPACE",
                Some(self.rate_limit_namespace.clone()),
            ),
            (
                "TTS_ESPEAK_NG",
                Some(self.tts_espeak_ng.to_string_lossy().into_owned()),
            ),
            (
                "WEBHOOK_RETRY_SCHEDULE",
                Some(self.webhook_retry_schedule.clone()),
            ),
            ("TRUSTED_PROXIES", Some(self.trusted_proxies.clone())),
            ("FORWARDED_HEADER", Some(self.forwarded_header.clone())),
        ];
        for (name, value) in shown {
            if let Some(value) = value
                && let Some(why) = text_problem(&value)
            {
                problems.add(name, format!("{value:?} {why}"));
            }
        }
        if self.data_dir.as_os_str().is_empty() {
            problems.add("DATA_DIR", "must name a folder");
        }
        for (name, secret) in [
            ("JWT_SECRET", &self.jwt_secret),
            ("INGEST_TOKEN", &self.ingest_token),
        ] {
            let Some(Secret(secret)) = secret else {
                continue;
            };
            // Never shown: it is a secret. The engine's token opens every tenant's ingest,
            // so it must be as hard to guess as the signing key.
            if let Some(why) = text_problem(secret) {
                problems.add(name, format!("the value {why}"));
            } else if name == "JWT_SECRET" {
                // The key's one written form (`hex:` and digits, or text): its reader's
                // refusal, which never shows the key.
                if let Err(why) = crate::key::SigningKey::parse(secret) {
                    problems.add(name, format!("{why:#}"));
                }
            } else if secret.len() < MIN_KEY_BYTES {
                problems.add(name, format!("must be at least {MIN_KEY_BYTES} bytes"));
            }
        }
        if text_problem(&self.webhook_retry_schedule).is_none()
            && let Err(why) = switchboard_jobs::Schedule::parse(&self.webhook_retry_schedule)
        {
            problems.add("WEBHOOK_RETRY_SCHEDULE", why);
        }
        if text_problem(&self.trusted_proxies).is_none()
            && let Err(why) = switchboard_api::client::parse_trusted(&self.trusted_proxies)
        {
            problems.add("TRUSTED_PROXIES", why);
        }
        if text_problem(&self.forwarded_header).is_none()
            && switchboard_api::client::ForwardedHeader::parse(&self.forwarded_header).is_none()
        {
            problems.add(
                "FORWARDED_HEADER",
                format!(
                    "{:?} must be x-forwarded-for or forwarded",
                    self.forwarded_header
                ),
            );
        }
    }

    /// URLs: each of the form its reader takes, shown without a password.
    fn check_urls(&self, problems: &mut Problems) {
        let mut url = |name: &'static str,
                       value: &Option<String>,
                       check: &dyn Fn(&str) -> Result<(), String>| {
            let Some(value) = value else {
                return;
            };
            let shown = without_password(value);
            match text_problem(value) {
                Some(why) => problems.add(name, format!("{shown:?} {why}")),
                None => {
                    if let Err(why) = check(value) {
                        problems.add(name, format!("{shown:?} {why}"));
                    }
                }
            }
        };
        url(
            "DATABASE_URL",
            &self.database_url,
            &switchboard_db::Db::check_url,
        );
        url("STORAGE_URL", &self.storage_url, &|value| {
            switchboard_storage::Storage::check_url(value).map_err(|error| match error {
                // Said without the URL it starts with: the line shows it already.
                switchboard_storage::StorageError::InvalidUrl(why) => why
                    .strip_prefix(&format!("{value:?}: "))
                    .map_or(why.clone(), str::to_owned),
                other => other.to_string(),
            })
        });
        url("PUBLIC_URL", &self.public_url, &check_public_url);
        url("REDIS_URL", &self.redis_url, &check_redis_url);
    }

    /// Numbers that make no sense at 0 (a pool of no connection, a token that is expired
    /// when issued, a timeout that fires at once).
    fn check_numbers(&self, problems: &mut Problems) {
        let at_least_one = [
            ("TOKEN_TTL_SECONDS", self.token_ttl_seconds),
            ("REFRESH_TTL_SECONDS", self.refresh_ttl_seconds),
            ("MEDIA_URL_TTL_SECONDS", self.media_url_ttl_seconds),
            ("DB_MAX_CONNECTIONS", u64::from(self.db_max_connections)),
            (
                "DB_STATEMENT_TIMEOUT_SECONDS",
                self.db_statement_timeout_seconds,
            ),
            ("STORAGE_TIMEOUT_SECONDS", self.storage_timeout_seconds),
            ("BODY_LIMIT_BYTES", self.body_limit_bytes as u64),
            ("WEBHOOK_TIMEOUT_SECONDS", self.webhook_timeout_seconds),
            ("REQUEST_TIMEOUT_SECONDS", self.request_timeout_seconds),
            ("UPLOAD_TIMEOUT_SECONDS", self.upload_timeout_seconds),
            ("UPLOAD_CONCURRENCY", self.upload_concurrency as u64),
            ("WRITE_STALL_SECONDS", self.write_stall_seconds),
            ("ENGINE_MAX_LEASES", self.engine_max_leases),
            ("TTS_WORKERS", self.tts_workers.map_or(1, |n| n as u64)),
            ("PASSWORD_HASH_PASSES", u64::from(self.password_hash_passes)),
        ];
        for (name, value) in at_least_one {
            if value == 0 {
                problems.add(name, "must be at least 1");
            }
        }
        // argon2's least below, and bounds above, since every concurrent password check
        // (unknown e-mails too) holds the memory and the passes' time: a mistyped digit
        // must not let a login burst take the host's memory or hang the start's first hash.
        if self.password_hash_memory_kib < 8 {
            problems.add(
                "PASSWORD_HASH_MEMORY_KIB",
                "must be at least 8 (argon2's least, in KiB)",
            );
        } else if self.password_hash_memory_kib > MAX_PASSWORD_HASH_MEMORY_KIB {
            problems.add(
                "PASSWORD_HASH_MEMORY_KIB",
                format!("must be at most {MAX_PASSWORD_HASH_MEMORY_KIB} (1 GiB, in KiB)"),
            );
        }
        if self.password_hash_passes > MAX_PASSWORD_HASH_PASSES {
            problems.add(
                "PASSWORD_HASH_PASSES",
                format!("must be at most {MAX_PASSWORD_HASH_PASSES}"),
            );
        }
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

/// The settings found wrong, one line each.
#[derive(Default)]
struct Problems(Vec<String>);

impl Problems {
    /// `SWITCHBOARD_<name>`: `why`.
    fn add(&mut self, name: &str, why: impl std::fmt::Display) {
        self.0.push(format!("SWITCHBOARD_{name}: {why}"));
    }
}

/// The error of a refused configuration: every problem on a line of its own.
fn refused(problems: Vec<String>) -> anyhow::Error {
    anyhow::anyhow!(
        "the configuration is refused; nothing was started:\n  {}",
        problems.join("\n  ")
    )
}

/// Why a setting's text is not what was meant: a `# comment` after it (a systemd
/// `EnvironmentFile`, like Docker's `--env-file`, keeps everything after the `=` as the
/// value), or spaces around it.
fn text_problem(value: &str) -> Option<&'static str> {
    if value
        .split_whitespace()
        .skip(1)
        .any(|word| word.starts_with('#'))
    {
        Some(
            "ends in what looks like a comment: an EnvironmentFile keeps everything after \
             the `=`, so put comments on lines of their own",
        )
    } else if value.trim() != value {
        Some("has spaces before or after it")
    } else {
        None
    }
}

/// A setting figment could not read, as a line naming it and saying why.
fn unreadable(error: figment::Error) -> String {
    use figment::error::Kind;
    let key = error.path.join(".");
    let from_environment = error
        .metadata
        .as_ref()
        .is_some_and(|source| source.name.contains("environment"));
    let (name, value) = if from_environment {
        let name = format!("SWITCHBOARD_{}", key.to_ascii_uppercase());
        let value = std::env::var(&name).ok();
        (name, value)
    } else {
        (format!("{key} (switchboard.toml)"), None)
    };
    let why = match &error.kind {
        Kind::InvalidType(_, expected) | Kind::InvalidValue(_, expected) => {
            match expected.as_str() {
                "u8" | "u16" | "u32" | "u64" | "usize" => {
                    "must be a whole number (0 or more)".to_owned()
                }
                "a boolean" => "must be true or false".to_owned(),
                "a string" => "must be a text".to_owned(),
                other => format!("must be {other}"),
            }
        }
        Kind::UnknownVariant(_, expected) => format!("must be one of: {}", expected.join(", ")),
        Kind::Message(message) if message.contains("socket address") => {
            "must be an address and a port, such as 127.0.0.1:8080".to_owned()
        }
        other => other.to_string(),
    };
    match value {
        // Secrets are never shown.
        Some(value) if !name.ends_with("_SECRET") && !name.ends_with("_TOKEN") => {
            format!("{name}: {value:?} {why}")
        }
        _ => format!("{name}: {why}"),
    }
}

/// `SWITCHBOARD_*` variables that name no setting (a misspelt one is otherwise silently
/// ignored).
fn unknown_variables() -> Vec<String> {
    let settings = setting_names();
    let mut unknown: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| {
            name.strip_prefix("SWITCHBOARD_")
                .is_some_and(|key| !settings.contains(&key.to_ascii_lowercase().as_str()))
        })
        .collect();
    unknown.sort();
    unknown
}

/// The settings' names (lower case), as [`Config`]'s derived `Deserialize` lists them.
fn setting_names() -> &'static [&'static str] {
    use serde::de::{Error, Visitor};

    /// A deserializer that only notes the fields a struct asks for.
    struct Fields<'a>(&'a mut &'static [&'static str]);

    impl<'de> serde::Deserializer<'de> for Fields<'_> {
        type Error = serde::de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(Self::Error::custom("only the field names are read"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(Self::Error::custom("only the field names are read"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }

    let mut fields: &'static [&'static str] = &[];
    let _ = Config::deserialize(Fields(&mut fields));
    fields
}

/// The public URL's form: `http(s)://host[:port][/path]`, the base of every link.
fn check_public_url(value: &str) -> Result<(), String> {
    let url = url::Url::parse(value).map_err(|error| format!("is not a URL ({error})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("must start with http:// or https://".into());
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("names no host".into());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("must have no query or fragment: links are made by appending paths".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must carry no user or password: it is handed out in links".into());
    }
    Ok(())
}

/// A Redis URL's form: `redis://`, `rediss://` (TLS) or a Unix socket's.
fn check_redis_url(value: &str) -> Result<(), String> {
    let url = url::Url::parse(value).map_err(|error| format!("is not a URL ({error})"))?;
    if !matches!(url.scheme(), "redis" | "rediss" | "redis+unix" | "unix") {
        return Err("must start with redis://, rediss:// or unix://".into());
    }
    Ok(())
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

/// The password of `url`'s user part (`user:password@`), percent-decoded, if it has one.
pub(crate) fn password_of(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let (user, _) = rest.split_once('@')?;
    let (_, encoded) = user.split_once(':')?;
    let bytes = encoded.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| encoded.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                i += 3;
            }
            None => {
                decoded.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(decoded).ok()
}

#[cfg(test)]
mod tests {
    use super::{password_of, setting_names, text_problem, without_password};

    #[test]
    fn a_password_is_read_percent_decoded() {
        assert_eq!(
            password_of("postgres://app:s3%40cret%2F1@db/switchboard").as_deref(),
            Some("s3@cret/1")
        );
        assert_eq!(password_of("postgres://app@db/switchboard"), None);
        assert_eq!(password_of("postgres://db/switchboard"), None);
    }

    #[test]
    fn the_setting_names_are_the_configurations_fields() {
        let names = setting_names();
        for name in ["listen", "public_url", "drain_seconds", "forwarded_header"] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        // And each is documented.
        let readme = include_str!("../README.md");
        for name in names {
            let variable = format!("`SWITCHBOARD_{}`", name.to_ascii_uppercase());
            assert!(readme.contains(&variable), "{variable} is in the README");
        }
    }

    #[test]
    fn trailing_comments_and_spaces_are_found() {
        assert!(text_problem("https://x   # links").is_some());
        assert!(text_problem("https://x\t#links").is_some());
        assert!(text_problem(" https://x").is_some());
        assert!(text_problem("https://x ").is_some());
        for fine in [
            "https://x",
            "https://x/#anchor",
            "10.0.0.0/8, 127.0.0.1/32",
            "",
        ] {
            assert_eq!(text_problem(fine), None, "{fine:?}");
        }
    }

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
