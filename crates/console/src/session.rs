//! The console's session: kept in the browser, in one cookie sealed (encrypted and
//! authenticated, XChaCha20-Poly1305) under a key derived from the service's signing key,
//! so every `serve` process of a deployment opens the others' cookies and nobody else can
//! read or forge one. It holds the API tokens of the signed-in person (the API's own
//! session, which the API revokes at sign-out or a password change), who they are, the
//! tenant they act on, and the nonce their form tokens are bound to.

use axum::http::HeaderMap;
use axum::http::header::COOKIE;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use switchboard_db::seal::{Sealer, Seat};

/// The cookie's name.
pub const COOKIE_NAME: &str = "switchboard_console";

/// The path the cookie is sent for: the console's pages only, never the API.
pub const COOKIE_PATH: &str = "/console";

/// The seat sealed cookies are bound to: a sealed value made for anything else (a TOTP
/// secret, a webhook secret) does not open as a session, nor a session as one of them.
const SEAT: Seat = Seat {
    table: "console",
    column: "session_cookie",
    id: 0,
};

/// The console's keys, derived from the deployment's signing key (one purpose each).
pub struct Keys {
    sealer: Sealer,
    form_key: [u8; 32],
}

impl Keys {
    /// The keys of the deployment whose signing key is `signing_key`, each derived for its
    /// purpose by `derived_key` (the service's one key derivation, which the binary hands
    /// over: every key taken from the signing key is derived alike).
    pub fn derive(signing_key: &[u8], derived_key: impl Fn(&[u8], &str) -> [u8; 32]) -> Keys {
        Keys {
            sealer: Sealer::new(&derived_key(
                signing_key,
                "switchboard console session cookie",
            )),
            form_key: derived_key(signing_key, "switchboard console form token"),
        }
    }

    /// The sealed cookie value of `session`.
    pub fn seal(&self, session: &Session) -> String {
        let json = serde_json::to_vec(session).unwrap_or_default();
        self.sealer.seal(SEAT, &json)
    }

    /// The session a request's cookie holds, when it opens.
    pub fn open(&self, headers: &HeaderMap) -> Option<Session> {
        let sealed = cookie(headers, COOKIE_NAME)?;
        let json = self.sealer.open(SEAT, sealed)?;
        serde_json::from_slice(&json).ok()
    }

    /// `bytes` sealed for `seat` (the console's other sealed values: a shared refresh's
    /// answer), under the cookies' key — the seat keeps them apart.
    pub(crate) fn seal_at(&self, seat: Seat, bytes: &[u8]) -> String {
        self.sealer.seal(seat, bytes)
    }

    /// What [`Keys::seal_at`] sealed for `seat`, when `sealed` opens there.
    pub(crate) fn open_at(&self, seat: Seat, sealed: &str) -> Option<Vec<u8>> {
        self.sealer.open(seat, sealed)
    }

    /// The form token of `session`: an HMAC of its nonce, so it is valid for this
    /// session only and cannot be made without the key.
    pub fn form_token(&self, session: &Session) -> String {
        let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(&self.form_key)
            .expect("HMAC takes a key of any length");
        mac.update(session.nonce.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// Whether `token` is `session`'s form token (compared in constant time).
    pub fn form_token_matches(&self, session: &Session, token: &str) -> bool {
        let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(&self.form_key)
            .expect("HMAC takes a key of any length");
        mac.update(session.nonce.as_bytes());
        match hex::decode(token) {
            Ok(bytes) => mac.verify_slice(&bytes).is_ok(),
            Err(_) => false,
        }
    }
}

/// The value of the cookie `name` among a request's `Cookie` headers.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            (key == name).then_some(value)
        })
}

/// A browser's session: anonymous (a nonce for the sign-in form's token) or signed in.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Session {
    /// Random, made with the session: what its form tokens are bound to.
    pub nonce: String,
    /// The signed-in person, once signed in.
    pub person: Option<Person>,
}

impl Session {
    /// A new anonymous session.
    pub fn anonymous() -> Session {
        let mut bytes = [0u8; 24];
        rand::rng().fill_bytes(&mut bytes);
        Session {
            nonce: URL_SAFE_NO_PAD.encode(bytes),
            person: None,
        }
    }

    /// A new session of `person` (a new nonce: a form token from before the sign-in is
    /// not one of the signed-in session).
    pub fn signed_in(person: Person) -> Session {
        Session {
            person: Some(person),
            ..Session::anonymous()
        }
    }
}

/// The signed-in person and their API session.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Person {
    /// Their access token.
    pub access_token: String,
    /// When it expires (Unix seconds, a little early so it never expires in flight).
    pub access_until: i64,
    /// Their refresh token (each is used once; the newest is kept here).
    pub refresh_token: String,
    /// Their e-mail address.
    pub email: String,
    /// Their role (`userRole`: 1 platform admin … 5 user).
    pub role: i64,
    /// Their tenant (0 for platform and partner admins).
    pub tenant_id: i64,
    /// Their branch's name, for a branch administrator.
    pub branch_name: Option<String>,
    /// Whether their login takes a second factor.
    pub mfa_enabled: bool,
    /// The tenant they act on: their own, or the one a platform or partner admin picked.
    pub acting: Option<Acting>,
}

impl Person {
    /// Whether they pick the tenant they act on (platform and partner admins).
    pub fn picks_tenant(&self) -> bool {
        self.tenant_id == 0
    }
}

/// The tenant the console acts on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Acting {
    /// Its id.
    pub id: i64,
    /// Its name.
    pub name: String,
}
