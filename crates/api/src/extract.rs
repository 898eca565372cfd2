//! Extractors that turn a request into typed, validated values, answering the contract's
//! errors for anything they refuse: JSON bodies, path ids and list queries.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde_json::Value;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::validation::Placement;
use switchboard_domain::validation::{FromBody, FromQuery, QueryReader};
use switchboard_domain::{Location, Principal, Problems, Scope};

use crate::error::ApiError;

/// A JSON request body read into `T`, with every broken rule reported.
pub struct JsonBody<T>(pub T);

/// Maps a failure to read the body: over the limit is a 413, anything else a 400.
pub fn body_rejection(rejection: BytesRejection) -> ApiError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::payload_too_large("the request body is larger than allowed")
    } else {
        ApiError::bad_request("the request body could not be read")
    }
}

impl<S: Send + Sync, T: FromBody> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, ApiError> {
        const {
            assert!(
                T::FIXED.is_empty(),
                "a body with fixed fields is read with Patch, which compares them"
            )
        };
        let read = read_json::<T>(req, false).await?;
        match read.body {
            Some(value) if read.problems.is_empty() => Ok(JsonBody(value)),
            _ => Err(ApiError::validation(read.problems)),
        }
    }
}

/// A JSON body with rules beyond its own values (records it must name, fields the record
/// keeps): the body reaches the handler only through [`Checked::check`], which runs those
/// rules whenever the body could be read — even with a rule across its items broken —
/// and answers every broken rule of both passes in one 400 (interface §5). A body with
/// broken fields is built with those fields left out (or, when required, stood in for
/// by the document's example), so the rules still run on every other field.
pub struct Checked<T> {
    /// The body, when it could be built.
    value: Option<T>,
    /// Every rule broken so far.
    problems: Problems,
    /// The top-level fields left out or stood in for because they are broken.
    stand_ins: Vec<String>,
}

impl<T> Checked<T> {
    /// The body once `rules` (adding what they find to the problems) leave no problem;
    /// otherwise every problem of the body and of `rules` at once. An error `rules`
    /// answer (a 403, a 404) is answered as it is.
    pub async fn check(
        self,
        rules: impl AsyncFnOnce(&T, &mut Problems) -> Result<(), ApiError>,
    ) -> Result<T, ApiError> {
        let Checked {
            value,
            mut problems,
            stand_ins,
        } = self;
        let Some(value) = value else {
            return Err(ApiError::validation(problems));
        };
        if !stand_ins.is_empty() {
            // The rules ran on stand-ins for the broken fields: what they say of those is
            // not about the request, and an answer they give (a 403 for a stand-in tenant)
            // gives way to the body's own problems — but a failure of the service stands.
            let mut found = Problems::new();
            match rules(&value, &mut found).await {
                Ok(()) => {
                    found.drop_body_keys(&stand_ins);
                    problems.extend(found);
                }
                Err(error) if error.status().is_server_error() => return Err(error),
                Err(_) => {}
            }
            return Err(ApiError::validation(problems));
        }
        match rules(&value, &mut problems).await {
            Ok(()) => {}
            // A rule refusing the body (a tenant it must name) joins what was found before
            // it rather than hiding it.
            Err(error) if error.status() == StatusCode::BAD_REQUEST && !problems.is_empty() => {
                problems.extend_messages(error.validation_errors());
                return Err(ApiError::validation(problems));
            }
            Err(error) => return Err(error),
        }
        if problems.is_empty() {
            Ok(value)
        } else {
            Err(ApiError::validation(problems))
        }
    }
}

impl<T> Checked<T> {
    /// As [`Checked::check`], for `rules` that find something the write needs (the tenant
    /// a new record lands in): the body and that, once no rule is broken.
    pub async fn check_with<P, E: Into<ApiError>>(
        self,
        rules: impl AsyncFnOnce(&T, &mut Problems) -> Result<P, E>,
    ) -> Result<(T, P), ApiError> {
        let mut found = None;
        let value = self
            .check(async |value, problems| {
                found = Some(rules(value, problems).await.map_err(Into::into)?);
                Ok(())
            })
            .await?;
        let found = found.ok_or_else(|| ApiError::internal("checked rules found nothing"))?;
        Ok((value, found))
    }
}

impl<T: FromBody> Checked<T> {
    /// A body already parsed as JSON (the fields part of a multipart push, one row of an
    /// import) read as the extractor reads a request's: every rule its values break, and
    /// the body built without its broken fields so that [`Checked::check`] runs the
    /// record's rules on the rest.
    pub fn read(value: &Value) -> Checked<T> {
        let (body, problems) = T::read_partial(value);
        let (value, stand_ins) = match body {
            None => stand_in_for::<T>(value, &problems),
            body => (body, Vec::new()),
        };
        Checked {
            value,
            problems,
            stand_ins,
        }
    }
}

impl<S: Send + Sync, T: FromBody> FromRequest<S> for Checked<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, ApiError> {
        const {
            assert!(
                T::FIXED.is_empty(),
                "a body with fixed fields is read with Patch, which compares them"
            )
        };
        let read = read_json::<T>(req, true).await?;
        Ok(Checked {
            value: read.body,
            problems: read.problems,
            stand_ins: read.stand_ins,
        })
    }
}

/// A change body (`PATCH`) of a record with fields the body cannot change
/// (`FromBody::FIXED`): the body is reached only through [`Patch::against`], which accepts
/// those fields when they equal the record's current value — so a `GET` answer can be sent
/// back as it was read (interface §2) — and refuses any other value.
pub struct Patch<T> {
    /// The body, when it could be built.
    body: Option<T>,
    /// Every rule the body breaks.
    problems: Problems,
    /// The fixed fields the body sent, with their values.
    sent: Vec<(switchboard_domain::validation::FixedField, Value)>,
    /// The top-level fields left out or stood in for because they are broken.
    stand_ins: Vec<String>,
}

impl<T> Patch<T> {
    /// The body, once each fixed field it sent equals the field of `current` (the record
    /// as `GET` answers it); otherwise a 400 naming every one that differs together with
    /// every rule the body breaks (interface §5: every broken rule at once).
    pub fn against(self, current: &impl serde::Serialize) -> Result<T, ApiError> {
        let checked = self.checked_against(current)?;
        match checked.value {
            Some(body) if checked.problems.is_empty() => Ok(body),
            _ => Err(ApiError::validation(checked.problems)),
        }
    }

    /// The body compared with `current` like [`Patch::against`], its record's rules still
    /// to run ([`Checked::check`]), every problem answered together.
    pub fn checked_against(self, current: &impl serde::Serialize) -> Result<Checked<T>, ApiError> {
        let mut problems = Problems::new();
        if !self.sent.is_empty() {
            let current = serde_json::to_value(current).map_err(ApiError::internal)?;
            for (field, value) in &self.sent {
                if current.get(field.key) != Some(value) {
                    problems.add(Location::Body, field.key, field.message);
                }
            }
        }
        problems.extend(self.problems);
        Ok(Checked {
            value: self.body,
            problems,
            stand_ins: self.stand_ins,
        })
    }
}

impl<S: Send + Sync, T: FromBody> FromRequest<S> for Patch<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, ApiError> {
        let read = read_json::<T>(req, true).await?;
        let sent = T::FIXED
            .iter()
            .filter_map(|field| Some((*field, read.json.get(field.key)?.clone())))
            .collect();
        Ok(Patch {
            body: read.body,
            problems: read.problems,
            sent,
            stand_ins: read.stand_ins,
        })
    }
}

/// What [`read_json`] read.
struct Read<T> {
    /// The value, when it could be built.
    body: Option<T>,
    /// Every rule the body breaks.
    problems: Problems,
    /// The JSON it was read from.
    json: Value,
    /// The top-level fields left out or stood in for to build `body`.
    stand_ins: Vec<String>,
}

/// Reads a JSON body into `T` (with the placement `T` declares checked against the
/// caller's scope), answering what was read — the value when it could be built, every
/// rule it breaks — with the JSON it was read from; a body that is not JSON is refused
/// at once. With `stand_in`, a body whose broken fields keep it from being built is
/// built without them ([`stand_in_for`]), for the record's rules to run on the rest.
///
/// Only the typed half is generic: the body's bytes and JSON are read by one function for
/// every body type (`read_value`), so its future is compiled once, not once per `T`
/// (issue 33: the API crate's build is mostly such copies).
async fn read_json<T: FromBody>(req: Request, stand_in: bool) -> Result<Read<T>, ApiError> {
    let (value, scope) = read_value(req).await?;
    let (body, mut problems) = T::read_partial(&value);
    if let Some(scope) = scope.filter(|_| T::PLACEMENT != Placement::NONE) {
        scope.check_placement(T::PLACEMENT, &value, &mut problems);
    }
    let (body, stand_ins) = match body {
        None if stand_in => stand_in_for::<T>(&value, &problems),
        body => (body, Vec::new()),
    };
    Ok(Read {
        body,
        problems,
        json: value,
        stand_ins,
    })
}

/// A request's body as JSON, with the scope of its caller when one was authenticated
/// before the body is read: which of `tenantId`/`branchId` it must send depends on that
/// scope, and a missing one is reported with every other broken rule rather than after
/// them.
async fn read_value(req: Request) -> Result<(Value, Option<Scope>), ApiError> {
    if !crate::media_type::sent_json(req.headers()) {
        return Err(ApiError::unsupported_media_type(
            "the body must be sent as Content-Type: application/json",
        ));
    }
    let scope = req
        .extensions()
        .get::<Principal>()
        .map(|principal| principal.scope);
    // `Bytes` reads the body whatever the router's state: none is lent it.
    let bytes = Bytes::from_request(req, &())
        .await
        .map_err(body_rejection)?;
    let value = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad_request(format!("malformed JSON: {e}")))?;
    Ok((value, scope))
}

/// Builds `T` from `value` without the top-level fields `problems` names: first with
/// them left out (an optional field not sent), else with a required one replaced by the
/// document's example. Answers the value (never to be written: its problems stand) and
/// the fields replaced, or nothing when the body cannot be built even so.
fn stand_in_for<T: FromBody>(value: &Value, problems: &Problems) -> (Option<T>, Vec<String>) {
    let keys = problems.body_keys();
    let Value::Object(object) = value else {
        return (None, Vec::new());
    };
    if keys.is_empty() || keys.iter().any(String::is_empty) {
        return (None, Vec::new());
    }
    let mut without = object.clone();
    for key in &keys {
        without.remove(key);
    }
    if let (Some(body), _) = T::read_partial(&Value::Object(without.clone())) {
        return (Some(body), keys);
    }
    let example = T::body_example();
    for key in &keys {
        if let Some(stand_in) = example.get(key) {
            without.insert(key.clone(), stand_in.clone());
        }
    }
    match T::read_partial(&Value::Object(without)) {
        (Some(body), _) => (Some(body), keys),
        (None, _) => (None, Vec::new()),
    }
}

pub use switchboard_domain::validation::ID_PATTERN;

/// A record id from the path's `{id}`: `^[1-9][0-9]*$` or a 400; beyond the id range, a 404.
pub struct PathId<T>(pub T);

impl<S: Send + Sync, T: From<i64>> FromRequestParts<S> for PathId<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::bad_request("the path could not be read"))?;
        parse_id(&raw).map(|id| PathId(T::from(id)))
    }
}

/// Parses a path id by the contract's rules.
pub fn parse_id(raw: &str) -> Result<i64, ApiError> {
    let well_formed = raw
        .as_bytes()
        .first()
        .is_some_and(|b| (b'1'..=b'9').contains(b))
        && raw.bytes().all(|b| b.is_ascii_digit());
    if !well_formed {
        return Err(ApiError::invalid(
            Location::Path,
            "id",
            &format!("must match pattern {ID_PATTERN}"),
        ));
    }
    // Matches the pattern but does not fit: no record can have it.
    raw.parse().map_err(|_| ApiError::not_found())
}

/// The query string as a map; the first of repeated parameters wins.
async fn query_map(parts: &mut Parts) -> Result<HashMap<String, String>, ApiError> {
    let Query(pairs) = Query::<Vec<(String, String)>>::from_request_parts(parts, &())
        .await
        .map_err(|_| ApiError::bad_request("the query string could not be read"))?;
    let mut map = HashMap::with_capacity(pairs.len());
    if pairs.iter().any(|(key, _)| key.is_empty()) {
        return Err(ApiError::invalid(
            Location::Query,
            "",
            "must not have a parameter without a name",
        ));
    }
    for (key, value) in pairs {
        map.entry(key).or_insert(value);
    }
    Ok(map)
}

/// A list request for records `R`: the shared list parameters of interface §6 and the
/// filters `R` declares, with every broken parameter reported together.
pub struct ListParams<R: Listed> {
    /// Paging, sorting and search.
    pub query: ListQuery,
    /// The resource's filters.
    pub filter: R::Filter,
}

impl<S: Send + Sync, R: Listed> FromRequestParts<S> for ListParams<R> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let params = query_map(parts).await?;
        let mut problems = Problems::new();
        let query = ListQuery::read(R::SPEC, &params, R::PER_PAGE_ALIASES, &mut problems);
        let filter = R::Filter::read_query(&mut QueryReader::new(&params, &mut problems));
        if problems.is_empty() {
            Ok(ListParams { query, filter })
        } else {
            Err(ApiError::validation(problems))
        }
    }
}

/// Query parameters of a non-list operation read into `T`.
pub struct QueryParams<T>(pub T);

impl<S: Send + Sync, T: FromQuery> FromRequestParts<S> for QueryParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let params = query_map(parts).await?;
        T::from_query(&params)
            .map(QueryParams)
            .map_err(ApiError::validation)
    }
}
