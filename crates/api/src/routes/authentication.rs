//! `/v2/authentication/`: log in (with a second factor when the account has one), refresh
//! and log out. Failed logins are counted per account and per client address; past the
//! threshold the account answers 429 with a lock that doubles with each further failure
//! but never lasts long.

use axum::Json;
use axum::extract::State;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use serde::Serialize;
use serde_json::{Value, json};
use sha2::Digest;
use switchboard_db::audit::NewEntry;
use switchboard_db::sessions::{self, Rotation};
use switchboard_db::{security, users};
use switchboard_domain::declare::Body;
use switchboard_domain::ids::UserId;
use switchboard_domain::records::user::User;
use switchboard_domain::validation::text;
use utoipa::ToSchema;

use crate::audit::{self, now};
use crate::auth::{lockout, totp};
use crate::client::ClientAddress;
use crate::error::{ApiError, ApiResult};
use crate::extract::JsonBody;
use crate::state::AppState;

/// The login body.
#[derive(Debug, Body)]
pub struct LoginRequest {
    /// The account's e-mail address (case-insensitive).
    #[field(rule = text(1, 254))]
    pub email: String,
    /// The account's password.
    #[field(rule = text(1, 1024))]
    pub password: String,
    /// For accounts with multi-factor login: the current 6-digit code of the
    /// authenticator app, or one of the recovery codes.
    #[field(rule = text(1, 64))]
    pub otp: Option<String>,
}

/// The login answer: the User record, a bearer access token and a refresh token.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginResult {
    /// The user who logged in, with its effective permissions.
    pub user: User,
    /// A JWT to send as `Authorization: Bearer <accessToken>`.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds until the access token expires.
    pub expires_in: u64,
    /// An opaque token for `POST /v2/authentication/refresh`; each is used once.
    pub refresh_token: String,
    /// Seconds until the session (and so every refresh token of it) expires.
    pub refresh_expires_in: u64,
}

/// A new access token and the refresh token that replaces the one used.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshResult {
    /// A JWT to send as `Authorization: Bearer <accessToken>`.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds until the access token expires.
    pub expires_in: u64,
    /// The next refresh token; the one sent is now spent.
    pub refresh_token: String,
}

/// A body carrying a refresh token.
#[derive(Debug, Body)]
pub struct RefreshRequest {
    /// The refresh token from the login or the last refresh.
    #[field(rule = text(1, 512))]
    pub refresh_token: String,
}

/// The logout answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogoutResult {
    /// Always true: the session is over (or was already).
    pub logged_out: bool,
}

fn wrong_credentials() -> ApiError {
    ApiError::unauthorized("the e-mail address or password is wrong")
}

/// A new opaque refresh token and the hash it is stored as.
fn new_refresh_token() -> (String, String) {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let token = format!("sbr_{}", URL_SAFE_NO_PAD.encode(bytes));
    let hash = token_hash(&token);
    (token, hash)
}

/// How refresh tokens are stored: SHA-256 (they are random, so a slow hash adds nothing).
fn token_hash(token: &str) -> String {
    hex::encode(sha2::Sha256::digest(token.as_bytes()))
}

fn entry(action: &'static str, entity: &'static str, email: &str, address: &str) -> NewEntry {
    NewEntry {
        action,
        entity,
        user_email: email.to_owned(),
        client_address: address.to_owned(),
        details: Value::Null,
        ..NewEntry::default()
    }
}

/// Audits a failed login (the attempt itself is already counted).
async fn fail(state: &AppState, account: &str, address: &str, user: Option<&User>, why: &str) {
    crate::metrics::refused("login_failure");
    let mut failure = entry("login.failure", "authentication", account, address);
    failure.user_id = user.map(|u| u.id);
    failure.tenant_id = user.and_then(|u| u.tenant_id.get());
    failure.details = json!({"reason": why});
    audit::record(state, failure).await;
}

/// Fills in the user, e-mail and tenant of an entry about `user`'s session, so its
/// tenant sees it.
async fn attribute(state: &AppState, entry: &mut NewEntry, user: UserId) {
    entry.user_id = Some(user);
    if let Ok(Some(found)) = users::find(&state.db, user).await {
        entry.user_email = found.email.clone();
        entry.tenant_id = found.tenant_id.get();
    }
}

/// Checks a second factor: a TOTP code (each step accepted once) or an unused recovery code.
async fn second_factor(state: &AppState, user: UserId, code: &str, now: i64) -> ApiResult<bool> {
    let mfa = security::mfa_state(&state.db, user).await?;
    let secret = mfa.mfa_secret.as_deref().and_then(|sealed| {
        let seat = switchboard_db::seal::totp_secret(user.get());
        state.sealer.open(seat, sealed)
    });
    if let Some(secret) = secret
        && let Some(step) = totp::verify(&secret, code.trim(), u64::try_from(now).unwrap_or(0))
    {
        return Ok(
            security::accept_step(&state.db, user, i64::try_from(step).unwrap_or(i64::MAX)).await?,
        );
    }
    Ok(security::use_recovery_code(&state.db, user, &totp::recovery_hash(code), now).await?)
}

/// Opens a session and answers its tokens.
pub async fn open_session(
    state: &AppState,
    user: &User,
    address: &str,
) -> ApiResult<(String, String, u64)> {
    let now = now();
    let session = uuid::Uuid::new_v4().to_string();
    let (refresh, hash) = new_refresh_token();
    let ttl = state.settings.refresh_ttl.as_secs();
    let expires = now.saturating_add(i64::try_from(ttl).unwrap_or(i64::MAX));
    sessions::open(&state.db, user.id, &session, &hash, address, now, expires).await?;
    let access = state
        .tokens
        .issue(user.id, &session, user.tenant_id.or_zero(), user.user_role)
        .map_err(ApiError::internal)?;
    Ok((access, refresh, ttl))
}

/// Logs in. A wrong password and an unknown e-mail answer the same 401 in the same time;
/// an account with multi-factor login answers 401 `MfaRequired` until a valid `otp` comes
/// with the credentials; too many failures answer 429 with `Retry-After`.
#[utoipa::path(post, operation_id = "logIn", path = "/v2/authentication/", tag = "authentication",
    security(()),
    request_body = LoginRequest,
    responses((status = 200, description = "Logged in", body = LoginResult)))]
pub async fn login(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    JsonBody(body): JsonBody<LoginRequest>,
) -> ApiResult<Json<LoginResult>> {
    let account = body.email.to_lowercase();
    let now = now();
    let attempt = lockout::attempt(&state, &account, &address, now).await?;
    let credentials = users::credentials_by_email(&state.db, &body.email).await?;
    let (id, stored) = match credentials {
        Some(c) => (Some(c.id), Some(c.password_hash)),
        None => (None, None),
    };
    let verdict = state
        .passwords
        .verify(body.password.clone(), stored.clone())
        .await?;
    let valid = verdict.matches;
    let user = match id {
        Some(id) => users::find(&state.db, id).await?,
        None => None,
    };
    // A disabled account, or one whose placement does not fit its role, cannot log in;
    // it answers exactly like wrong credentials. The failure is attributed to the account
    // when there is one, so its tenant sees it in the audit trail.
    let usable = user
        .as_ref()
        .is_some_and(|u| u.disabled == 0 && u.principal().is_some());
    let Some(user) = user.clone().filter(|_| valid && usable) else {
        let why = if valid {
            "account unusable"
        } else {
            "wrong credentials"
        };
        fail(&state, &account, &address, user.as_ref(), why).await;
        return Err(wrong_credentials());
    };
    if user.mfa_enabled == 1 {
        let Some(code) = body.otp.as_deref() else {
            // The first step of a two-step login: no guess was judged a failure.
            attempt.withdraw(&state).await?;
            return Err(ApiError::unauthorized_as(
                "MfaRequired",
                "this account uses multi-factor login: send the authenticator code (or a recovery code) as otp",
            ));
        };
        if !second_factor(&state, user.id, code, now).await? {
            fail(
                &state,
                &account,
                &address,
                Some(&user),
                "wrong one-time code",
            )
            .await;
            return Err(ApiError::unauthorized_as(
                "MfaRequired",
                "the one-time code is wrong, expired or already used",
            ));
        }
    }
    attempt.succeeded(&state, now).await?;
    if verdict.outdated
        && let Some(stored) = &stored
    {
        rehash(&state, user.id, stored, body.password).await;
    }
    let (access_token, refresh_token, refresh_ttl) = open_session(&state, &user, &address).await?;
    let mut success = entry("login.success", "authentication", &user.email, &address);
    success.user_id = Some(user.id);
    success.tenant_id = user.tenant_id.get();
    success.details = json!({"mfa": user.mfa_enabled == 1});
    audit::record(&state, success).await;
    let id = user.id;
    Ok(Json(LoginResult {
        user: user.shown_to(id),
        access_token,
        token_type: "Bearer".into(),
        expires_in: state.tokens.ttl().as_secs(),
        refresh_token,
        refresh_expires_in: refresh_ttl,
    }))
}

/// Hashes a password that matched an outdated hash (made at another cost: the settings
/// changed since) again at the configured cost, and stores it over that hash alone. So an
/// account takes the new cost at its next login, and from then on its wrong passwords take
/// the time an unknown e-mail's do. The login stands whatever happens here; a failure is
/// logged and the next login tries again.
async fn rehash(state: &AppState, user: UserId, stored: &str, password: String) {
    let hash = match state.passwords.hash(password).await {
        Ok(hash) => hash,
        Err(error) => {
            tracing::warn!(%error, user = user.get(), "a password could not be hashed again at the configured cost");
            return;
        }
    };
    if let Err(error) = security::rehash_password(&state.db, user, stored, &hash).await {
        tracing::warn!(%error, user = user.get(), "a password hashed again at the configured cost could not be stored");
    }
}

/// Trades a refresh token for a new access token and a new refresh token. Each refresh
/// token works once: presenting a spent one revokes its whole session.
#[utoipa::path(post, operation_id = "refreshToken", path = "/v2/authentication/refresh", tag = "authentication",
    security(()),
    request_body = RefreshRequest,
    responses((status = 200, description = "New tokens", body = RefreshResult)))]
pub async fn refresh(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    JsonBody(body): JsonBody<RefreshRequest>,
) -> ApiResult<Json<RefreshResult>> {
    let now = now();
    let (next, next_hash) = new_refresh_token();
    let invalid = || ApiError::unauthorized("the refresh token is invalid, expired or revoked");
    let issued =
        match sessions::rotate(&state.db, &token_hash(&body.refresh_token), &next_hash, now).await?
        {
            Rotation::Rotated(issued) => issued,
            Rotation::Reused(issued) => {
                let mut reuse = entry("token.reuse", "session", "", &address);
                attribute(&state, &mut reuse, issued.user_id).await;
                reuse.entity_id = Some(issued.session_id);
                reuse.details = json!({"revoked": true});
                audit::record(&state, reuse).await;
                return Err(ApiError::unauthorized(
                    "the refresh token was already used: the session is revoked, log in again",
                ));
            }
            Rotation::Invalid => return Err(invalid()),
        };
    let user = users::find(&state.db, issued.user_id)
        .await?
        .filter(|u| u.disabled == 0)
        .ok_or_else(invalid)?;
    let access_token = state
        .tokens
        .issue(
            issued.user_id,
            &issued.session_id,
            user.tenant_id.or_zero(),
            user.user_role,
        )
        .map_err(ApiError::internal)?;
    let mut refreshed = entry("token.refresh", "session", &user.email, &address);
    refreshed.user_id = Some(issued.user_id);
    refreshed.tenant_id = user.tenant_id.get();
    refreshed.entity_id = Some(issued.session_id);
    audit::record(&state, refreshed).await;
    Ok(Json(RefreshResult {
        access_token,
        token_type: "Bearer".into(),
        expires_in: state.tokens.ttl().as_secs(),
        refresh_token: next,
    }))
}

/// Ends the session of a refresh token: it and every access token of the session stop
/// working at once. Answers the same whether or not the token was known.
#[utoipa::path(post, operation_id = "logOut", path = "/v2/authentication/logout", tag = "authentication",
    security(()),
    request_body = RefreshRequest,
    responses((status = 200, description = "Logged out", body = LogoutResult)))]
pub async fn logout(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    JsonBody(body): JsonBody<RefreshRequest>,
) -> ApiResult<Json<LogoutResult>> {
    if let Some(issued) = sessions::of_token(&state.db, &token_hash(&body.refresh_token)).await?
        && sessions::revoke(&state.db, &issued.session_id, "logout", now()).await? > 0
    {
        let mut out = entry("logout", "session", "", &address);
        attribute(&state, &mut out, issued.user_id).await;
        out.entity_id = Some(issued.session_id);
        audit::record(&state, out).await;
    }
    Ok(Json(LogoutResult { logged_out: true }))
}
