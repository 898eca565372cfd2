//! `/provisioning/{file}`: the file a desk phone fetches its configuration from, under
//! the vendor's own name (Yealink and Polycom `<mac>.cfg`, Polycom's `phone<mac>.cfg`,
//! Grandstream's `cfg<mac>.xml`, Cisco SPA's `spa<mac>.xml`),
//! readable only with that phone's own credentials (HTTP Basic).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use switchboard_db::devices;
use switchboard_domain::provisioning;
use switchboard_domain::records::device::parse_mac;
use switchboard_domain::records::device_model;

use crate::error::{ApiError, ApiResult};
use crate::routes::devices::password_hash;
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

/// A 401 that asks the phone for its Basic credentials.
fn challenge() -> Response {
    let mut response = ApiError::unauthorized("this phone's provisioning credentials are required")
        .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"Switchboard provisioning\", charset=\"UTF-8\""),
    );
    response
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
#[utoipa::path(get, path = "/provisioning/{file}", tag = "provisioning",
    security(("provisioningBasic" = [])),
    params(("file" = String, Path, pattern = "^(?:(?:phone)?[0-9A-Fa-f]{12}\\.cfg|(?:cfg|spa)[0-9A-Fa-f]{12}\\.xml)$",
        description = "`<mac>.cfg` (Yealink; Polycom's master file), `phone<mac>.cfg` (Polycom's per-phone file), `cfg<mac>.xml` (Grandstream) or `spa<mac>.xml` (Cisco SPA)")),
    responses(
        (status = 200, description = "The configuration file", content_type = "text/plain", body = String),
        (status = 401, description = "Missing or wrong credentials", body = crate::error::ErrorBody)))]
pub async fn fetch(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let Some((file, mac)) = parse_file(&name) else {
        return Err(ApiError::not_found());
    };
    let Some((user, password)) = basic(&headers) else {
        return Ok(challenge());
    };
    let Some(mut device) = devices::provisioned(&state.db, &mac).await? else {
        return Ok(challenge());
    };
    // Digests of equal length are compared, so the time taken says nothing of how much
    // of a guess was right.
    let given = Sha256::digest(format!("{user}\u{0}{}", password_hash(&password)));
    let expected = Sha256::digest(format!("{}\u{0}{}", device.username, device.secret_hash));
    if given != expected {
        return Ok(challenge());
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
