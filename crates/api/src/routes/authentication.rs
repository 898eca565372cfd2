//! `POST /v2/authentication/`: e-mail and password for the User record and an access token.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use serde_json::Value;
use switchboard_db::users;
use switchboard_domain::records::user::User;
use switchboard_domain::validation::{FromBody, ObjectReader, Problems, text};
use utoipa::ToSchema;

use crate::error::{ApiError, ApiResult};
use crate::extract::JsonBody;
use crate::state::AppState;

/// The login body.
#[derive(Debug, ToSchema)]
pub struct LoginRequest {
    /// The account's e-mail address (case-insensitive).
    #[schema(min_length = 1, max_length = 254)]
    pub email: String,
    /// The account's password.
    #[schema(min_length = 1, max_length = 1024)]
    pub password: String,
}

impl FromBody for LoginRequest {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.required("email", &text(1, 254)),
                r.required("password", &text(1, 1024)),
            )
        });
        problems.finish(|| {
            let (email, password) = fields?;
            Some(LoginRequest {
                email: email?,
                password: password?,
            })
        })
    }
}

/// The login answer: the User record and a bearer access token.
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
}

fn wrong_credentials() -> ApiError {
    ApiError::unauthorized("the e-mail address or password is wrong")
}

/// Logs in. A wrong password and an unknown e-mail answer the same 401 in the same time.
#[utoipa::path(post, path = "/v2/authentication/", tag = "authentication",
    security(()),
    request_body = LoginRequest,
    responses((status = 200, description = "Logged in", body = LoginResult)))]
pub async fn login(
    State(state): State<AppState>,
    JsonBody(body): JsonBody<LoginRequest>,
) -> ApiResult<Json<LoginResult>> {
    let credentials = users::credentials_by_email(&state.db, &body.email).await?;
    let (id, hash) = match credentials {
        Some(c) => (Some(c.id), Some(c.password_hash)),
        None => (None, None),
    };
    let valid = state
        .passwords
        .verify(body.password, hash)
        .await
        .map_err(ApiError::internal)?;
    let Some(id) = id.filter(|_| valid) else {
        return Err(wrong_credentials());
    };
    let user = users::find(&state.db, id)
        .await?
        .ok_or_else(wrong_credentials)?;
    // An account whose placement does not fit its role could not use a token.
    user.principal().ok_or_else(wrong_credentials)?;
    let access_token = state
        .tokens
        .issue(id, user.tenant_id, user.user_role)
        .map_err(ApiError::internal)?;
    Ok(Json(LoginResult {
        user: user.shown_to(id),
        access_token,
        token_type: "Bearer".into(),
        expires_in: state.tokens.ttl().as_secs(),
    }))
}
