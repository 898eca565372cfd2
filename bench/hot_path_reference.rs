//! The bare reference for `bench/hot_path.py`: an axum server that does only the work an
//! authenticated record GET cannot avoid — the same HS256 check (`Tokens::verify`) and the
//! same reads (`switchboard_db::{paging_groups, extensions, business_hours}::get`, with the
//! tenant scope the token names) on a pool with the same settings — and answers the same
//! JSON. No middleware, no account or session check, no rate limit, no logging.
//!
//! Configured like the service: `SWITCHBOARD_DATABASE_URL`, `SWITCHBOARD_JWT_SECRET`,
//! `SWITCHBOARD_LISTEN` (default 127.0.0.1:8090) and `SWITCHBOARD_DB_MAX_CONNECTIONS`
//! (default 10, the service's). Run: `cargo run --release --example hot_path_reference`.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use switchboard_api::auth::token::Tokens;
use switchboard_db::Db;
use switchboard_db::backend::ConnectOptions;
use switchboard_domain::Scope;
use switchboard_domain::ids::{BusinessHourId, ExtensionId, PagingGroupId, TenantId};

#[derive(Clone)]
struct Reference {
    db: Db,
    tokens: Tokens,
}

/// The token's tenant scope, or 401.
fn scope(state: &Reference, headers: &HeaderMap) -> Result<Scope, StatusCode> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .ok_or(StatusCode::UNAUTHORIZED)?;
    let verified = state
        .tokens
        .verify(token.trim())
        .ok_or(StatusCode::UNAUTHORIZED)?;
    Ok(Scope::Tenant(TenantId(verified.tenant)))
}

fn answer<T: serde::Serialize>(found: switchboard_db::Result<T>) -> Response {
    match found {
        Ok(record) => Json(record).into_response(),
        Err(switchboard_db::Error::NotFound) => StatusCode::NOT_FOUND.into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

async fn paging_group(
    State(state): State<Reference>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Response {
    match scope(&state, &headers) {
        Ok(scope) => {
            answer(switchboard_db::paging_groups::get(&state.db, &scope, PagingGroupId(id)).await)
        }
        Err(refused) => refused.into_response(),
    }
}

async fn extension(
    State(state): State<Reference>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Response {
    match scope(&state, &headers) {
        Ok(scope) => {
            answer(switchboard_db::extensions::get(&state.db, &scope, ExtensionId(id)).await)
        }
        Err(refused) => refused.into_response(),
    }
}

async fn business_hour(
    State(state): State<Reference>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Response {
    match scope(&state, &headers) {
        Ok(scope) => {
            answer(switchboard_db::business_hours::get(&state.db, &scope, BusinessHourId(id)).await)
        }
        Err(refused) => refused.into_response(),
    }
}

#[tokio::main]
async fn main() {
    let env = |name: &str| std::env::var(name).ok();
    let url = env("SWITCHBOARD_DATABASE_URL").expect("SWITCHBOARD_DATABASE_URL");
    let secret = env("SWITCHBOARD_JWT_SECRET").expect("SWITCHBOARD_JWT_SECRET");
    let listen = env("SWITCHBOARD_LISTEN").unwrap_or_else(|| "127.0.0.1:8090".into());
    let max_connections = env("SWITCHBOARD_DB_MAX_CONNECTIONS")
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    let db = Db::connect(&ConnectOptions {
        url,
        max_connections,
        statement_timeout: Some(switchboard_db::circuit::DEFAULT_STATEMENT_TIMEOUT),
    })
    .await
    .expect("the database");
    let state = Reference {
        db,
        tokens: Tokens::new(secret.as_bytes(), Duration::from_secs(900)),
    };
    let app = axum::Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/v2/admin/paging-groups/{id}", get(paging_group))
        .route("/v2/admin/extensions/{id}", get(extension))
        .route("/v2/admin/business-hours/{id}", get(business_hour))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind(&listen)
        .await
        .expect("the address");
    axum::serve(listener, app).await.expect("serving");
}
