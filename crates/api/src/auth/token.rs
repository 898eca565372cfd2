//! Access tokens: JWT, HS256 with a 256-bit key; `exp`, `iat`, `sub`, `iss` and `aud`
//! required and validated with a small leeway; every other algorithm (`none` included)
//! refused.
//!
//! jsonwebtoken's cryptography is HS256 on the workspace's `hmac` and `sha2`, installed by
//! [`Tokens::new`] (jsonwebtoken's own backends bring RSA, ECDSA and EdDSA crates the
//! service never uses: docs/decisions.md, "One crypto provider: ring").

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{KeyInit, Mac};
use jsonwebtoken::crypto::{CryptoProvider, JwtSigner, JwtVerifier, KeyUtils};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use switchboard_domain::ids::UserId;

/// The issuer written into and required of every token.
pub const ISSUER: &str = "switchboard";
/// The audience written into and required of every token.
pub const AUDIENCE: &str = "switchboard-api";
/// Clock skew tolerated on `exp` and `nbf`, in seconds.
pub const LEEWAY_SECONDS: u64 = 5;

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
    /// The user's tenant when the token was issued, 0 for none (a hint for sharing
    /// capacity fairly; scope is read from the store).
    pub tenant: i64,
    /// The last second (since the epoch) the token is accepted: its expiry plus the
    /// leeway.
    pub valid_until: u64,
}

/// Signs and verifies access tokens.
#[derive(Clone)]
pub struct Tokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
    /// The key of provisioning Digest nonces, derived from the signing key so every
    /// process of one deployment accepts the others' nonces.
    nonce_key: [u8; 32],
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

/// A key for `purpose` derived from the deployment's signing key: SHA-256 of the purpose,
/// a NUL, then the key. Every process of one deployment derives the same key, and one
/// purpose's key tells nothing of another's or of the signing key, so a signature made for
/// one use (a download URL, a token, a nonce) is never accepted for another.
pub fn derived_key(signing_key: &[u8], purpose: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::new()
        .chain_update(purpose.as_bytes())
        .chain_update([0])
        .chain_update(signing_key)
        .finalize()
        .into()
}

/// HMAC-SHA-256 under one key: the only signature jsonwebtoken makes or checks here.
struct Hs256(hmac::Hmac<sha2::Sha256>);

impl Hs256 {
    /// The MAC of `message`.
    fn tag(&self, message: &[u8]) -> hmac::Hmac<sha2::Sha256> {
        let mut mac = self.0.clone();
        mac.update(message);
        mac
    }
}

impl signature::Signer<Vec<u8>> for Hs256 {
    fn try_sign(&self, message: &[u8]) -> Result<Vec<u8>, signature::Error> {
        Ok(self.tag(message).finalize().into_bytes().to_vec())
    }
}

impl signature::Verifier<Vec<u8>> for Hs256 {
    /// Compares in constant time (`verify_slice`).
    fn verify(&self, message: &[u8], tag: &Vec<u8>) -> Result<(), signature::Error> {
        self.tag(message)
            .verify_slice(tag)
            .map_err(|_| signature::Error::new())
    }
}

impl JwtSigner for Hs256 {
    fn algorithm(&self) -> Algorithm {
        Algorithm::HS256
    }
}

impl JwtVerifier for Hs256 {
    fn algorithm(&self) -> Algorithm {
        Algorithm::HS256
    }
}

/// An HS256 MAC under `secret`, a key of the HMAC family; any other algorithm is refused,
/// and so is a public or private key's bytes (never an HMAC secret: the algorithm
/// confusion of RFC 8725 §2.1).
fn hs256(
    algorithm: &Algorithm,
    family: AlgorithmFamily,
    secret: &[u8],
) -> jsonwebtoken::errors::Result<Hs256> {
    if *algorithm != Algorithm::HS256 {
        return Err(ErrorKind::InvalidAlgorithm.into());
    }
    if family != AlgorithmFamily::Hmac {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(secret)
        .map(Hs256)
        .map_err(|_| ErrorKind::InvalidKeyFormat.into())
}

/// jsonwebtoken's cryptography in this process: HS256 only, no JWK support.
static HS256_ONLY: CryptoProvider = CryptoProvider {
    signer_factory: |algorithm, key| Ok(Box::new(hs256(algorithm, key.family(), key.as_bytes())?)),
    verifier_factory: |algorithm, key| {
        let secret = key.try_get_as_bytes()?;
        Ok(Box::new(hs256(algorithm, key.family(), secret)?))
    },
    key_utils: KeyUtils::new_unimplemented(),
};

impl Tokens {
    /// Tokens signed with `key` (at least [`MIN_KEY_BYTES`]), valid for `ttl`; the first
    /// call installs jsonwebtoken's cryptography for the process.
    pub fn new(key: &[u8], ttl: Duration) -> Self {
        // Once per process; a later call finds it installed, which is what it wants.
        let _ = HS256_ONLY.install_default();
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
            nonce_key: derived_key(key, "switchboard provisioning digest nonce"),
        }
    }

    /// HMAC-SHA-256 of `data` under the nonce key (a provisioning Digest nonce's tag).
    pub fn nonce_tag(&self, data: &[u8]) -> [u8; 32] {
        let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(&self.nonce_key)
            .expect("HMAC takes a key of any length");
        mac.update(data);
        mac.finalize().into_bytes().into()
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
            tenant: data.claims.tid,
            valid_until: data.claims.exp.saturating_add(LEEWAY_SECONDS),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use switchboard_testing::jwt;

    const KEY: &[u8] = b"a-signing-key-of-32-bytes-at-least";

    fn tokens() -> Tokens {
        Tokens::new(KEY, Duration::from_secs(900))
    }

    fn now() -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs()
    }

    /// The claims of a token the service would issue.
    fn genuine() -> Value {
        json!({"sub": "7", "iss": ISSUER, "aud": AUDIENCE, "exp": now() + 600, "iat": now(),
               "tid": 3, "role": 3, "sid": "session-1"})
    }

    fn sign(claims: &Value) -> String {
        jwt::sign(claims, "HS256", KEY)
    }

    fn changed(change: impl FnOnce(&mut Value)) -> Value {
        let mut claims = genuine();
        change(&mut claims);
        claims
    }

    #[test]
    fn an_issued_token_and_its_claims_re_signed_are_accepted() {
        let tokens = tokens();
        let issued = tokens
            .issue(UserId(7), "session-1", 3, 3)
            .unwrap_or_default();
        let expected = |valid_until| {
            Some(Verified {
                user: UserId(7),
                session: "session-1".into(),
                tenant: 3,
                valid_until,
            })
        };
        // Valid until its expiry and the leeway: the issued token's in its time to
        // live, the re-signed claims' at their `exp`.
        let issued_until = tokens.verify(&issued).map_or(0, |v| v.valid_until);
        assert!(
            issued_until.abs_diff(now() + 900 + LEEWAY_SECONDS) <= 2,
            "{issued_until}"
        );
        assert_eq!(tokens.verify(&issued), expected(issued_until));
        let claims = genuine();
        let until = claims["exp"].as_u64().unwrap_or_default() + LEEWAY_SECONDS;
        assert_eq!(tokens.verify(&sign(&claims)), expected(until));
    }

    /// An issued token expires its time to live after it was issued (a mutant that
    /// multiplied the two went unnoticed: docs/mutants.md).
    #[test]
    fn an_issued_token_lasts_its_ttl() {
        let tokens = tokens();
        let issued = tokens
            .issue(UserId(7), "session-1", 3, 3)
            .unwrap_or_default();
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_audience(&[AUDIENCE]);
        let claims = jsonwebtoken::decode::<Value>(
            &issued,
            &jsonwebtoken::DecodingKey::from_secret(KEY),
            &validation,
        )
        .map(|data| data.claims)
        .unwrap_or_default();
        let (exp, iat) = (claims["exp"].as_u64(), claims["iat"].as_u64());
        assert_eq!(exp.zip(iat).map(|(e, i)| e - i), Some(900), "{claims}");
        assert!(iat.is_some_and(|iat| iat.abs_diff(now()) <= 5), "{claims}");
    }

    #[test]
    fn each_single_change_is_refused() {
        let tokens = tokens();
        let forged = [
            (
                "another key",
                jwt::sign(&genuine(), "HS256", b"another-key-of-32-bytes-at-least!!"),
            ),
            ("HS512", jwt::sign(&genuine(), "HS512", KEY)),
            ("HS384", jwt::sign(&genuine(), "HS384", KEY)),
            ("expired", sign(&changed(|c| c["exp"] = json!(now() - 60)))),
            (
                "wrong audience",
                sign(&changed(|c| c["aud"] = json!("other"))),
            ),
            (
                "wrong issuer",
                sign(&changed(|c| c["iss"] = json!("other"))),
            ),
            (
                "no expiry",
                sign(&changed(|c| {
                    c.as_object_mut().map(|o| o.remove("exp"));
                })),
            ),
            (
                "no issued-at",
                sign(&changed(|c| {
                    c.as_object_mut().map(|o| o.remove("iat"));
                })),
            ),
            (
                "no subject",
                sign(&changed(|c| {
                    c.as_object_mut().map(|o| o.remove("sub"));
                })),
            ),
            (
                "subject not an id",
                sign(&changed(|c| c["sub"] = json!("admin"))),
            ),
            ("subject zero", sign(&changed(|c| c["sub"] = json!("0")))),
            (
                "no session",
                sign(&changed(|c| {
                    c.as_object_mut().map(|o| o.remove("sid"));
                })),
            ),
        ];
        for (what, token) in &forged {
            assert_eq!(tokens.verify(token), None, "{what}");
        }
    }

    #[test]
    fn alg_none_and_a_changed_payload_under_the_signature_are_refused() {
        use base64::Engine;
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let tokens = tokens();
        let token = sign(&genuine());
        let parts: Vec<&str> = token.split('.').collect();
        let payload = URL_SAFE_NO_PAD.encode(genuine().to_string());
        let none = URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#);
        assert_eq!(tokens.verify(&format!("{none}.{payload}.")), None);
        let promoted = URL_SAFE_NO_PAD.encode(changed(|c| c["role"] = json!(1)).to_string());
        assert_eq!(
            tokens.verify(&format!("{}.{promoted}.{}", parts[0], parts[2])),
            None
        );
        assert_eq!(tokens.verify("not.a.token"), None);
        assert_eq!(tokens.verify(""), None);
    }

    #[test]
    fn a_signature_cut_short_or_left_out_is_refused() {
        use base64::Engine;
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let tokens = tokens();
        let token = sign(&genuine());
        assert!(tokens.verify(&token).is_some());
        let (message, signature) = token.rsplit_once('.').unwrap_or_default();
        let tag = URL_SAFE_NO_PAD.decode(signature).unwrap_or_default();
        assert_eq!(tag.len(), 32);
        for length in [0, 1, 16, 31] {
            let cut = format!("{message}.{}", URL_SAFE_NO_PAD.encode(&tag[..length]));
            assert_eq!(tokens.verify(&cut), None, "{length} bytes of the tag");
        }
    }

    /// The provider on its own, past the validation that refuses other algorithms first.
    #[test]
    fn the_provider_makes_and_checks_hs256_under_a_secret_only() {
        let (signing, checking) = (EncodingKey::from_secret(KEY), DecodingKey::from_secret(KEY));
        assert!((HS256_ONLY.signer_factory)(&Algorithm::HS256, &signing).is_ok());
        assert!((HS256_ONLY.verifier_factory)(&Algorithm::HS256, &checking).is_ok());
        for other in [
            Algorithm::HS384,
            Algorithm::HS512,
            Algorithm::RS256,
            Algorithm::ES256,
        ] {
            assert!(
                (HS256_ONLY.signer_factory)(&other, &signing).is_err(),
                "{other:?}"
            );
            assert!(
                (HS256_ONLY.verifier_factory)(&other, &checking).is_err(),
                "{other:?}"
            );
        }
        // A public or private key's bytes are never taken for an HMAC secret.
        let public = DecodingKey::from_ec_der(KEY);
        assert!((HS256_ONLY.verifier_factory)(&Algorithm::HS256, &public).is_err());
        let private = EncodingKey::from_ec_der(KEY);
        assert!((HS256_ONLY.signer_factory)(&Algorithm::HS256, &private).is_err());
    }

    #[test]
    fn a_derived_key_is_fixed_by_its_purpose_and_the_signing_key() {
        // Pinned: secrets sealed, URLs signed and tokens hashed under these keys must
        // still open after an upgrade, so the derivation may never change.
        let key = b"a-signing-key-of-32-bytes-at-least!!";
        assert_eq!(
            hex::encode(derived_key(key, "sealed secrets")),
            "eaa0ce17a4fd4918ce62708c5932247a7b8ecd006f57f4ac6c52c249d2a69bed"
        );
        assert_eq!(
            hex::encode(derived_key(key, "object download URLs")),
            "9cb9ccd81f786ed9fc2c974b862f8fb4b75029d4a539379cedc132ccca378236"
        );
        let other_key = b"a-signing-key-of-32-bytes-at-least!?";
        assert_ne!(
            derived_key(key, "sealed secrets"),
            derived_key(other_key, "sealed secrets")
        );
    }

    #[test]
    fn a_nonce_tag_is_bound_to_its_data_and_its_deployments_key() {
        let tokens = tokens();
        let tag = tokens.nonce_tag(b"001122334455:1767225600");
        // Every process of one deployment (the same signing key) computes the same tag.
        assert_eq!(tag, tokens.nonce_tag(b"001122334455:1767225600"));
        // A nonce for another phone or another expiry has another tag: a tag cannot be
        // reused with a changed MAC or a later expiry.
        assert_ne!(tag, tokens.nonce_tag(b"001122334455:1767225601"));
        assert_ne!(tag, tokens.nonce_tag(b"001122334456:1767225600"));
        // Another deployment's key gives other tags.
        let other = Tokens::new(b"another-signing-key-of-32-bytes-at-least", Duration::ZERO);
        assert_ne!(tag, other.nonce_tag(b"001122334455:1767225600"));
        assert_ne!(tag, [0; 32]);
        assert_ne!(tag, [1; 32]);
    }

    #[test]
    fn the_leeway_is_seconds_not_minutes() {
        let tokens = tokens();
        let just_expired = sign(&changed(|c| c["exp"] = json!(now() - 2)));
        assert!(tokens.verify(&just_expired).is_some(), "within the leeway");
        let long_expired = sign(&changed(|c| c["exp"] = json!(now() - 30)));
        assert_eq!(tokens.verify(&long_expired), None);
    }
}
