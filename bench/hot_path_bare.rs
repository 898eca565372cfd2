//! The shared-nothing reference for `bench/hot_path.py` (issue 32): what a careful person
//! would write by hand for the same three authenticated GETs — axum, sqlx and jsonwebtoken
//! only, no `switchboard_*` crate (its test below checks that, run by `cargo test`).
//!
//! Each handler checks the HS256 token as the service does (algorithm, issuer, audience,
//! expiry, the required claims) and answers the same JSON, field for field, with the SQL
//! one would write for it: the record by id and tenant, then each list it carries in one
//! prepared statement, a destination's target name and number read from the one table its
//! type names. Because nothing here is the service's code, the ratio the benchmark prints
//! against it measures every layer of the service: HTTP, scope, data layer and all.
//!
//! Configured like the service: `SWITCHBOARD_DATABASE_URL`, `SWITCHBOARD_JWT_SECRET`,
//! `SWITCHBOARD_LISTEN` (default 127.0.0.1:8091) and `SWITCHBOARD_DB_MAX_CONNECTIONS`
//! (default 10, the service's). Run: `cargo run --release --example hot_path_bare`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use jsonwebtoken::crypto::{CryptoProvider, JwtVerifier, KeyUtils};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
use sqlx::{FromRow, PgPool, SqlitePool};

/// sqlx's `FromRow` for a struct whose fields are its columns, on both backends, written
/// out here: the reference shares no derive with the service, and the build compiles no
/// derive macros of sqlx's.
macro_rules! from_row {
    ($name:ident { $($field:ident),* $(,)? }) => {
        from_row!(@ $name, sqlx::sqlite::SqliteRow, $($field),*);
        from_row!(@ $name, sqlx::postgres::PgRow, $($field),*);
    };
    (@ $name:ident, $row:ty, $($field:ident),*) => {
        impl FromRow<'_, $row> for $name {
            fn from_row(row: &$row) -> Result<Self, sqlx::Error> {
                use sqlx::Row;
                Ok(Self { $($field: row.try_get(stringify!($field))?),* })
            }
        }
    };
}

/// HS256 on ring's HMAC: jsonwebtoken's cryptography for the reference (the service has
/// its own, on RustCrypto's `hmac`), which verifies tokens and never signs one.
struct RingHs256(ring::hmac::Key);

impl signature::Verifier<Vec<u8>> for RingHs256 {
    fn verify(&self, message: &[u8], tag: &Vec<u8>) -> Result<(), signature::Error> {
        ring::hmac::verify(&self.0, message, tag).map_err(|_| signature::Error::new())
    }
}

impl JwtVerifier for RingHs256 {
    fn algorithm(&self) -> Algorithm {
        Algorithm::HS256
    }
}

static RING_HS256: CryptoProvider = CryptoProvider {
    signer_factory: |_, _| Err(ErrorKind::InvalidAlgorithm.into()),
    verifier_factory: |algorithm, key| match algorithm {
        Algorithm::HS256 => Ok(Box::new(RingHs256(ring::hmac::Key::new(
            ring::hmac::HMAC_SHA256,
            key.try_get_as_bytes()?,
        )))),
        _ => Err(ErrorKind::InvalidAlgorithm.into()),
    },
    key_utils: KeyUtils::new_unimplemented(),
};

/// The two databases, each with its own pool type (no `Any` driver: it would add a layer).
#[derive(Clone)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$query` (a `sqlx::query_as` built for the pool's driver) on whichever pool it is.
macro_rules! on_pool {
    ($pool:expr, |$p:ident| $query:expr) => {
        match $pool {
            Pool::Sqlite($p) => $query,
            Pool::Postgres($p) => $query,
        }
    };
}

#[derive(Clone)]
struct Bare {
    pool: Pool,
    key: DecodingKey,
    validation: Validation,
}

/// The claims read from the token (the service signs more; only these are needed).
#[derive(Deserialize)]
struct Claims {
    sub: String,
    tid: i64,
}

/// The tenant the bearer token names, or 401.
fn tenant(state: &Bare, headers: &HeaderMap) -> Result<i64, StatusCode> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .ok_or(StatusCode::UNAUTHORIZED)?;
    let claims = jsonwebtoken::decode::<Claims>(token.trim(), &state.key, &state.validation)
        .map_err(|_| StatusCode::UNAUTHORIZED)?
        .claims;
    match claims.sub.parse::<i64>() {
        Ok(user) if user > 0 => Ok(claims.tid),
        _ => Err(StatusCode::UNAUTHORIZED),
    }
}

/// 404 for no row, 500 for a database error, else the JSON.
fn answer<T: Serialize>(found: Result<Option<T>, sqlx::Error>) -> Response {
    match found {
        Ok(Some(record)) => Json(record).into_response(),
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A destination with its target's name and number.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Destination {
    #[serde(skip)]
    list: String,
    id: i64,
    dest_type: String,
    order: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    type_src: Option<String>,
    name: Option<String>,
    number: Option<String>,
}

from_row!(Destination {
    list,
    id,
    dest_type,
    order,
    type_src,
    name,
    number
});

/// The destinations of one owner, every list, in order: each target's name and number
/// from the one table its type names (a `CASE` picks the subquery, so a row costs one
/// index probe whatever the number of kinds).
const DESTINATIONS: &str = "
SELECT d.list, d.target_id AS id, d.dest_type, d.sort_order AS \"order\", d.type_src,
  CASE d.dest_type
    WHEN 'EXT' THEN (SELECT name FROM extensions WHERE id = d.target_id)
    WHEN 'VOICEMAIL' THEN (SELECT name FROM extensions WHERE id = d.target_id)
    WHEN 'IVR' THEN (SELECT name FROM ivrs WHERE id = d.target_id)
    WHEN 'PAGING_GROUP' THEN (SELECT name FROM paging_groups WHERE id = d.target_id)
    WHEN 'QUEUE' THEN (SELECT name FROM queues WHERE id = d.target_id)
    WHEN 'PHARMACY_AGENT' THEN (SELECT name FROM pharmacy_agents WHERE id = d.target_id)
    WHEN 'BUSINESS_HOUR' THEN (SELECT name FROM business_hours WHERE id = d.target_id)
    WHEN 'MEDIA_FILE' THEN (SELECT name FROM media_files WHERE id = d.target_id)
  END AS name,
  CASE d.dest_type
    WHEN 'EXT' THEN (SELECT number FROM extensions WHERE id = d.target_id)
    WHEN 'VOICEMAIL' THEN (SELECT number FROM extensions WHERE id = d.target_id)
    WHEN 'IVR' THEN (SELECT number FROM ivrs WHERE id = d.target_id)
    WHEN 'PAGING_GROUP' THEN (SELECT number FROM paging_groups WHERE id = d.target_id)
    WHEN 'QUEUE' THEN (SELECT number FROM queues WHERE id = d.target_id)
    WHEN 'PHARMACY_AGENT' THEN (SELECT number FROM pharmacy_agents WHERE id = d.target_id)
    ELSE d.number
  END AS number
FROM destinations d
WHERE d.owner_type = $1 AND d.owner_id = $2
ORDER BY d.list, d.sort_order, d.position";

/// The destinations of `owner_type` `owner_id`.
async fn destinations(
    pool: &Pool,
    owner_type: &str,
    owner_id: i64,
) -> Result<Vec<Destination>, sqlx::Error> {
    on_pool!(pool, |p| sqlx::query_as(DESTINATIONS)
        .bind(owner_type)
        .bind(owner_id)
        .fetch_all(p)
        .await)
}

#[derive(Serialize)]
struct MediaRef {
    id: i64,
    name: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PagingGroup {
    id: i64,
    tenant_id: i64,
    number: Option<String>,
    name: String,
    check_in_use: Option<String>,
    two_way_audio: Option<String>,
    intro_message_media_file_id: i64,
    intro_message_media_file: Option<MediaRef>,
    routing_destinations: Vec<Destination>,
}

struct PagingGroupRow {
    id: i64,
    tenant_id: i64,
    number: Option<String>,
    name: String,
    check_in_use: Option<String>,
    two_way_audio: Option<String>,
    intro_id: Option<i64>,
    intro_name: Option<String>,
}

from_row!(PagingGroupRow {
    id,
    tenant_id,
    number,
    name,
    check_in_use,
    two_way_audio,
    intro_id,
    intro_name
});

const PAGING_GROUP: &str = "
SELECT g.id, g.tenant_id, g.number, g.name, g.check_in_use, g.two_way_audio,
       m.id AS intro_id, m.name AS intro_name
FROM paging_groups g LEFT JOIN media_files m ON m.id = g.intro_media_file_id
WHERE g.id = $1 AND g.tenant_id = $2";

async fn paging_group(
    State(state): State<Bare>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Response {
    let tenant = match tenant(&state, &headers) {
        Ok(tenant) => tenant,
        Err(refused) => return refused.into_response(),
    };
    let read = async {
        let row: Option<PagingGroupRow> = on_pool!(&state.pool, |p| sqlx::query_as(PAGING_GROUP)
            .bind(id)
            .bind(tenant)
            .fetch_optional(p)
            .await)?;
        let Some(row) = row else { return Ok(None) };
        let members = destinations(&state.pool, "paging_group", id).await?;
        Ok(Some(PagingGroup {
            id: row.id,
            tenant_id: row.tenant_id,
            number: row.number,
            name: row.name,
            check_in_use: row.check_in_use,
            two_way_audio: row.two_way_audio,
            intro_message_media_file_id: row.intro_id.unwrap_or(0),
            intro_message_media_file: row
                .intro_id
                .zip(row.intro_name)
                .map(|(id, name)| MediaRef { id, name }),
            routing_destinations: members,
        }))
    };
    answer(read.await)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Extension {
    id: i64,
    tenant_id: i64,
    branch_id: i64,
    number: String,
    name: String,
}

from_row!(Extension {
    id,
    tenant_id,
    branch_id,
    number,
    name
});

const EXTENSION: &str = "
SELECT id, tenant_id, COALESCE(branch_id, 0) AS branch_id, number, name
FROM extensions WHERE id = $1 AND tenant_id = $2";

async fn extension(State(state): State<Bare>, headers: HeaderMap, Path(id): Path<i64>) -> Response {
    let tenant = match tenant(&state, &headers) {
        Ok(tenant) => tenant,
        Err(refused) => return refused.into_response(),
    };
    let found: Result<Option<Extension>, _> = on_pool!(&state.pool, |p| sqlx::query_as(EXTENSION)
        .bind(id)
        .bind(tenant)
        .fetch_optional(p)
        .await);
    answer(found)
}

struct BusinessHourRow {
    id: i64,
    name: String,
    tenant_id: i64,
    timezone: String,
    hours: String,
    branch_id: i64,
    branch_name: String,
}

from_row!(BusinessHourRow {
    id,
    name,
    tenant_id,
    timezone,
    hours,
    branch_id,
    branch_name
});

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Holiday {
    id: i64,
    name: String,
    date: Option<String>,
    from: Option<String>,
    to: Option<String>,
    media_file_id: i64,
}

from_row!(Holiday {
    id,
    name,
    date,
    from,
    to,
    media_file_id
});

#[derive(Serialize)]
struct BranchRef {
    id: i64,
    name: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BusinessHour {
    id: i64,
    name: String,
    tenant_id: i64,
    timezone: String,
    /// Stored as the JSON the service writes: passed through as it is.
    hours: Box<RawValue>,
    match_destinations: Vec<Destination>,
    not_match_destinations: Vec<Destination>,
    branch: BranchRef,
    holidays: Vec<Holiday>,
}

const BUSINESS_HOUR: &str = "
SELECT h.id, h.name, h.tenant_id, h.timezone, h.hours, b.id AS branch_id, b.name AS branch_name
FROM business_hours h JOIN branches b ON b.id = h.branch_id
WHERE h.id = $1 AND h.tenant_id = $2";

const HOLIDAYS: &str = "
SELECT id, name, date, starts AS \"from\", ends AS \"to\", COALESCE(media_file_id, 0) AS media_file_id
FROM holidays WHERE business_hour_id = $1 ORDER BY id";

async fn business_hour(
    State(state): State<Bare>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Response {
    let tenant = match tenant(&state, &headers) {
        Ok(tenant) => tenant,
        Err(refused) => return refused.into_response(),
    };
    let read = async {
        let row: Option<BusinessHourRow> =
            on_pool!(&state.pool, |p| sqlx::query_as(BUSINESS_HOUR)
                .bind(id)
                .bind(tenant)
                .fetch_optional(p)
                .await)?;
        let Some(row) = row else { return Ok(None) };
        let lists = destinations(&state.pool, "business_hour", id).await?;
        let holidays: Vec<Holiday> = on_pool!(&state.pool, |p| sqlx::query_as(HOLIDAYS)
            .bind(id)
            .fetch_all(p)
            .await)?;
        let (matching, not_matching) = lists.into_iter().partition(|d| d.list == "match");
        Ok(Some(BusinessHour {
            id: row.id,
            name: row.name,
            tenant_id: row.tenant_id,
            timezone: row.timezone,
            hours: RawValue::from_string(row.hours).map_err(|e| sqlx::Error::Decode(e.into()))?,
            match_destinations: matching,
            not_match_destinations: not_matching,
            branch: BranchRef {
                id: row.branch_id,
                name: row.branch_name,
            },
            holidays,
        }))
    };
    answer(read.await)
}

#[tokio::main]
async fn main() {
    let env = |name: &str| std::env::var(name).ok();
    let url = env("SWITCHBOARD_DATABASE_URL").expect("SWITCHBOARD_DATABASE_URL");
    let secret = env("SWITCHBOARD_JWT_SECRET").expect("SWITCHBOARD_JWT_SECRET");
    let listen = env("SWITCHBOARD_LISTEN").unwrap_or_else(|| "127.0.0.1:8091".into());
    let max_connections = env("SWITCHBOARD_DB_MAX_CONNECTIONS")
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    let pool = if url.starts_with("postgres") {
        Pool::Postgres(
            PgPoolOptions::new()
                .max_connections(max_connections)
                .connect(&url)
                .await
                .expect("the database"),
        )
    } else {
        let options: SqliteConnectOptions = url.parse().expect("a sqlite:// URL");
        Pool::Sqlite(
            SqlitePoolOptions::new()
                .max_connections(max_connections)
                // As the service's pool: no ping before a connection to a local file is
                // handed out (it cannot go stale), so the two differ in their layers only.
                .test_before_acquire(false)
                .connect_with(
                    options
                        .journal_mode(SqliteJournalMode::Wal)
                        .busy_timeout(std::time::Duration::from_secs(10)),
                )
                .await
                .expect("the database"),
        )
    };
    RING_HS256
        .install_default()
        .expect("the first provider of the process");
    // The service's check: HS256 only, its issuer and audience, 5 s of leeway, and the
    // claims it requires.
    let mut validation = Validation::new(Algorithm::HS256);
    validation.leeway = 5;
    validation.set_issuer(&["switchboard"]);
    validation.set_audience(&["switchboard-api"]);
    validation.set_required_spec_claims(&["exp", "iat", "sub", "iss", "aud"]);
    let state = Bare {
        pool,
        key: DecodingKey::from_secret(secret.as_bytes()),
        validation,
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

#[cfg(test)]
mod tests {
    /// The reference is a reference only while it shares no code with what it measures.
    #[test]
    fn it_uses_no_crate_of_the_service() {
        let source = include_str!("hot_path_bare.rs");
        let crate_prefix = concat!("switchboard", "_");
        let code = source
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"));
        let found: Vec<&str> = code.filter(|line| line.contains(crate_prefix)).collect();
        assert!(found.is_empty(), "{found:?}");
    }
}
