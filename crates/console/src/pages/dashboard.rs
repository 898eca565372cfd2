//! Today at a glance: each figure read from the API as the signed-in person, the reads
//! made at once. A figure the person may not read (the API answers 403) says so instead
//! of failing the page.

use askama::Template;
use axum::http::StatusCode;
use axum::response::Response;
use futures::future::try_join_all;
use serde_json::Value;

use super::audit::{Entry, entry_of};
use super::{Chrome, html, query, tenant_pair};
use crate::visit::{PageError, PageResult, Visit, refusal};

/// Calls of a period.
struct CallFigures {
    total: i64,
    answered: i64,
    missed: i64,
    mean_wait: String,
}

impl CallFigures {
    fn of(figures: &Value) -> CallFigures {
        CallFigures {
            total: figures["total"].as_i64().unwrap_or(0),
            answered: figures["answered"].as_i64().unwrap_or(0),
            missed: figures["missed"].as_i64().unwrap_or(0),
            mean_wait: match figures["averageWaitSeconds"].as_f64() {
                Some(seconds) => format!("{seconds:.0} s"),
                None => "–".to_owned(),
            },
        }
    }
}

/// A running campaign and how far it is.
struct Campaign {
    name: String,
    done: i64,
    total: i64,
}

#[derive(Template)]
#[template(path = "dashboard.html")]
struct Dashboard {
    chrome: Chrome,
    today: Option<CallFigures>,
    week: Option<CallFigures>,
    unread_voicemail: Option<i64>,
    campaigns: Option<Vec<Campaign>>,
    phones: Option<(i64, i64)>,
    failed_deliveries: Option<i64>,
    changes: Option<Vec<Entry>>,
}

/// `GET /console/`.
pub(crate) async fn show(mut visit: Visit) -> Response {
    let page = dashboard(&mut visit).await;
    visit.finish(page)
}

async fn dashboard(visit: &mut Visit) -> PageResult {
    let person = visit.acting().await?;
    let token = person.access_token.as_str();
    let tenant = tenant_pair(&person);
    let with_tenant = |path: &str, mut pairs: Vec<(&'static str, String)>| {
        pairs.extend(tenant.iter().cloned());
        format!("{path}?{}", query(&pairs))
    };
    let one = || ("recordsPerPage", "1".to_owned());
    let reads = &*visit;
    let (calls, voicemail, campaigns, registered, unregistered, deliveries, changes) = tokio::join!(
        read(
            reads,
            token,
            with_tenant(
                "/v2/admin/reporting/calls/",
                vec![one(), ("groupBy", "day".to_owned())]
            )
        ),
        read(
            reads,
            token,
            with_tenant(
                "/v2/admin/voicemail-messages/",
                vec![one(), ("stats", "1".to_owned())]
            )
        ),
        running_campaigns(
            reads,
            token,
            with_tenant(
                "/v2/admin/call-campaigns/",
                vec![
                    ("recordsPerPage", "5".to_owned()),
                    ("status", "running".to_owned())
                ]
            )
        ),
        read(
            reads,
            token,
            with_tenant(
                "/v2/admin/devices/",
                vec![one(), ("registered", "1".to_owned())]
            )
        ),
        read(
            reads,
            token,
            with_tenant(
                "/v2/admin/devices/",
                vec![one(), ("registered", "0".to_owned())]
            )
        ),
        failed_deliveries(
            reads,
            token,
            with_tenant("/v2/webhooks/", vec![("recordsPerPage", "20".to_owned())])
        ),
        read(
            reads,
            token,
            with_tenant(
                "/v2/admin/audit-log/",
                vec![
                    ("recordsPerPage", "10".to_owned()),
                    ("sortBy", "id".to_owned()),
                    ("sortDirection", "desc".to_owned())
                ]
            )
        ),
    );
    let calls = calls?;
    let (today, week) = match &calls {
        Some(report) => {
            let aggregates = &report["aggregates"];
            (
                Some(today_of(aggregates)),
                Some(CallFigures::of(&aggregates["totals"])),
            )
        }
        None => (None, None),
    };
    let page = Dashboard {
        chrome: visit.chrome("today"),
        today,
        week,
        unread_voicemail: voicemail?.map(|v| v["stats"]["unread"].as_i64().unwrap_or(0)),
        campaigns: campaigns?,
        phones: match (registered?, unregistered?) {
            (Some(yes), Some(no)) => Some((total(&yes), total(&no))),
            _ => None,
        },
        failed_deliveries: deliveries?,
        changes: changes?.map(|page| {
            page["records"]
                .as_array()
                .map(|entries| entries.iter().map(entry_of).collect())
                .unwrap_or_default()
        }),
    };
    html(&page)
}

/// Today's figures: the bucket of today's date in the report's time zone (none yet:
/// no calls today).
fn today_of(aggregates: &Value) -> CallFigures {
    let zone = aggregates["timeZone"]
        .as_str()
        .and_then(|z| z.parse::<chrono_tz::Tz>().ok())
        .unwrap_or(chrono_tz::UTC);
    let today = chrono::Utc::now()
        .with_timezone(&zone)
        .format("%Y-%m-%d")
        .to_string();
    let bucket = aggregates["buckets"]
        .as_array()
        .and_then(|buckets| buckets.iter().find(|b| b["period"] == today.as_str()));
    CallFigures::of(bucket.unwrap_or(&Value::Null))
}

fn total(page: &Value) -> i64 {
    page["totalRecords"].as_i64().unwrap_or(0)
}

/// A read of the API as the person: its JSON; `None` when the person may not read it.
async fn read(visit: &Visit, token: &str, path: String) -> Result<Option<Value>, PageError> {
    let answer = visit
        .send(axum::http::Method::GET, &path, Some(token), None)
        .await?;
    match answer.status {
        status if status.is_success() => Ok(Some(answer.json())),
        StatusCode::FORBIDDEN => Ok(None),
        StatusCode::UNAUTHORIZED => Err(PageError::SignIn),
        _ => Err(refusal(&answer)),
    }
}

/// The running campaigns (the first five) with their records done and in all.
async fn running_campaigns(
    visit: &Visit,
    token: &str,
    path: String,
) -> Result<Option<Vec<Campaign>>, PageError> {
    let Some(page) = read(visit, token, path).await? else {
        return Ok(None);
    };
    let campaigns = page["records"].as_array().cloned().unwrap_or_default();
    let progress = campaigns.iter().map(|campaign| async move {
        let id = campaign["id"].as_i64().unwrap_or(0);
        let records = format!("/v2/admin/call-campaigns/{id}/records");
        let all = read(visit, token, format!("{records}?recordsPerPage=1")).await?;
        let pending = read(
            visit,
            token,
            format!("{records}?recordsPerPage=1&status=pending"),
        )
        .await?;
        let all = all.as_ref().map_or(0, total);
        Ok::<_, PageError>(Campaign {
            name: campaign["name"].as_str().unwrap_or_default().to_owned(),
            done: all - pending.as_ref().map_or(0, total),
            total: all,
        })
    });
    Ok(Some(try_join_all(progress).await?))
}

/// Failed deliveries of the tenant's webhooks (the first twenty webhooks).
async fn failed_deliveries(
    visit: &Visit,
    token: &str,
    path: String,
) -> Result<Option<i64>, PageError> {
    let Some(page) = read(visit, token, path).await? else {
        return Ok(None);
    };
    let webhooks = page["records"].as_array().cloned().unwrap_or_default();
    let counts = webhooks.iter().map(|webhook| async move {
        let id = webhook["id"].as_i64().unwrap_or(0);
        let failed = read(
            visit,
            token,
            format!("/v2/webhooks/{id}/deliveries?recordsPerPage=1&state=failed"),
        )
        .await?;
        Ok::<_, PageError>(failed.as_ref().map_or(0, total))
    });
    Ok(Some(try_join_all(counts).await?.into_iter().sum()))
}
