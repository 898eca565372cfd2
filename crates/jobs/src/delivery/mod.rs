//! Webhook delivery (interface §9): a worker in every `serve` process claims due deliveries
//! from the outbox under a lease, signs and posts them, records every attempt, retries on
//! the schedule, and disables webhooks whose receivers are gone (410) or have failed for
//! days. Several processes on one database share the work; each delivery is leased to one
//! of them at a time.

pub mod client;
pub mod hubspot;
pub mod schedule;
mod settings;
pub mod signing;

use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::json;
use switchboard_db::audit::NewEntry;
use switchboard_db::deliveries::{self, AttemptRecord, Claimed, Next};
use switchboard_domain::records::webhook::HUBSPOT;

use crate::Jobs;
use crate::worker::{Queue, seconds_up};
pub use schedule::Schedule;
pub use settings::DeliverySettings;

/// The outbox, worked by this process.
#[derive(Clone, Debug)]
pub(crate) struct Outbox(pub(crate) Jobs);

impl Queue for Outbox {
    type Item = Claimed;
    const NAME: &'static str = "webhook deliveries";

    async fn claim(&self, limit: usize) -> Vec<Claimed> {
        let jobs = &self.0;
        let now = Utc::now().timestamp();
        let lease_until = jobs.settings().lease_until(now);
        let limit = u64::try_from(limit).unwrap_or(u64::MAX);
        match deliveries::claim(jobs.db(), jobs.owner(), now, lease_until, limit).await {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::warn!(%error, "claiming webhook deliveries failed");
                Vec::new()
            }
        }
    }

    async fn work(&self, delivery: Claimed) {
        let recorded = if delivery.disabled_at.is_some() {
            // Queued by an event that raced the disabling (or a test whose sender died):
            // nothing goes to a disabled webhook from the outbox.
            not_sent(&self.0, &delivery).await
        } else {
            attempt(&self.0, delivery).await
        };
        if let Err(error) = recorded {
            tracing::error!(%error, "recording a webhook attempt failed");
        }
    }
}

/// What an attempt came to.
struct Outcome {
    record: AttemptRecord,
    next: Next,
    gone: bool,
}

/// Makes one attempt of `delivery` (leased to this process), recorded before its request
/// leaves (so a crash during it leaves it counted: delivery is at least once, and the
/// receiver de-duplicates on `webhook-id`) and completed with its outcome, then applies
/// what follows: delivered, a retry, failed; a 410 Gone or too long a run of failures
/// disables the webhook, with an audit entry saying why. Nothing is sent when the
/// delivery is no longer this process's or its webhook is gone.
pub async fn attempt(jobs: &Jobs, delivery: Claimed) -> switchboard_db::Result<()> {
    let settings = jobs.settings();
    let started = Utc::now();
    let Some(attempt_id) = deliveries::start(
        jobs.db(),
        &delivery,
        jobs.owner(),
        started.timestamp_millis(),
    )
    .await?
    else {
        return Ok(());
    };
    let clock = Instant::now();
    let answer = send(jobs, &delivery, started.timestamp()).await;
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
                status_code: None,
                latency_ms,
                response_excerpt: String::new(),
                error: Some(error),
            },
            next: retry(None),
            gone: false,
        },
    };
    // Counted per attempt, by what it led to (alert on a growing share of failures).
    let counted = match &outcome.next {
        Next::Delivered => "delivered",
        Next::RetryAt(_) => "retry",
        Next::Failed => "failed",
    };
    metrics::counter!("switchboard_webhook_attempts_total", "outcome" => counted).increment(1);
    metrics::histogram!("switchboard_webhook_attempt_seconds")
        .record(clock.elapsed().as_secs_f64());
    let now = finished_at.timestamp();
    let finished = deliveries::finish(
        jobs.db(),
        &delivery,
        jobs.owner(),
        attempt_id,
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
        disable(jobs, &delivery, &reason, now).await?;
    }
    Ok(())
}

/// Fails `delivery` without sending it, its webhook being disabled; the attempt says why.
async fn not_sent(jobs: &Jobs, delivery: &Claimed) -> switchboard_db::Result<()> {
    let now = Utc::now();
    let Some(attempt_id) =
        deliveries::start(jobs.db(), delivery, jobs.owner(), now.timestamp_millis()).await?
    else {
        return Ok(());
    };
    let record = AttemptRecord {
        status_code: None,
        latency_ms: 0,
        response_excerpt: String::new(),
        error: Some("not sent: the webhook is disabled".to_owned()),
    };
    deliveries::finish(
        jobs.db(),
        delivery,
        jobs.owner(),
        attempt_id,
        &record,
        Next::Failed,
        now.timestamp(),
    )
    .await?;
    Ok(())
}

/// Disables the webhook of `delivery` and audits it (once, by whoever disabled it).
async fn disable(
    jobs: &Jobs,
    delivery: &Claimed,
    reason: &str,
    now: i64,
) -> switchboard_db::Result<()> {
    let Some(tenant) = deliveries::disable(jobs.db(), delivery.webhook_id, reason, now).await?
    else {
        return Ok(());
    };
    tracing::warn!(
        webhook = delivery.webhook_id.get(),
        reason,
        "webhook disabled"
    );
    let entry = NewEntry {
        action: "webhook.disabled",
        entity: "webhook",
        entity_id: Some(delivery.webhook_id.to_string()),
        tenant_id: Some(tenant),
        details: json!({"reason": reason, "url": delivery.url, "messageId": delivery.message_id}),
        ..NewEntry::default()
    };
    if let Err(error) = switchboard_db::audit::record(jobs.db(), entry).await {
        // The webhook is disabled either way; the trail misses the entry, the log has it.
        tracing::error!(%error, webhook = delivery.webhook_id.get(), "could not audit a disabled webhook");
    }
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
async fn send(jobs: &Jobs, delivery: &Claimed, timestamp: i64) -> Result<client::Answer, String> {
    let url = reqwest::Url::parse(&delivery.url).map_err(|e| format!("invalid URL: {e}"))?;
    if !jobs.settings().allow_private {
        client::check_literal(&url).map_err(|refused| refused.0)?;
    }
    let body = if delivery.webhook_type == HUBSPOT {
        let event: serde_json::Value = serde_json::from_str(&delivery.payload)
            .map_err(|e| format!("the stored event is not JSON: {e}"))?;
        hubspot::call_object(&event).to_string()
    } else {
        delivery.payload.clone()
    };
    use switchboard_db::seal;
    let id = delivery.webhook_id.get();
    let open = |seat: seal::Seat, sealed: &str| {
        jobs.sealer()
            .open(seat, sealed)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| "a stored webhook secret does not open".to_owned())
    };
    let signing = |sealed: &str| open(seal::webhook_signing_secret(id), sealed);
    let mut keys = vec![signing(&delivery.signing_secret_sealed)?];
    if let (Some(previous), Some(until)) = (
        &delivery.previous_secret_sealed,
        delivery.previous_secret_expires_at,
    ) && until > timestamp
    {
        keys.push(signing(previous)?);
    }
    let keys: Vec<Vec<u8>> = keys
        .iter()
        .map(|secret| signing::key_of(secret).ok_or("a signing secret is not base64"))
        .collect::<Result<_, _>>()?;
    let signature =
        signing::signature_header(&keys, &delivery.message_id, timestamp, body.as_bytes());
    let mut request = jobs
        .client()
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("webhook-id", &delivery.message_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(body);
    let password = delivery
        .password_sealed
        .as_deref()
        .map(|sealed| open(seal::webhook_password(id), sealed))
        .transpose()?;
    let token = delivery
        .authtoken_sealed
        .as_deref()
        .map(|sealed| open(seal::webhook_authtoken(id), sealed))
        .transpose()?;
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
