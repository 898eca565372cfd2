//! The media type a request says it sends (`Content-Type`) or takes (`Accept`), read by
//! the `mime` crate in one place: type and subtype compared without regard to case,
//! parameters (`charset`, `boundary`) set aside, a value that is not a media type taken
//! as none.

use axum::http::{HeaderMap, header};
use mime::Mime;

/// The media type of `headers`' `Content-Type`; `None` when there is none or it is not one.
pub fn sent(headers: &HeaderMap) -> Option<Mime> {
    headers
        .get(header::CONTENT_TYPE)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Whether `headers`' `Content-Type` is `essence` (`type/subtype`, lower case).
pub fn sent_is(headers: &HeaderMap, essence: &str) -> bool {
    sent(headers).is_some_and(|sent| sent.essence_str() == essence)
}

/// Whether `headers`' `Content-Type` is JSON: `application/json` or a `+json` type of
/// `application/` (`application/merge-patch+json`).
pub fn sent_json(headers: &HeaderMap) -> bool {
    sent(headers).is_some_and(|sent| {
        sent.type_() == mime::APPLICATION
            && (sent.subtype() == mime::JSON || sent.suffix() == Some(mime::JSON))
    })
}

/// Whether `headers`' `Content-Type` is of the top-level type `type_` (`multipart`).
pub fn sent_type(headers: &HeaderMap, type_: &str) -> bool {
    sent(headers).is_some_and(|sent| sent.type_() == type_)
}

/// Whether `headers`' `Accept` names `essence` (`type/subtype`, lower case) itself, in any
/// of its values (a wildcard is not taken as naming it).
pub fn accepted(headers: &HeaderMap, essence: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|one| one.trim().parse::<Mime>().ok())
        .any(|taken| taken.essence_str() == essence)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn with(name: header::HeaderName, value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(name, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn a_sent_type_is_read_without_case_or_parameters() {
        let headers = with(header::CONTENT_TYPE, "Text/CSV; charset=utf-8");
        assert!(sent_is(&headers, "text/csv"));
        assert!(!sent_is(&headers, "text/plain"));
        assert!(sent_json(&with(header::CONTENT_TYPE, "application/json")));
        assert!(sent_json(&with(
            header::CONTENT_TYPE,
            "application/merge-patch+json; charset=UTF-8"
        )));
        assert!(!sent_json(&with(header::CONTENT_TYPE, "text/json")));
        assert!(!sent_json(&with(header::CONTENT_TYPE, "application/jsonx")));
        assert!(sent_type(
            &with(header::CONTENT_TYPE, "multipart/form-data; boundary=x"),
            "multipart"
        ));
        assert!(!sent_is(
            &with(header::CONTENT_TYPE, "multipart/form-dataX; boundary=x"),
            "multipart/form-data"
        ));
        assert!(!sent_is(
            &with(header::CONTENT_TYPE, "not a type"),
            "not a type"
        ));
        assert!(!sent_json(&HeaderMap::new()));
    }

    #[test]
    fn an_accepted_type_is_one_of_the_values() {
        let headers = with(header::ACCEPT, "audio/wav;q=0.5, Audio/MPEG");
        assert!(accepted(&headers, "audio/mpeg"));
        assert!(accepted(&headers, "audio/wav"));
        assert!(!accepted(&headers, "audio/ogg"));
        assert!(!accepted(&with(header::ACCEPT, "*/*"), "audio/mpeg"));
    }
}
