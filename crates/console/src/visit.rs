//! One browser request to the console: its session (opened from the cookie, or a new
//! anonymous one), where it comes from, the API calls made for it with the person's own
//! token, and the answer with the session's cookie when it changed.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde_json::Value;
use switchboard_domain::Principal;

use crate::chrome::{Chrome, error_page};
use crate::inprocess::{Answer, InProcess, Origin};
use crate::refresh::Refreshed;
use crate::session::{COOKIE_NAME, COOKIE_PATH, Person, Session};
use crate::shared::Console;

/// Why a page is not shown.
#[derive(Debug)]
pub(crate) enum PageError {
    /// Nobody is signed in (or their API session ended): to the sign-in page.
    SignIn,
    /// A platform or partner admin has not picked the tenant to act on yet.
    PickTenant,
    /// A form without this session's token, or posted from another origin.
    Forged,
    /// The API refused: the person may not do this (its message).
    Forbidden(String),
    /// No such record in the person's scope.
    NotFound,
    /// The API refused the change (a conflict, a rule): its status and message.
    Refused(StatusCode, String),
    /// The API cannot answer now (rate limit, lock, overload): its message and status.
    Unavailable(StatusCode, String),
    /// Anything else.
    Failed(anyhow::Error),
}

impl From<anyhow::Error> for PageError {
    fn from(error: anyhow::Error) -> PageError {
        PageError::Failed(error)
    }
}

impl From<askama::Error> for PageError {
    fn from(error: askama::Error) -> PageError {
        PageError::Failed(error.into())
    }
}

/// The outcome of a page's handling.
pub(crate) type PageResult = Result<Response, PageError>;

/// A request to the console, with its session.
pub(crate) struct Visit {
    console: Console,
    origin: Origin,
    headers: HeaderMap,
    session: Session,
    /// The session differs from the browser's cookie: the answer sets it.
    changed: bool,
    /// The browser reached the service over TLS: the cookie is `Secure`.
    secure: bool,
    /// Who the API takes the signed-in person for, once a page has asked
    /// ([`Visit::signed_in`]): what the navigation offers follows its permissions.
    principal: Option<Principal>,
}

impl FromRequestParts<Console> for Visit {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        console: &Console,
    ) -> Result<Visit, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)), |info| info.0);
        let secure = over_tls(console, peer, &parts.headers);
        let (session, changed) = match console.keys.open(&parts.headers) {
            Some(session) => (session, false),
            None => (Session::anonymous(), true),
        };
        Ok(Visit {
            console: console.clone(),
            origin: Origin::of(peer, &parts.headers),
            headers: parts.headers.clone(),
            session,
            changed,
            secure,
            principal: None,
        })
    }
}

/// Whether the browser's connection is TLS: the public URL says `https`, or a trusted
/// proxy says the browser spoke `https` to it (`X-Forwarded-Proto`, believed only from
/// one of the trusted proxies, as the API believes their forwarding headers).
fn over_tls(console: &Console, peer: SocketAddr, headers: &HeaderMap) -> bool {
    if console.public_url.starts_with("https://") {
        return true;
    }
    let peer = peer.ip().to_canonical();
    let trusted = console
        .trusted_proxies
        .iter()
        .any(|net| net.contains(&peer));
    trusted
        && headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|proto| {
                proto
                    .split(',')
                    .next()
                    .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"))
            })
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

impl Visit {
    /// The signed-in person, if any (without refreshing their token).
    pub fn person(&self) -> Option<&Person> {
        self.session.person.as_ref()
    }

    /// The page furniture: who is signed in, the tenant acted on, the form token.
    pub fn chrome(&self, current: &'static str) -> Chrome {
        Chrome::new(
            self.person(),
            self.principal.as_ref(),
            self.console.keys.form_token(&self.session),
            current,
        )
    }

    /// Replaces the session (a sign-in, a sign-out, a tenant picked).
    pub fn set_session(&mut self, session: Session) {
        self.session = session;
        self.changed = true;
    }

    /// Keeps `person` as the session's signed-in person (the tenant they picked, a
    /// setting turned on), the session's form token unchanged.
    pub fn set_person(&mut self, person: Person) {
        self.session.person = Some(person);
        self.changed = true;
    }

    /// The signed-in person, their access token refreshed through the API when it has
    /// expired; [`PageError::SignIn`] when nobody is signed in or the API session ended.
    /// Requests of one session refreshing at once share one refresh ([`crate::refresh`]):
    /// the API would take a second use of the refresh token for theft.
    pub async fn signed_in(&mut self) -> Result<Person, PageError> {
        let Some(person) = self.session.person.clone() else {
            return Err(PageError::SignIn);
        };
        if person.access_until > now() {
            return self.principal_of(person).await;
        }
        let api = self.console.api.clone();
        let origin = self.origin.clone();
        let token = person.refresh_token.clone();
        let refreshed = self
            .console
            .refreshes
            .refresh(&person.refresh_token, refresh(api, origin, token))
            .await;
        match refreshed {
            Refreshed::Tokens {
                access_token,
                access_until,
                refresh_token,
            } => {
                let refreshed = Person {
                    access_token,
                    access_until,
                    refresh_token,
                    ..person
                };
                self.session.person = Some(refreshed.clone());
                self.changed = true;
                self.principal_of(refreshed).await
            }
            Refreshed::Ended => {
                self.set_session(Session::anonymous());
                Err(PageError::SignIn)
            }
            Refreshed::Failed(status, message) => {
                let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
                if status == StatusCode::TOO_MANY_REQUESTS
                    || status == StatusCode::SERVICE_UNAVAILABLE
                {
                    Err(PageError::Unavailable(status, message))
                } else {
                    Err(anyhow::anyhow!("the refresh failed: {status} {message}").into())
                }
            }
        }
    }

    /// `person`, once the API's view of them (their principal: role, scope and
    /// permissions as every request of theirs is checked against) is known to this visit;
    /// a token the API no longer takes ends the console's session, as an API answer
    /// saying so does.
    async fn principal_of(&mut self, person: Person) -> Result<Person, PageError> {
        if self.principal.is_some() {
            return Ok(person);
        }
        let found = (self.console.principal_of)(person.access_token.clone())
            .await
            .map_err(|error| anyhow::anyhow!("who the person is: {error}"))?;
        match found {
            Some(principal) => {
                self.principal = Some(principal);
                Ok(person)
            }
            None => {
                self.set_session(Session::anonymous());
                Err(PageError::SignIn)
            }
        }
    }

    /// The signed-in person acting on a tenant: [`PageError::PickTenant`] for a platform
    /// or partner admin who has not picked one.
    pub async fn acting(&mut self) -> Result<Person, PageError> {
        let person = self.signed_in().await?;
        if person.acting.is_none() {
            return Err(PageError::PickTenant);
        }
        Ok(person)
    }

    /// Refuses a form without this session's token or posted from another origin; the
    /// refusal comes before anything is changed.
    pub fn check_form(&self, token: Option<&str>) -> Result<(), PageError> {
        let token_ok =
            token.is_some_and(|t| self.console.keys.form_token_matches(&self.session, t));
        if token_ok && self.same_origin() {
            Ok(())
        } else {
            Err(PageError::Forged)
        }
    }

    /// Whether the browser says the form came from the console's own origin:
    /// `Sec-Fetch-Site: same-origin`, else an `Origin` naming this host. A request with
    /// neither (an old browser, a script) is left to the form token.
    fn same_origin(&self) -> bool {
        if let Some(site) = self.headers.get("sec-fetch-site") {
            return site.as_bytes() == b"same-origin";
        }
        let Some(origin) = self
            .headers
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok())
        else {
            return true;
        };
        let host = self
            .headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let public = self.console.public_url.trim_end_matches('/');
        let public_origin = public
            .find("://")
            .and_then(|i| public[i + 3..].find('/').map(|j| &public[..i + 3 + j]))
            .unwrap_or(public);
        (!host.is_empty()
            && (origin == format!("http://{host}") || origin == format!("https://{host}")))
            || origin == public_origin
    }

    /// One request to the API from this browser, with `token` when given.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<Answer, PageError> {
        let (content_type, bytes) = match body {
            Some(body) => (
                Some("application/json"),
                serde_json::to_vec(&body).map_err(anyhow::Error::from)?,
            ),
            None => (None, Vec::new()),
        };
        Ok(self
            .console
            .api
            .send(&self.origin, method, path, token, content_type, bytes)
            .await?)
    }

    /// One request to the API as the signed-in person with a body that is no JSON (a
    /// multipart upload), sent as the browser's form gave it.
    pub async fn call_with(
        &mut self,
        method: Method,
        path: &str,
        content_type: &str,
        bytes: Vec<u8>,
    ) -> Result<Answer, PageError> {
        let person = self.signed_in().await?;
        let answer = self
            .console
            .api
            .send(
                &self.origin,
                method,
                path,
                Some(&person.access_token),
                Some(content_type),
                bytes,
            )
            .await?;
        if answer.status == StatusCode::UNAUTHORIZED {
            self.set_session(Session::anonymous());
            return Err(PageError::SignIn);
        }
        Ok(answer)
    }

    /// A GET of the API as the signed-in person whose successful answer is passed on as
    /// it streams (a CSV export: never held whole in memory); a refusal is the page's
    /// error.
    pub async fn stream(&mut self, path: &str) -> PageResult {
        let person = self.signed_in().await?;
        let response = self
            .console
            .api
            .respond(
                &self.origin,
                Method::GET,
                path,
                Some(&person.access_token),
                None,
                Vec::new(),
            )
            .await?;
        if response.status().is_success() {
            return Ok(response);
        }
        Err(self.refused(response).await)
    }

    /// The page error of an API response that is no success (its body read, small).
    async fn refused(&mut self, response: Response) -> PageError {
        let (parts, body) = response.into_parts();
        let body = match axum::body::to_bytes(body, 1024 * 1024).await {
            Ok(body) => body,
            Err(error) => return PageError::Failed(error.into()),
        };
        let answer = Answer {
            status: parts.status,
            headers: parts.headers,
            body,
        };
        if answer.status == StatusCode::UNAUTHORIZED {
            self.set_session(Session::anonymous());
            return PageError::SignIn;
        }
        refusal(&answer)
    }

    /// The audio at `link`, a media link the API answered to this person (in process,
    /// always the service's own: [`InProcess::respond_with`]), streamed to the browser's
    /// player through the API's download route with the browser's `Range` passed on: the
    /// route's answer (200 whole, 206 with `Content-Range`, 416 outside the audio, with
    /// `Accept-Ranges: bytes`) is the player's, its bytes read from the store as they go.
    /// Every player of the console plays through here, whichever the store, so the
    /// policy's `default-src 'self'` holds and seeking works.
    pub async fn play(&mut self, link: &str) -> PageResult {
        let Some(start) = link.find("/v2/objects/") else {
            return Err(PageError::NotFound);
        };
        let mut sent = HeaderMap::new();
        if let Some(range) = self.headers.get(header::RANGE) {
            sent.insert(header::RANGE, range.clone());
        }
        // The link's signature is its credential, as for any client holding it.
        let response = self
            .console
            .api
            .respond_with(
                &self.origin,
                Method::GET,
                &link[start..],
                None,
                sent,
                Vec::new(),
            )
            .await?;
        let status = response.status();
        if !status.is_success() && status != StatusCode::RANGE_NOT_SATISFIABLE {
            return Err(self.refused(response).await);
        }
        let (parts, body) = response.into_parts();
        let mut played = Response::new(body);
        *played.status_mut() = status;
        let headers = played.headers_mut();
        for name in [
            header::CONTENT_TYPE,
            header::CONTENT_LENGTH,
            header::CONTENT_RANGE,
            header::ACCEPT_RANGES,
            header::CONTENT_DISPOSITION,
        ] {
            if let Some(value) = parts.headers.get(&name) {
                headers.insert(name, value.clone());
            }
        }
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-store"),
        );
        Ok(played)
    }

    /// One request to the API as the signed-in person. An answer saying their token is
    /// no longer good (the API session was revoked) ends the console's session.
    pub async fn call(
        &mut self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Answer, PageError> {
        let person = self.signed_in().await?;
        let answer = self
            .send(method, path, Some(&person.access_token), body)
            .await?;
        if answer.status == StatusCode::UNAUTHORIZED {
            self.set_session(Session::anonymous());
            return Err(PageError::SignIn);
        }
        Ok(answer)
    }

    /// A read from the API as the signed-in person: its JSON, or the page's error.
    pub async fn get(&mut self, path: &str) -> Result<Value, PageError> {
        let answer = self.call(Method::GET, path, None).await?;
        expect_success(answer)
    }

    /// The answer to the browser: `page`, or the page its error calls for, with the
    /// session's cookie when it changed.
    pub fn finish(self, page: PageResult) -> Response {
        let mut response = match page {
            Ok(response) => response,
            Err(error) => self.error_response(error),
        };
        if self.changed {
            let mut cookie = format!(
                "{COOKIE_NAME}={}; Path={COOKIE_PATH}; HttpOnly; SameSite=Strict",
                self.console.keys.seal(&self.session)
            );
            if self.secure {
                cookie.push_str("; Secure");
            }
            if let Ok(value) = HeaderValue::try_from(cookie) {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
        }
        response
    }

    fn error_response(&self, error: PageError) -> Response {
        let chrome = || self.chrome("");
        match error {
            PageError::SignIn => Redirect::to("/console/sign-in").into_response(),
            PageError::PickTenant => Redirect::to("/console/tenants").into_response(),
            PageError::Forged => error_page(
                chrome(),
                StatusCode::FORBIDDEN,
                "This form was refused",
                "It did not come from this console page, or the page is too old. Nothing was changed: go back, reload the page and try again.",
            ),
            PageError::Forbidden(message) => error_page(
                chrome(),
                StatusCode::FORBIDDEN,
                "Not allowed",
                &format!("Your account may not do this: {message}"),
            ),
            PageError::NotFound => error_page(
                chrome(),
                StatusCode::NOT_FOUND,
                "Not found",
                "There is no such page or record in what you can see.",
            ),
            PageError::Refused(status, message) => {
                error_page(chrome(), status, "The change was refused", &message)
            }
            PageError::Unavailable(status, message) => {
                error_page(chrome(), status, "Please try again later", &message)
            }
            PageError::Failed(error) => {
                tracing::error!(error = format!("{error:#}"), "a console page failed");
                error_page(
                    chrome(),
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Something went wrong",
                    "The page could not be shown. The error is in the service's log.",
                )
            }
        }
    }
}

/// Trades `token` for new tokens through the API, as the browser of `origin`.
async fn refresh(api: InProcess, origin: Origin, token: String) -> Refreshed {
    let body = serde_json::to_vec(&serde_json::json!({"refreshToken": token})).unwrap_or_default();
    let answer = match api
        .send(
            &origin,
            Method::POST,
            "/v2/authentication/refresh",
            None,
            Some("application/json"),
            body,
        )
        .await
    {
        Ok(answer) => answer,
        Err(error) => return Refreshed::Failed(500, format!("{error:#}")),
    };
    let body = answer.json();
    if answer.status == StatusCode::UNAUTHORIZED || answer.status == StatusCode::BAD_REQUEST {
        return Refreshed::Ended;
    }
    if !answer.status.is_success() {
        let message = body["message"].as_str().unwrap_or("the service refused");
        return Refreshed::Failed(answer.status.as_u16(), message.to_owned());
    }
    match (body["accessToken"].as_str(), body["refreshToken"].as_str()) {
        (Some(access), Some(refresh)) => Refreshed::Tokens {
            access_token: access.to_owned(),
            access_until: access_until(&body),
            refresh_token: refresh.to_owned(),
        },
        _ => Refreshed::Failed(500, "the refresh answered no tokens".to_owned()),
    }
}

/// When an access token answered now stops being used: its `expiresIn`, less a margin so
/// it never expires between the check and the call.
pub(crate) fn access_until(body: &Value) -> i64 {
    let lifetime = body["expiresIn"].as_i64().unwrap_or(60);
    now() + (lifetime - 30).max(0)
}

/// The JSON of a successful answer; the page error its refusal calls for otherwise.
pub(crate) fn expect_success(answer: Answer) -> Result<Value, PageError> {
    if answer.status.is_success() {
        return Ok(answer.json());
    }
    Err(refusal(&answer))
}

/// The page error for a refusal of the API.
pub(crate) fn refusal(answer: &Answer) -> PageError {
    let message = answer.json()["message"]
        .as_str()
        .unwrap_or("the service refused")
        .to_owned();
    match answer.status {
        StatusCode::FORBIDDEN => PageError::Forbidden(message),
        StatusCode::NOT_FOUND => PageError::NotFound,
        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE => {
            PageError::Unavailable(answer.status, message)
        }
        status if status.is_client_error() => PageError::Refused(status, message),
        status => PageError::Failed(anyhow::anyhow!("the API answered {status}: {message}")),
    }
}
