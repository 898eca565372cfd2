//! The `switchboard` binary's library: configuration, wiring of the database, tokens and
//! passwords into the HTTP layer, the command line and the demo data.

pub mod cli;
pub mod commands;
pub mod config;
pub mod demo;
pub mod hold;
#[cfg(test)]
mod house_rules;
pub mod import;
pub mod key;
pub mod ops;
pub mod telemetry;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use switchboard_api::auth::password::Passwords;
use switchboard_api::auth::token::{self, Tokens};
use switchboard_api::auth::verified::{self, VerifiedTokens};
use switchboard_api::limits::Limiter;
use switchboard_api::{AppState, Settings, Shared};
use switchboard_db::Db;
use switchboard_db::backend::ConnectOptions;
use switchboard_jobs::{DeliverySettings, Jobs, Schedule};

pub use config::Config;

/// Serves the API and the console on `listener` (see [`switchboard_api::serve`]) until
/// `shutdown` completes: the console's keys are derived from the installation's signing
/// key, so every process of a deployment opens the others' sessions.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    config: &Config,
    shutdown: impl std::future::Future<Output = switchboard_api::Stopping> + Send + 'static,
) -> anyhow::Result<()> {
    let (signing_key, _) = key::in_use(config)?;
    let keys = switchboard_console::Keys::derive(signing_key.bytes(), token::derived_key);
    let console = switchboard_api::Mounted {
        router: switchboard_console::router(console_service(&state), keys),
        templates: switchboard_console::TEMPLATES,
    };
    switchboard_api::serve_with(listener, state, Some(console), shutdown).await?;
    Ok(())
}

/// What the console needs of the API (see [`switchboard_console::Service`]): the API in
/// process, and who a token stands for as the API's handlers ask it.
fn console_service(state: &AppState) -> switchboard_console::Service {
    let asking = state.clone();
    switchboard_console::Service {
        api: switchboard_console::inprocess::InProcess::new(switchboard_api::in_process(
            state.clone(),
        )),
        principal_of: Arc::new(move |token: String| {
            let state = asking.clone();
            Box::pin(async move {
                switchboard_api::auth::caller::account_of(&state, &token)
                    .await
                    .map(|found| found.map(|(_, account)| account.principal))
                    .map_err(|error| error.message().to_owned())
            })
        }),
        db: state.db.clone(),
        public_url: state.settings.public_url.clone(),
        trusted_proxies: state.settings.trusted_proxies.clone(),
    }
}

/// Opens the database, runs migrations and builds the application state.
pub async fn build_state(config: &Config) -> anyhow::Result<AppState> {
    // A configuration built in code (tests, tools) is held to the rules `Config::load`
    // applies to the environment's.
    config.validate()?;
    let url = config.database_url();
    if Db::backend_of(&url) == switchboard_db::backend::Backend::Sqlite {
        std::fs::create_dir_all(&config.data_dir)
            .with_context(|| format!("creating {}", config.data_dir.display()))?;
    }
    let db = Db::connect(&ConnectOptions {
        url,
        max_connections: config.db_max_connections,
        statement_timeout: Some(Duration::from_secs(config.db_statement_timeout_seconds)),
    })
    .await
    .context("opening the database")?;
    db.migrate().await.context("running migrations")?;
    // Other processes' account changes reach the session cache from here on.
    db.listen_for_account_changes();
    let trusted_proxies = switchboard_api::client::parse_trusted(&config.trusted_proxies)
        .map_err(|e| anyhow::anyhow!("SWITCHBOARD_TRUSTED_PROXIES: {e}"))?;
    let forwarded_header =
        switchboard_api::client::ForwardedHeader::parse(&config.forwarded_header)
            .context("SWITCHBOARD_FORWARDED_HEADER must be x-forwarded-for or forwarded")?;
    let (signing_key, source) = key::in_use(config)?;
    let tokens = Tokens::new(
        signing_key.bytes(),
        Duration::from_secs(config.token_ttl_seconds),
    );
    let storage = switchboard_storage::Storage::open(
        &config.storage_url(),
        &token::derived_key(signing_key.bytes(), "object download URLs"),
        &config.public_url(),
    )
    .context("opening object storage")?
    .with_timeout(Duration::from_secs(config.storage_timeout_seconds));
    let hash_cost = config.password_hash_cost();
    if hash_cost.below_owasp() {
        tracing::warn!(
            memory_kib = hash_cost.memory_kib,
            passes = hash_cost.passes,
            "password hashes are made below OWASP's argon2id minimum: cheaper to guess if the \
             database leaks (SWITCHBOARD_PASSWORD_HASH_MEMORY_KIB, _PASSES)"
        );
    }
    let passwords = Passwords::new(
        Passwords::default_parallelism(),
        Duration::from_millis(config.password_hash_wait_ms),
        hash_cost,
    )?;
    let sealer = signing_key.sealer();
    // A key that does not open what the database sealed would answer 500 wherever a
    // secret is needed (and sign tokens nobody else accepts): refused here, at start.
    if let Some(seat) = switchboard_db::seal::first_unopened(&db, &sealer)
        .await
        .context("checking the signing key against the sealed secrets")?
    {
        anyhow::bail!("{}", key_refused(&signing_key, &source, &seat));
    }
    // Secrets sealed before they were bound to their rows are bound now, before any
    // request or worker opens one (only bound values open).
    let resealed = switchboard_db::seal::reseal_unbound(&db, &sealer)
        .await
        .context("re-sealing secrets bound to their rows")?;
    if resealed > 0 {
        tracing::info!(resealed, "sealed secrets bound to their rows");
    }
    let jobs = Jobs::new(
        db.clone(),
        storage.clone(),
        sealer.clone(),
        delivery_settings(config)?,
    )
    .context("building the webhook HTTP client")?;
    let speech = switchboard_speech::Speech::new(
        Arc::new(switchboard_speech::espeak::EspeakNg::new(
            &config.tts_espeak_ng,
        )),
        switchboard_speech::QueueSettings {
            workers: config.tts_workers.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            }),
            queue: config.tts_queue,
            max_audio_seconds: config.tts_max_audio_seconds,
        },
    )
    .await;
    Ok(AppState::new(Shared {
        db,
        speech,
        tokens,
        verified_tokens: Arc::new(VerifiedTokens::new(verified::DEFAULT_CAPACITY)),
        passwords,
        storage,
        sealer,
        jobs,
        limiter: match &config.redis_url {
            Some(url) => Limiter::redis(url)
                .await
                .context("connecting to Redis for rate limits")?,
            None => Limiter::local(),
        },
        settings: Arc::new(Settings {
            body_limit: config.body_limit_bytes,
            media_url_ttl: Duration::from_secs(config.media_url_ttl_seconds),
            mms_quota_bytes: i64::try_from(config.mms_quota_bytes).unwrap_or(i64::MAX),
            engine_max_leases: i64::try_from(config.engine_max_leases).unwrap_or(i64::MAX),
            mms_retention_seconds: i64::try_from(config.mms_retention_days)
                .unwrap_or(i64::MAX)
                .saturating_mul(86_400),
            refresh_ttl: Duration::from_secs(config.refresh_ttl_seconds),
            lockout_base: Duration::from_secs(config.lockout_base_seconds),
            rate_limit_per_token: config.rate_limit_per_minute,
            rate_limit_per_address: config.rate_limit_per_minute_per_address,
            rate_limit_namespace: config.rate_limit_namespace.clone(),
            rate_limit_hash_key: {
                let derived =
                    token::derived_key(signing_key.bytes(), "switchboard rate-limit token hash");
                let mut hash_key = [0; 16];
                hash_key.copy_from_slice(&derived[..16]);
                hash_key
            },
            ingest_token: config.ingest_token.as_ref().map(|t| t.0.clone()),
            write_stall: Duration::from_secs(config.write_stall_seconds),
            request_timeout: Duration::from_secs(config.request_timeout_seconds),
            upload_timeout: Duration::from_secs(config.upload_timeout_seconds),
            upload_slots: switchboard_api::guard::UploadSlots::new(config.upload_concurrency),
            trusted_proxies: trusted_proxies.into(),
            forwarded_header,
            metrics_listen: config.metrics_listen,
            server_timing: config.server_timing,
            ..Settings::new(config.public_url())
        }),
        draining: Arc::default(),
    }))
}

/// Webhook delivery settings from the configuration.
fn delivery_settings(config: &Config) -> anyhow::Result<DeliverySettings> {
    let schedule = Schedule::parse(&config.webhook_retry_schedule)
        .map_err(|e| anyhow::anyhow!("SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE: {e}"))?;
    Ok(DeliverySettings {
        allow_private: config.webhook_allow_private,
        schedule,
        poll_interval: Duration::from_millis(config.webhook_poll_interval_ms.max(10)),
        disable_after: Duration::from_secs(config.webhook_disable_after_seconds),
        connect_timeout: Duration::from_secs(config.webhook_timeout_seconds.min(5)),
        timeout: Duration::from_secs(config.webhook_timeout_seconds),
        ..DeliverySettings::default()
    })
}

/// Why `key` (from `source`) is refused: it does not open the value sealed at `seat`, so
/// it is not the key the secrets of the database were sealed with.
pub fn key_refused(
    key: &key::SigningKey,
    source: &key::KeySource,
    seat: &switchboard_db::seal::Seat,
) -> String {
    format!(
        "the signing key of {source} (fingerprint {}) does not open the secrets sealed in this database ({}.{} of row {}): it is not the key they were sealed with. Give this installation that key: run `switchboard export-key` where it is in use and put what it prints in SWITCHBOARD_JWT_SECRET, or pipe it into `switchboard import-key` here (docs/operations.md, \"The signing key\")",
        key.fingerprint(),
        seat.table,
        seat.column,
        seat.id
    )
}

/// Completes on SIGTERM or SIGINT with how the stop goes (see `switchboard_api::drain`):
/// SIGTERM, the platform's stop, drains for `SWITCHBOARD_DRAIN_SECONDS` first; SIGINT (a
/// person's Ctrl-C) stops at once. Either way in-flight requests get the grace period.
pub async fn shutdown_signal(config: &Config) -> switchboard_api::Stopping {
    let grace = Duration::from_secs(config.shutdown_grace_seconds);
    let drain = Duration::from_secs(config.drain_seconds);
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    let drain = tokio::select! {
        _ = interrupt => Duration::ZERO,
        _ = terminate => drain,
    };
    tracing::info!(
        drain_seconds = drain.as_secs(),
        "shutting down; letting in-flight requests finish"
    );
    switchboard_api::Stopping { drain, grace }
}
