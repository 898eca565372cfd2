//! Access tokens: JWT, HS256 with a 256-bit key; `exp`, `iat`, `sub`, `iss` and `aud`
//! required and validated with a small leeway; every other algorithm (`none` included)
//! refused.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use switchboard_domain::ids::UserId;

/// The issuer written into and required of every token.
pub const ISSUER: &str = "switchboard";
/// The audience written into and required of every token.
pub const AUDIENCE: &str = "switchboard-api";
/// Clock skew tolerated on `exp` and `nbf`, in seconds.
const LEEWAY_SECONDS: u64 = 5;

/// The claims of an access token.
#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    /// The user id, as a string (RFC 7519).
    pub sub: String,
    /// Issuer.
    pub iss: String,
    /// Audience.
    pub aud: String,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
    /// Issued at, seconds since the epoch.
    pub iat: u64,
    /// The user's tenant, 0 for none (informational; scope is read from the store).
    pub tid: i64,
    /// The user's role number (informational).
    pub role: i64,
    /// The session (login) the token belongs to; revoking it ends the token at once.
    pub sid: String,
}

/// What a verified token names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The user.
    pub user: UserId,
    /// The session.
    pub session: String,
}

/// Signs and verifies access tokens.
#[derive(Clone)]
pub struct Tokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// The smallest accepted signing key, in bytes (256 bits).
pub const MIN_KEY_BYTES: usize = 32;

impl Tokens {
    /// Tokens signed with `key` (at least [`MIN_KEY_BYTES`]), valid for `ttl`.
    pub fn new(key: &[u8], ttl: Duration) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256];
        validation.leeway = LEEWAY_SECONDS;
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "iat", "sub", "iss", "aud"]);
        validation.validate_exp = true;
        Self {
            encoding: EncodingKey::from_secret(key),
            decoding: DecodingKey::from_secret(key),
            validation,
            ttl,
        }
    }

    /// How long an issued token lives.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A signed token for `user` in `session`.
    pub fn issue(
        &self,
        user: UserId,
        session: &str,
        tenant: i64,
        role: i64,
    ) -> Result<String, jsonwebtoken::errors::Error> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let claims = Claims {
            sub: user.get().to_string(),
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            exp: now + self.ttl.as_secs(),
            iat: now,
            tid: tenant,
            role,
            sid: session.to_owned(),
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
    }

    /// The user and session a valid token names; `None` for anything forged, expired or
    /// malformed.
    pub fn verify(&self, token: &str) -> Option<Verified> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation).ok()?;
        let user = data
            .claims
            .sub
            .parse()
            .ok()
            .filter(|id| *id > 0)
            .map(UserId)?;
        Some(Verified {
            user,
            session: data.claims.sid,
        })
    }
}
