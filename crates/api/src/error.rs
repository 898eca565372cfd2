//! The one error type of the API and its one conversion to HTTP (interface §5): every
//! rejection, from a malformed body to an unknown route, answers the Error body with
//! `code` equal to the status. Details of a 500 go to the log, never to the client.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use switchboard_domain::Problems;
use utoipa::ToSchema;

/// The Error body of the spec.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// The error class: `ValidationError`, `NotFound`, …
    pub name: String,
    /// A human-readable sentence.
    pub message: String,
    /// The HTTP status.
    pub code: u16,
    /// Every broken rule, as `'<location>/<path>' <message>`; empty for other errors.
    pub validation_errors: Vec<String>,
}

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    name: &'static str,
    message: String,
    validation_errors: Vec<String>,
    retry_after: Option<u64>,
    /// The length of the object a 416 refused a range of (`Content-Range: bytes */n`).
    unsatisfied_length: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, name: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            name,
            message: message.into(),
            validation_errors: Vec::new(),
            retry_after: None,
            unsatisfied_length: None,
        }
    }

    /// The answer's message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// 400: values break rules; lists every one.
    pub fn validation(problems: Problems) -> Self {
        let mut error = Self::new(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "the request breaks one or more rules",
        );
        error.validation_errors = problems.into_messages();
        error
    }

    /// 400 for a single rule, at `location/path`.
    pub fn invalid(location: switchboard_domain::Location, path: &str, message: &str) -> Self {
        let mut problems = Problems::new();
        problems.add(location, path, message);
        Self::validation(problems)
    }

    /// 400: the request cannot be read (malformed JSON or multipart).
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "BadRequest", message)
    }

    /// 401: no, a broken or an expired token; wrong credentials.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "Unauthorized", message)
    }

    /// 401 with a more specific name than `Unauthorized`, such as `MfaRequired`: the
    /// credentials were right, and a second factor is needed.
    pub fn unauthorized_as(name: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, name, message)
    }

    /// 403: the permission or the scope refuses.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "Forbidden", message)
    }

    /// 404: nothing there in the caller's scope.
    pub fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "NotFound", "no such record")
    }

    /// 404 for a path no route serves.
    pub fn no_route() -> Self {
        Self::new(StatusCode::NOT_FOUND, "NotFound", "no such route")
    }

    /// 405: the path exists, the method does not.
    pub fn method_not_allowed() -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            "this method is not allowed on this path",
        )
    }

    /// 409: a unique value is taken, or the record is still in use.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "Conflict", message)
    }

    /// 410: what the request needs existed but is gone for good (a fax's document).
    pub fn gone(message: impl Into<String>) -> Self {
        Self::new(StatusCode::GONE, "Gone", message)
    }

    /// 413: a body or file over its limit.
    pub fn payload_too_large(message: impl Into<String>) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, "PayloadTooLarge", message)
    }

    /// 415: a content type the endpoint does not take.
    pub fn unsupported_media_type(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UnsupportedMediaType",
            message,
        )
    }

    /// 416: the byte range asked for is not in the object of `size` bytes (the answer's
    /// `Content-Range: bytes */size`, RFC 9110 §15.5.17, so a client can ask again
    /// within it).
    pub fn range_not_satisfiable(size: u64) -> Self {
        let mut error = Self::new(
            StatusCode::RANGE_NOT_SATISFIABLE,
            "RangeNotSatisfiable",
            "the requested range is not satisfiable",
        );
        error.unsatisfied_length = Some(size);
        error
    }

    /// 503: the service cannot take this now (every password-hashing thread busy, the
    /// database down);
    /// come back after `retry_after` seconds.
    pub fn unavailable(message: impl Into<String>, retry_after: u64) -> Self {
        let mut error = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "ServiceUnavailable",
            message,
        );
        error.retry_after = Some(retry_after);
        error
    }

    /// 429: slow down, and come back after `retry_after` seconds.
    pub fn too_many_requests(retry_after: u64) -> Self {
        let mut error = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "TooManyRequests",
            "too many requests; retry later",
        );
        error.retry_after = Some(retry_after);
        error
    }

    /// 429 for a sign-in lock: says it is locked and until when (`now` + `retry_after`,
    /// Unix seconds), in words that are the same whether or not the account exists.
    pub fn locked(retry_after: u64, now: i64) -> Self {
        let until = now.saturating_add(i64::try_from(retry_after).unwrap_or(i64::MAX));
        let until = chrono::DateTime::from_timestamp(until, 0)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_default();
        let mut error = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "TooManyRequests",
            format!(
                "sign-in with this e-mail address or from this network address is locked after too many failed attempts, until {until}"
            ),
        );
        error.retry_after = Some(retry_after);
        error
    }

    /// 500, logging `cause` (with the request id the trace span carries) — the first
    /// time in a window only: repeats of one cause are summarised ([`crate::repeats`]).
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        let cause = cause.to_string();
        let repeated = cause.clone();
        let first = crate::repeats::first_in_window(
            format!("internal error {cause}"),
            move |repeats| {
                let seconds = crate::repeats::WINDOW.as_secs();
                tracing::error!(cause = %repeated, repeats, "{repeats} more like this in the last {seconds} seconds");
            },
        );
        if first {
            tracing::error!(%cause, "internal error");
        }
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalServerError",
            "an internal error occurred; it has been logged",
        )
    }

    /// The status this error answers.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The broken rules, for tests and logs.
    pub fn validation_errors(&self) -> &[String] {
        &self.validation_errors
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            name: self.name.to_owned(),
            message: self.message,
            code: self.status.as_u16(),
            validation_errors: self.validation_errors,
        };
        let mut response = (self.status, axum::Json(body)).into_response();
        let headers = response.headers_mut();
        if self.status == StatusCode::UNAUTHORIZED {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if let Some(seconds) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if let Some(length) = self.unsatisfied_length
            && let Ok(value) = HeaderValue::from_str(&format!("bytes */{length}"))
        {
            headers.insert(header::CONTENT_RANGE, value);
        }
        response
    }
}

impl From<Problems> for ApiError {
    fn from(problems: Problems) -> Self {
        Self::validation(problems)
    }
}

impl From<switchboard_db::Error> for ApiError {
    fn from(error: switchboard_db::Error) -> Self {
        use switchboard_db::Error;
        match error {
            Error::NotFound => Self::not_found(),
            Error::Conflict(message) | Error::InUse(message) => Self::conflict(message),
            Error::Unavailable => Self::unavailable(
                "the database is unavailable; retry in a moment",
                DATABASE_RETRY_AFTER,
            ),
            Error::TimedOut => Self::unavailable(
                "the database did not answer in time; retry in a moment",
                DATABASE_RETRY_AFTER,
            ),
            Error::Busy => Self::unavailable(
                "the service is busy; retry in a moment",
                DATABASE_RETRY_AFTER,
            ),
            other => Self::internal(other),
        }
    }
}

/// Seconds a client is asked to wait while the database is down: a few probes' worth.
pub const DATABASE_RETRY_AFTER: u64 = 2;

/// Seconds a client is asked to wait when the object store did not answer.
pub const STORAGE_RETRY_AFTER: u64 = 5;

impl From<switchboard_storage::StorageError> for ApiError {
    /// A store that did not answer is a 503 that says so (only the routes that need the
    /// store answer it: readiness is the database's); a range outside the object a 416;
    /// anything else the store says is a 500.
    fn from(error: switchboard_storage::StorageError) -> Self {
        use switchboard_storage::StorageError;
        if matches!(
            error,
            StorageError::TimedOut { .. } | StorageError::Backend(_) | StorageError::InvalidUrl(_)
        ) {
            crate::metrics::storage_error(matches!(error, StorageError::TimedOut { .. }));
        }
        match error {
            StorageError::TimedOut { seconds } => Self::unavailable(
                format!("the object storage did not answer within {seconds} s; retry in a moment"),
                STORAGE_RETRY_AFTER,
            ),
            StorageError::RangeNotSatisfiable { size } => Self::range_not_satisfiable(size),
            other => Self::internal(other),
        }
    }
}

/// Results of handlers.
pub type ApiResult<T> = Result<T, ApiError>;

impl From<crate::auth::password::HashError> for switchboard_app::Error {
    /// A busy hasher is worth a retry after a second; a failed one is the service's fault.
    fn from(error: crate::auth::password::HashError) -> Self {
        match error {
            crate::auth::password::HashError::Busy => switchboard_app::Error::Unavailable {
                message: "too many password checks at once; retry in a moment".into(),
                retry_after: 1,
            },
            failed @ crate::auth::password::HashError::Failed(_) => {
                switchboard_app::Error::internal(failed)
            }
        }
    }
}

impl From<crate::auth::password::HashError> for ApiError {
    fn from(error: crate::auth::password::HashError) -> Self {
        switchboard_app::Error::from(error).into()
    }
}

impl From<switchboard_app::Error> for ApiError {
    /// The one place a use case's refusal becomes the contract's answer.
    fn from(error: switchboard_app::Error) -> Self {
        use switchboard_app::Error;
        match error {
            Error::Invalid(problems) => Self::validation(problems),
            Error::Forbidden(message) => Self::forbidden(message),
            Error::Conflict(message) => Self::conflict(message),
            Error::Gone(message) => Self::gone(message),
            Error::Unsupported(message) => Self::unsupported_media_type(message),
            Error::Unavailable {
                message,
                retry_after,
            } => Self::unavailable(message, retry_after),
            Error::Db(error) => error.into(),
            Error::Storage(error) => error.into(),
            Error::Internal(cause) => Self::internal(cause),
        }
    }
}

#[cfg(test)]
mod tests {
    use switchboard_domain::{Location, Problems};

    use super::ApiError;

    #[test]
    fn a_use_case_error_answers_what_the_route_answered() {
        let mut problems = Problems::new();
        problems.add(Location::Body, "partnerId", "is required");
        let invalid = ApiError::from(switchboard_app::Error::Invalid(problems));
        assert_eq!(
            (invalid.status().as_u16(), invalid.validation_errors()),
            (400, &["'body/partnerId' is required".to_owned()][..])
        );
        let forbidden = ApiError::from(switchboard_app::Error::Forbidden("no".into()));
        assert_eq!(
            (forbidden.status().as_u16(), forbidden.message()),
            (403, "no")
        );
        let conflict = ApiError::from(switchboard_app::Error::Conflict("held".into()));
        assert_eq!(conflict.status().as_u16(), 409);
        let gone = ApiError::from(switchboard_app::Error::Gone("the document".into()));
        assert_eq!(
            (gone.status().as_u16(), gone.message()),
            (410, "the document")
        );
        let unsupported = ApiError::from(switchboard_app::Error::Unsupported("audio".into()));
        assert_eq!(unsupported.status().as_u16(), 415);
        let busy = ApiError::from(switchboard_app::Error::Unavailable {
            message: "busy".into(),
            retry_after: 15,
        });
        assert_eq!((busy.status().as_u16(), busy.retry_after), (503, Some(15)));
        let missing = ApiError::from(switchboard_app::Error::Db(switchboard_db::Error::NotFound));
        assert_eq!(missing.status().as_u16(), 404);
    }
}
