//! `/provisioning/{file}`: the file a desk phone fetches its configuration from, under
//! the vendor's own name (Yealink and Polycom `<mac>.cfg`, Polycom's `phone<mac>.cfg`,
//! Grandstream's `cfg<mac>.xml`, Cisco SPA's `spa<mac>.xml`),
//! readable only with that phone's own credentials: HTTP Digest (RFC 7616: SHA-256 or MD5,
//! `qop=auth`, nonces that expire) or HTTP Basic.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use switchboard_app::devices::{DigestAlgorithm as Algorithm, REALM, password_hash};
use switchboard_db::devices;
use switchboard_domain::provisioning;
use switchboard_domain::records::device::parse_mac;
use switchboard_domain::records::device_model;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Which of a phone's files was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum File {
    /// `<mac>.cfg`: Yealink's configuration, Polycom's master configuration.
    Main,
    /// `phone<mac>.cfg`: Polycom's per-phone configuration.
    PolycomPhone,
    /// `cfg<mac>.xml`: Grandstream's configuration.
    Grandstream,
    /// `spa<mac>.xml`: Cisco SPA's profile.
    CiscoSpa,
}

/// The file and the MAC's 12 hex digits of a requested file name.
fn parse_file(name: &str) -> Option<(File, String)> {
    let lower = name.to_ascii_lowercase();
    let (file, mac) = if let Some(stem) = lower.strip_suffix(".cfg") {
        match stem.strip_prefix("phone") {
            Some(mac) => (File::PolycomPhone, mac),
            None => (File::Main, stem),
        }
    } else {
        let stem = lower.strip_suffix(".xml")?;
        match (stem.strip_prefix("cfg"), stem.strip_prefix("spa")) {
            (Some(mac), _) => (File::Grandstream, mac),
            (_, Some(mac)) => (File::CiscoSpa, mac),
            _ => return None,
        }
    };
    (mac.len() == 12).then_some(())?;
    Some((file, parse_mac(mac)?))
}

/// How long a Digest nonce is accepted (a phone answers its challenge at once).
const NONCE_SECONDS: i64 = 300;

/// The input of a nonce's tag: the phone's MAC (12 hex digits), the expiry and the
/// nonce's own random part, so a nonce issued for one phone's files proves nothing for
/// another's.
fn nonce_input(mac: &str, expires: &str, unique: &str) -> Vec<u8> {
    format!("{mac}\0{expires}\0{unique}").into_bytes()
}

/// A new nonce for the files of the phone with `mac`: when it expires, 16 random hex
/// digits, and a tag over those and the MAC, so any process of the deployment can check
/// it without keeping it. Every 401 carries a fresh one (RFC 7616 §3.3): a phone that
/// restarts `nc` at 00000001 for each new challenge (a Polycom fetching its master file,
/// then its phone file within the second) answers a nonce of its own each time, and
/// only a replay of the same nonce and count is refused.
fn nonce(state: &AppState, mac: &str) -> String {
    use rand::RngCore;
    let expires = (chrono::Utc::now().timestamp() + NONCE_SECONDS).to_string();
    let mut unique = [0u8; 8];
    rand::rng().fill_bytes(&mut unique);
    let unique = hex::encode(unique);
    let tag = state.tokens.nonce_tag(&nonce_input(mac, &expires, &unique));
    format!("{expires}.{unique}.{}", hex::encode(&tag[..16]))
}

/// When `nonce` expires, if it is one of ours issued for the phone with `mac`.
fn check_nonce(state: &AppState, nonce: &str, mac: &str) -> Option<i64> {
    let (expires, rest) = nonce.split_once('.')?;
    let (unique, tag) = rest.split_once('.')?;
    let expected = state.tokens.nonce_tag(&nonce_input(mac, expires, unique));
    let tag = hex::decode(tag).ok()?;
    // Equal-length digests compared, so the time taken says nothing of a guess.
    (Sha256::digest(&tag) == Sha256::digest(&expected[..16])).then_some(())?;
    expires.parse::<i64>().ok()
}

/// A 401 that asks the phone with `mac` for its credentials: Digest with SHA-256, then
/// MD5 (most phones), then Basic; `stale` when the phone's nonce only expired.
fn challenge(state: &AppState, mac: &str, stale: bool) -> Response {
    let mut response = ApiError::unauthorized("this phone's provisioning credentials are required")
        .into_response();
    // The phone's schemes replace the bearer challenge of the API's other 401s.
    response.headers_mut().remove(header::WWW_AUTHENTICATE);
    let nonce = nonce(state, mac);
    let stale = if stale { ", stale=true" } else { "" };
    for algorithm in [Algorithm::Sha256, Algorithm::Md5] {
        let value = format!(
            "Digest realm=\"{REALM}\", qop=\"auth\", algorithm={}, nonce=\"{nonce}\"{stale}",
            algorithm.name()
        );
        if let Ok(value) = HeaderValue::from_str(&value) {
            response
                .headers_mut()
                .append(header::WWW_AUTHENTICATE, value);
        }
    }
    response.headers_mut().append(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"Switchboard provisioning\", charset=\"UTF-8\""),
    );
    response
}

/// The parameters of a Digest `Authorization` header (`None` for another scheme).
fn digest_params(headers: &HeaderMap) -> Option<std::collections::HashMap<String, String>> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("digest") {
        return None;
    }
    let mut params = std::collections::HashMap::new();
    let mut rest = rest.trim();
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        let key = key.trim().to_ascii_lowercase();
        let after = after.trim_start();
        let (value, remaining) = if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted.find('"')?;
            (quoted[..end].to_owned(), &quoted[end + 1..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_owned(), &after[end..])
        };
        params.insert(key, value);
        rest = remaining.trim_start().trim_start_matches(',').trim_start();
    }
    Some(params)
}

/// What a Digest answer proved: the phone's user name, or why it proved nothing.
enum DigestOutcome {
    /// Right for this user name (still to be matched with the device), with the nonce,
    /// its expiry and the answer's `nc` (to be refused when seen before).
    Valid {
        /// The user name.
        user: String,
        /// The nonce answered.
        nonce: String,
        /// When it expires (unix seconds).
        expires: i64,
        /// The nonce count.
        nc: String,
    },
    /// Right but for an expired nonce: the phone retries with a fresh one.
    Stale,
    /// Wrong, or not ours.
    Invalid,
}

/// Checks a Digest answer (RFC 7616 `qop=auth`) against the device's secrets for
/// `GET uri` of the phone with `mac`.
fn check_digest(
    state: &AppState,
    params: &std::collections::HashMap<String, String>,
    (uri, mac): (&str, &str),
    secrets: Option<&(String, String)>,
) -> DigestOutcome {
    let get = |key: &str| params.get(key).map(String::as_str);
    let algorithm = match get("algorithm").map(str::to_ascii_uppercase).as_deref() {
        None | Some("MD5") => Algorithm::Md5,
        Some("SHA-256") => Algorithm::Sha256,
        _ => return DigestOutcome::Invalid,
    };
    let (Some(user), Some(realm), Some(nonce), Some(given_uri), Some(response)) = (
        get("username"),
        get("realm"),
        get("nonce"),
        get("uri"),
        get("response"),
    ) else {
        return DigestOutcome::Invalid;
    };
    let (Some("auth"), Some(nc), Some(cnonce)) = (get("qop"), get("nc"), get("cnonce")) else {
        return DigestOutcome::Invalid;
    };
    // RFC 7616: `nc` is 8 hex digits (what is kept of it to refuse a replay).
    if realm != REALM
        || given_uri != uri
        || nc.len() != 8
        || !nc.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return DigestOutcome::Invalid;
    }
    let Some(expires) = check_nonce(state, nonce, mac) else {
        return DigestOutcome::Invalid;
    };
    let Some((md5, sha256)) = secrets else {
        return DigestOutcome::Invalid;
    };
    let ha1 = match algorithm {
        Algorithm::Md5 => md5,
        Algorithm::Sha256 => sha256,
    };
    let ha2 = algorithm.hash(&format!("GET:{uri}"));
    let expected = algorithm.hash(&format!("{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}"));
    let response = response.to_ascii_lowercase();
    if Sha256::digest(response.as_bytes()) != Sha256::digest(expected.as_bytes()) {
        return DigestOutcome::Invalid;
    }
    if expires >= chrono::Utc::now().timestamp() {
        DigestOutcome::Valid {
            user: user.to_owned(),
            nonce: nonce.to_owned(),
            expires,
            nc: nc.to_ascii_lowercase(),
        }
    } else {
        DigestOutcome::Stale
    }
}

/// The user name and password of a Basic `Authorization` header.
fn basic(headers: &HeaderMap) -> Option<(String, String)> {
    use base64::Engine;
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_owned(), password.to_owned()))
}

/// The SIP registrar phones register with: the host of the service's public URL.
fn sip_server(state: &AppState) -> String {
    state
        .settings
        .public_url
        .parse::<axum::http::Uri>()
        .ok()
        .and_then(|uri| uri.host().map(str::to_owned))
        .unwrap_or_else(|| "localhost".to_owned())
}

/// The phone's configuration file in its vendor's format. Any missing or wrong
/// credentials (another phone's included) and a MAC no tenant has answer the same 401,
/// so the endpoint says nothing about which phones exist.
#[utoipa::path(get, operation_id = "fetchProvisioningFile", path = "/provisioning/{file}", tag = "provisioning",
    security(("provisioningDigest" = []), ("provisioningBasic" = [])),
    params(("file" = String, Path, pattern = "^(?:(?:phone)?[0-9A-Fa-f]{12}\\.cfg|(?:cfg|spa)[0-9A-Fa-f]{12}\\.xml)$",
        description = "`<mac>.cfg` (Yealink; Polycom's master file), `phone<mac>.cfg` (Polycom's per-phone file), `cfg<mac>.xml` (Grandstream) or `spa<mac>.xml` (Cisco SPA)")),
    responses(
        (status = 200, description = "The configuration file", content_type = "text/plain", body = String),
        (status = 401, description = "Missing or wrong credentials", body = crate::error::ErrorBody)))]
pub async fn fetch(
    State(state): State<AppState>,
    Path(name): Path<String>,
    uri: axum::extract::OriginalUri,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let Some((file, mac)) = parse_file(&name) else {
        return Err(ApiError::not_found());
    };
    let digest = digest_params(&headers);
    let basic = basic(&headers);
    if digest.is_none() && basic.is_none() {
        return Ok(challenge(&state, &mac, false));
    }
    let Some(mut device) = devices::provisioned(&state.db, &mac, &state.sealer).await? else {
        return Ok(challenge(&state, &mac, false));
    };
    if let Some(params) = digest {
        let path = uri
            .0
            .path_and_query()
            .map_or_else(|| uri.0.path().to_owned(), ToString::to_string);
        match check_digest(
            &state,
            &params,
            (&path, &mac),
            device.digest_secrets.as_ref(),
        ) {
            DigestOutcome::Valid {
                user,
                nonce,
                expires,
                nc,
            } if user == device.username => {
                // A right answer counts once: the same nonce and count again is a
                // captured answer replayed (every process shares the record).
                if !devices::first_digest_use(&state.db, &nonce, &nc, expires).await? {
                    tracing::info!(device = device.id, "a replayed Digest answer refused");
                    return Ok(challenge(&state, &mac, false));
                }
            }
            DigestOutcome::Stale => return Ok(challenge(&state, &mac, true)),
            _ => return Ok(challenge(&state, &mac, false)),
        }
    } else if let Some((user, password)) = basic {
        // Digests of equal length are compared, so the time taken says nothing of how
        // much of a guess was right.
        let given = Sha256::digest(format!("{user}\u{0}{}", password_hash(&password)));
        let expected = Sha256::digest(format!("{}\u{0}{}", device.username, device.secret_hash));
        if given != expected {
            return Ok(challenge(&state, &mac, false));
        }
    }
    let Some(model) = device_model::find(&device.model) else {
        return Err(ApiError::not_found());
    };
    device.config.sip_server = sip_server(&state);
    let (body, content_type) = match (model.provisioning_format.as_str(), file) {
        ("yealink-cfg", File::Main) => (
            provisioning::yealink(&device.config, model),
            "text/plain; charset=utf-8",
        ),
        ("polycom-xml", File::Main) => (
            provisioning::polycom_master(&device.config),
            "application/xml; charset=utf-8",
        ),
        ("polycom-xml", File::PolycomPhone) => (
            provisioning::polycom_phone(&device.config, model),
            "application/xml; charset=utf-8",
        ),
        ("grandstream-xml", File::Grandstream) => (
            provisioning::grandstream(&device.config, model),
            "application/xml; charset=utf-8",
        ),
        ("cisco-spa-xml", File::CiscoSpa) => (
            provisioning::cisco_spa(&device.config, model),
            "application/xml; charset=utf-8",
        ),
        _ => return Err(ApiError::not_found()),
    };
    let mut response = (StatusCode::OK, body).into_response();
    let out = response.headers_mut();
    out.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    // The file holds SIP passwords: never kept by a cache.
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(version) = HeaderValue::from_str(&device.config.config_version.to_string()) {
        out.insert("x-config-version", version);
    }
    // When it last fetched is shown to its administrators; a database that cannot note
    // it must not keep a phone from booting.
    if let Err(error) = devices::fetched(&state.db, device.id, chrono::Utc::now()).await {
        tracing::warn!(device = device.id, %error, "a configuration fetch could not be noted");
    }
    tracing::debug!(device = device.id, "provisioning file served");
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        assert_eq!(
            parse_file("805EC0123456.cfg"),
            Some((File::Main, "805ec0123456".into()))
        );
        assert_eq!(
            parse_file("phone805ec0123456.cfg"),
            Some((File::PolycomPhone, "805ec0123456".into()))
        );
        assert_eq!(parse_file("805ec012345.cfg"), None);
        assert_eq!(parse_file("805ec0123456.xml"), None);
        assert_eq!(
            parse_file("cfgC074AD123456.xml"),
            Some((File::Grandstream, "c074ad123456".into()))
        );
        assert_eq!(
            parse_file("spa0014bf123456.xml"),
            Some((File::CiscoSpa, "0014bf123456".into()))
        );
        assert_eq!(parse_file("cfg0014bf123456.cfg"), None);
        assert_eq!(parse_file("80:5e:c0:12:34:56.cfg"), None);
    }
}
