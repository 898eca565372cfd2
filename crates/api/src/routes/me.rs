//! `/v2/users/me`: what callers do to their own account — change the password, and turn
//! multi-factor login (TOTP) on and off.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use serde_json::{Value, json};
use switchboard_db::audit::NewEntry;
use switchboard_db::{seal, security, users};
use switchboard_domain::declare::Body;
use switchboard_domain::records::user::{PASSWORD, User};
use switchboard_domain::validation::{Chars, text};
use switchboard_domain::{Location, Principal};
use utoipa::ToSchema;

use crate::audit::{self, now};
use crate::auth::caller::Caller;
use crate::auth::{lockout, totp};
use crate::client::ClientAddress;
use crate::error::{ApiError, ApiResult};
use crate::extract::JsonBody;
use crate::state::AppState;

/// The body of `PATCH /v2/users/me/password`.
#[derive(Debug, Body)]
pub struct ChangePassword {
    /// The current password.
    #[field(rule = text(1, 1024))]
    pub old_password: String,
    /// The new password: 12 to 128 characters, not a common one, not the current one.
    #[field(rule = PASSWORD)]
    pub new_password: String,
}

/// The answer to a password change.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PasswordChanged {
    /// Always true.
    pub password_changed: bool,
    /// How many sessions (logins) ended with it: all of them, this one included.
    pub sessions_revoked: u64,
}

/// A body carrying the account's password, to confirm a sensitive change.
#[derive(Debug, Body)]
pub struct ConfirmPassword {
    /// The account's current password.
    #[field(rule = text(1, 1024))]
    pub password: String,
}

/// A TOTP code: exactly six digits.
const SIX_DIGITS: Chars = Chars {
    min: 6,
    max: 6,
    pattern: "^[0-9]{6}$",
    allowed: |c| c.is_ascii_digit(),
    sample: "123456",
};

/// A body carrying a one-time code.
#[derive(Debug, Body)]
pub struct ConfirmCode {
    /// The 6-digit code the authenticator app shows now.
    #[field(rule = SIX_DIGITS)]
    pub code: String,
}

/// A TOTP enrolment: shown once.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TotpEnrolment {
    /// The `otpauth://` URI to show as a QR code to the authenticator app.
    pub otpauth_uri: String,
    /// The same secret in base32, for typing in by hand.
    pub secret: String,
}

/// The answer when multi-factor login turns on.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MfaEnabled {
    /// 1: multi-factor login is on.
    pub mfa_enabled: i64,
    /// Ten single-use recovery codes, shown once: each logs in (as `otp`) without the app.
    pub recovery_codes: Vec<String>,
}

/// The answer when multi-factor login turns off.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MfaDisabled {
    /// 0: multi-factor login is off.
    pub mfa_enabled: i64,
}

async fn me(state: &AppState, caller: &Principal) -> ApiResult<User> {
    users::find(&state.db, caller.user_id)
        .await?
        .ok_or_else(ApiError::not_found)
}

fn entry(action: &'static str, entity: &'static str, user: &User, address: &str) -> NewEntry {
    NewEntry {
        action,
        entity,
        user_id: Some(user.id),
        tenant_id: user.tenant_id.get(),
        user_email: user.email.clone(),
        client_address: address.to_owned(),
        details: Value::Null,
        ..NewEntry::default()
    }
}

/// Re-authenticates a change with the account's password, under the same lockout as a
/// login ([`lockout::attempt`]): a stolen access token is no password oracle.
async fn check_password(
    state: &AppState,
    user: &User,
    address: &str,
    password: String,
    field: &str,
) -> ApiResult<()> {
    let now = now();
    let attempt = lockout::attempt(state, &user.email, address, now).await?;
    let credentials = users::credentials_by_email(&state.db, &user.email).await?;
    let valid = state
        .passwords
        .verify(password, credentials.map(|c| c.password_hash))
        .await?
        .matches;
    if valid {
        attempt.succeeded(state, now).await
    } else {
        Err(ApiError::invalid(
            Location::Body,
            field,
            "does not match the current password",
        ))
    }
}

/// Changes the caller's password. Every session of the account ends, this one included.
#[utoipa::path(patch, operation_id = "changePassword", path = "/v2/users/me/password", tag = "account",
    request_body = ChangePassword,
    responses((status = 200, description = "Changed; log in again", body = PasswordChanged)))]
pub async fn change_password(
    caller: Caller,
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    JsonBody(body): JsonBody<ChangePassword>,
) -> ApiResult<Json<PasswordChanged>> {
    let user = me(&state, &caller).await?;
    if body.old_password == body.new_password {
        return Err(ApiError::invalid(
            Location::Body,
            "newPassword",
            "must differ from the current password",
        ));
    }
    check_password(&state, &user, &address, body.old_password, "oldPassword").await?;
    let hash = state.passwords.hash(body.new_password).await?;
    // The new password and the end of every session land together.
    let revoked = security::set_password(&state.db, caller.user_id, &hash, now()).await?;
    let mut changed = entry("password.change", "password", &user, &address);
    changed.details = json!({"sessionsRevoked": revoked});
    audit::record(&state, changed).await;
    Ok(Json(PasswordChanged {
        password_changed: true,
        sessions_revoked: revoked,
    }))
}

/// Starts TOTP enrolment, confirmed with the account's password: answers a new secret
/// once. It takes effect when confirmed with a code from the app.
#[utoipa::path(post, operation_id = "enrolTotp", path = "/v2/users/me/mfa/totp", tag = "account",
    request_body = ConfirmPassword,
    responses((status = 200, description = "Scan this into the authenticator app", body = TotpEnrolment)))]
pub async fn enrol_totp(
    caller: Caller,
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    JsonBody(body): JsonBody<ConfirmPassword>,
) -> ApiResult<Json<TotpEnrolment>> {
    let user = me(&state, &caller).await?;
    check_password(&state, &user, &address, body.password, "password").await?;
    if user.mfa_enabled == 1 {
        return Err(ApiError::conflict(
            "multi-factor login is already on; turn it off first",
        ));
    }
    let secret = totp::new_secret();
    let seat = seal::pending_totp_secret(caller.user_id.get());
    security::set_pending_secret(&state.db, caller.user_id, &state.sealer.seal(seat, &secret))
        .await?;
    audit::record(&state, entry("mfa.enrol", "mfa", &user, &address)).await;
    Ok(Json(TotpEnrolment {
        otpauth_uri: totp::otpauth_uri("Switchboard", &user.email, &secret),
        secret: totp::base32(&secret),
    }))
}

/// Confirms TOTP enrolment with a current code: multi-factor login is on from now, and the
/// recovery codes are answered, once.
#[utoipa::path(post, operation_id = "confirmTotp", path = "/v2/users/me/mfa/totp/confirm", tag = "account",
    request_body = ConfirmCode,
    responses((status = 200, description = "Multi-factor login is on", body = MfaEnabled)))]
pub async fn confirm_totp(
    caller: Caller,
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    JsonBody(body): JsonBody<ConfirmCode>,
) -> ApiResult<Json<MfaEnabled>> {
    let user = me(&state, &caller).await?;
    let mfa = security::mfa_state(&state.db, caller.user_id).await?;
    let Some(secret) = mfa.mfa_pending_secret.as_deref().and_then(|s| {
        let seat = seal::pending_totp_secret(caller.user_id.get());
        state.sealer.open(seat, s)
    }) else {
        return Err(ApiError::conflict(
            "no enrolment is pending: start one with POST /v2/users/me/mfa/totp",
        ));
    };
    let step = totp::verify(&secret, body.code.trim(), u64::try_from(now()).unwrap_or(0))
        .ok_or_else(|| ApiError::invalid(Location::Body, "code", "is wrong or expired"))?;
    let codes = totp::recovery_codes();
    let hashes: Vec<String> = codes.iter().map(|c| totp::recovery_hash(c)).collect();
    let step = i64::try_from(step).unwrap_or(i64::MAX);
    security::enable_mfa(
        &state.db,
        caller.user_id,
        &state
            .sealer
            .seal(seal::totp_secret(caller.user_id.get()), &secret),
        step,
        &hashes,
    )
    .await?;
    audit::record(&state, entry("mfa.enable", "mfa", &user, &address)).await;
    Ok(Json(MfaEnabled {
        mfa_enabled: 1,
        recovery_codes: codes,
    }))
}

/// Turns multi-factor login off, confirmed with the account's password.
#[utoipa::path(post, operation_id = "disableTotp", path = "/v2/users/me/mfa/totp/disable", tag = "account",
    request_body = ConfirmPassword,
    responses((status = 200, description = "Multi-factor login is off", body = MfaDisabled)))]
pub async fn disable_totp(
    caller: Caller,
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    JsonBody(body): JsonBody<ConfirmPassword>,
) -> ApiResult<Json<MfaDisabled>> {
    let user = me(&state, &caller).await?;
    check_password(&state, &user, &address, body.password, "password").await?;
    security::disable_mfa(&state.db, caller.user_id).await?;
    audit::record(&state, entry("mfa.disable", "mfa", &user, &address)).await;
    Ok(Json(MfaDisabled { mfa_enabled: 0 }))
}
