//! Webhook delivery (CONTRACT §9): a worker in every `serve` process claims due deliveries
//! from the outbox under a lease, signs and posts them, records every attempt, retries on
//! the schedule, and disables webhooks whose receivers are gone (410) or have failed for
//! days. Several processes on one database share the work; each delivery is leased to one
//! of them at a time.

pub mod client;
pub mod hubspot;
pub mod schedule;
pub mod signing;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::json;
use switchboard_db::audit::NewEntry;
use switchboard_db::deliveries::{self, AttemptRecord, Claimed, Next};
use switchboard_domain::records::webhook::HUBSPOT;
use tokio::sync::{Notify, Semaphore, watch};
use tokio::task::{JoinHandle, JoinSet};

use crate::state::AppState;
pub use schedule::Schedule;

/// How deliveries go out; production defaults from [`DeliverySettings::default`].
#[derive(Clone, Debug)]
pub struct DeliverySettings {
    /// Whether targets on loopback and private addresses are allowed.
    pub allow_private: bool,
    /// Waits between attempts.
    pub schedule: Schedule,
    /// How often an idle worker looks for due deliveries (another process's events, due
    /// retries); this process's own are sent at once through [`Deliveries::wake`].
    pub poll_interval: Duration,
    /// How long a webhook may fail without a single success before it is disabled.
    pub disable_after: Duration,
    /// Time to connect.
    pub connect_timeout: Duration,
    /// Time for a whole attempt, connection and answer included.
    pub timeout: Duration,
    /// Deliveries one process sends at once.
    pub max_in_flight: usize,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        DeliverySettings {
            allow_private: false,
            schedule: Schedule::default(),
            poll_interval: Duration::from_millis(250),
            disable_after: Duration::from_secs(5 * 24 * 3600),
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(15),
            max_in_flight: 32,
        }
    }
}

impl DeliverySettings {
    /// How long a claim lasts: the longest an attempt can take plus a minute for the
    /// database writes around it, so no other worker sends a delivery while it is sent.
    pub fn lease(&self) -> Duration {
        self.timeout + Duration::from_secs(60)
    }

    /// When a lease taken at `now` (Unix seconds) runs out.
    pub fn lease_until(&self, now: i64) -> i64 {
        now.saturating_add(seconds_up(self.lease()))
    }
}

/// This process's delivery machinery: its worker's name in leases, the HTTP client and
/// the wake-up for events this process emitted.
#[derive(Clone, Debug)]
pub struct Deliveries {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    owner: String,
    client: reqwest::Client,
    wake: Notify,
}

impl Deliveries {
    /// The machinery for `settings`, under a new worker name.
    pub fn new(settings: &DeliverySettings) -> reqwest::Result<Deliveries> {
        Ok(Deliveries {
            inner: Arc::new(Inner {
                owner: format!("worker_{}", uuid::Uuid::now_v7().simple()),
                client: client::build(
                    settings.allow_private,
                    settings.connect_timeout,
                    settings.timeout,
                )?,
                wake: Notify::new(),
            }),
        })
    }

    /// The name this process's leases carry.
    pub fn owner(&self) -> &str {
        &self.inner.owner
    }

    /// Wakes this process's worker at once: call after committing events or deliveries,
    /// so they do not wait for the next poll.
    pub fn wake(&self) {
        self.inner.wake.notify_one();
    }
}

/// Starts the worker of `state`; it stops claiming when `stop` turns true and lets the
/// attempts in flight finish (for at most one attempt's time).
pub fn spawn(state: AppState, stop: watch::Receiver<bool>) -> JoinHandle<()> {
    tokio::spawn(run(state, stop))
}

async fn run(state: AppState, mut stop: watch::Receiver<bool>) {
    let settings = state.settings.webhooks.clone();
    let permits = Arc::new(Semaphore::new(settings.max_in_flight));
    let mut in_flight = JoinSet::new();
    while !*stop.borrow() {
        while in_flight.try_join_next().is_some() {}
        let free = permits.available_permits();
        let claimed = if free > 0 {
            claim_due(&state, free).await
        } else {
            Vec::new()
        };
        let full_batch = !claimed.is_empty() && claimed.len() >= free;
        for delivery in claimed {
            // A claim may return a few more rows than asked (PostgreSQL can evaluate the
            // locking subquery more than once); they are ours, so they wait for a slot
            // rather than sit leased until the lease runs out.
            let Ok(permit) = permits.clone().acquire_owned().await else {
                break;
            };
            let state = state.clone();
            in_flight.spawn(async move {
                if let Err(error) = attempt(&state, delivery).await {
                    tracing::error!(%error, "recording a webhook attempt failed");
                }
                drop(permit);
            });
        }
        if full_batch && permits.available_permits() > 0 {
            // More may be due: claim again before sleeping.
            continue;
        }
        tokio::select! {
            changed = stop.changed() => {
                if changed.is_err() {
                    // The server is gone without saying so: stop as if told to.
                    break;
                }
            }
            _ = state.deliveries.inner.wake.notified() => {}
            _ = tokio::time::sleep(settings.poll_interval) => {}
            Some(_) = in_flight.join_next(), if !in_flight.is_empty() => {}
        }
    }
    let drain = async { while in_flight.join_next().await.is_some() {} };
    if tokio::time::timeout(settings.timeout, drain).await.is_err() {
        // The leases of the attempts cut short run out and another worker retries them.
        tracing::warn!("webhook attempts still running at shutdown were abandoned");
    }
}

/// Leases up to `limit` due deliveries to this process; errors are logged and answered
/// as nothing due, so a database hiccup only delays delivery.
async fn claim_due(state: &AppState, limit: usize) -> Vec<Claimed> {
    let now = Utc::now().timestamp();
    let lease_until = state.settings.webhooks.lease_until(now);
    let db = &state.db;
    let claimed = async {
        if !deliveries::any_due(db, now).await? {
            return Ok(Vec::new());
        }
        let limit = u64::try_from(limit).unwrap_or(u64::MAX);
        deliveries::claim(db, state.deliveries.owner(), now, lease_until, limit).await
    };
    match claimed.await {
        Ok(claimed) => claimed,
        Err(error) => {
            tracing::warn!(%error, "claiming webhook deliveries failed");
            Vec::new()
        }
    }
}

fn seconds_up(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis().div_ceil(1000)).unwrap_or(i64::MAX)
}

/// What an attempt came to.
struct Outcome {
    record: AttemptRecord,
    next: Next,
    gone: bool,
}

/// Makes one attempt of `delivery` (leased to this process), records it and applies what
/// follows: delivered, a retry, failed; a 410 Gone or too long a run of failures disables
/// the webhook, with an audit entry saying why.
pub async fn attempt(state: &AppState, delivery: Claimed) -> switchboard_db::Result<()> {
    let settings = &state.settings.webhooks;
    let started = Utc::now();
    let clock = Instant::now();
    let answer = send(state, &delivery, started.timestamp()).await;
    let latency_ms = i64::try_from(clock.elapsed().as_millis()).unwrap_or(i64::MAX);
    let finished_at = Utc::now();
    let attempts = delivery.attempts + 1;
    let retry = |retry_after: Option<Duration>| {
        if delivery.disabled_at.is_some() {
            // A test sent to a disabled webhook is not retried: nothing else goes there.
            return Next::Failed;
        }
        match settings.schedule.wait_after(attempts, retry_after) {
            Some(wait) => {
                let due_ms = finished_at.timestamp_millis()
                    + i64::try_from(wait.as_millis()).unwrap_or(i64::MAX / 2);
                Next::RetryAt(due_ms.div_euclid(1000) + i64::from(due_ms % 1000 != 0))
            }
            None => Next::Failed,
        }
    };
    let outcome = match answer {
        Ok(answer) => {
            let status = answer.status;
            let retry_after = answer
                .retry_after
                .as_deref()
                .and_then(|value| schedule::retry_after(value, finished_at));
            let gone = status == reqwest::StatusCode::GONE;
            let (next, error) = if status.is_success() {
                (Next::Delivered, None)
            } else if gone {
                (
                    Next::Failed,
                    Some("410 Gone: the receiver wants no more deliveries".to_owned()),
                )
            } else {
                (
                    retry(retry_after),
                    Some(format!("the receiver answered {}", status.as_u16())),
                )
            };
            Outcome {
                record: AttemptRecord {
                    attempted_at_ms: started.timestamp_millis(),
                    status_code: Some(i64::from(status.as_u16())),
                    latency_ms,
                    response_excerpt: answer.excerpt,
                    error,
                },
                next,
                gone,
            }
        }
        Err(error) => Outcome {
            record: AttemptRecord {
                attempted_at_ms: started.timestamp_millis(),
                status_code: None,
                latency_ms,
                response_excerpt: String::new(),
                error: Some(error),
            },
            next: retry(None),
            gone: false,
        },
    };
    let now = finished_at.timestamp();
    let finished = deliveries::finish(
        &state.db,
        &delivery,
        state.deliveries.owner(),
        &outcome.record,
        outcome.next,
        now,
    )
    .await?;
    let disable_after = seconds_up(settings.disable_after);
    let reason = if outcome.gone {
        Some("the receiver answered 410 Gone".to_owned())
    } else {
        finished
            .failing_since
            .filter(|since| finished.applied && now - since >= disable_after)
            .map(|since| {
                format!(
                    "every attempt failed for {} without a success (since {})",
                    human(settings.disable_after),
                    chrono::DateTime::from_timestamp(since, 0)
                        .unwrap_or_default()
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                )
            })
    };
    if let Some(reason) = reason {
        disable(state, &delivery, &reason, now).await?;
    }
    Ok(())
}

/// Disables the webhook of `delivery` and audits it (once, by whoever disabled it).
async fn disable(
    state: &AppState,
    delivery: &Claimed,
    reason: &str,
    now: i64,
) -> switchboard_db::Result<()> {
    let Some(tenant) = deliveries::disable(&state.db, delivery.webhook_id, reason, now).await?
    else {
        return Ok(());
    };
    tracing::warn!(webhook = delivery.webhook_id, reason, "webhook disabled");
    crate::audit::record(
        state,
        NewEntry {
            action: "webhook.disabled",
            entity: "webhook",
            entity_id: Some(delivery.webhook_id.to_string()),
            tenant_id: Some(tenant),
            details: json!({"reason": reason, "url": delivery.url, "messageId": delivery.message_id}),
            ..NewEntry::default()
        },
    )
    .await;
    Ok(())
}

fn human(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        s if s >= 86_400 && s % 86_400 == 0 => format!("{} days", s / 86_400),
        s if s >= 3_600 && s % 3_600 == 0 => format!("{} hours", s / 3_600),
        s => format!("{s} seconds"),
    }
}

/// Posts `delivery`, signed for `timestamp`, with its webhook's credentials.
async fn send(
    state: &AppState,
    delivery: &Claimed,
    timestamp: i64,
) -> Result<client::Answer, String> {
    let url = reqwest::Url::parse(&delivery.url).map_err(|e| format!("invalid URL: {e}"))?;
    if !state.settings.webhooks.allow_private {
        client::check_literal(&url).map_err(|refused| refused.0)?;
    }
    let body = if delivery.webhook_type == HUBSPOT {
        let event: serde_json::Value = serde_json::from_str(&delivery.payload)
            .map_err(|e| format!("the stored event is not JSON: {e}"))?;
        hubspot::call_object(&event).to_string()
    } else {
        delivery.payload.clone()
    };
    let open = |sealed: &str| {
        state
            .sealer
            .open(sealed)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| "a stored webhook secret does not open".to_owned())
    };
    let mut keys = vec![open(&delivery.signing_secret_sealed)?];
    if let (Some(previous), Some(until)) = (
        &delivery.previous_secret_sealed,
        delivery.previous_secret_expires_at,
    ) && until > timestamp
    {
        keys.push(open(previous)?);
    }
    let keys: Vec<Vec<u8>> = keys
        .iter()
        .map(|secret| signing::key_of(secret).ok_or("a signing secret is not base64"))
        .collect::<Result<_, _>>()?;
    let signature =
        signing::signature_header(&keys, &delivery.message_id, timestamp, body.as_bytes());
    let mut request = state
        .deliveries
        .inner
        .client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("webhook-id", &delivery.message_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(body);
    let password = delivery.password_sealed.as_deref().map(open).transpose()?;
    let token = delivery.authtoken_sealed.as_deref().map(open).transpose()?;
    let basic = !delivery.username.is_empty() || password.is_some();
    // HubSpot authenticates with the bearer token; other receivers with Basic when a user
    // or password is set, else with the token when one is.
    match (delivery.webhook_type == HUBSPOT, basic, token) {
        (true, _, Some(token)) | (false, false, Some(token)) => {
            request = request.bearer_auth(token);
        }
        (_, true, _) => request = request.basic_auth(&delivery.username, password),
        _ => {}
    }
    client::send(request).await
}
