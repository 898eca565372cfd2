//! The console (issue 34) over HTTP, for what is not visual: the redirect to it, its
//! cookie's flags, the security headers of every page, form tokens and cross-origin
//! refusal (a refused form changes nothing), sign-in and sign-out through the API's own
//! sessions, the branch scope the API applies, the lockout's message, and a session
//! opened by one process working on another. The pages themselves are driven in a
//! browser by tests/console/.

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, LOCATION, SET_COOKIE};
use serde_json::Value;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{PASSWORD, TestApp};

/// The console's cookie.
const COOKIE: &str = "switchboard_console";

/// The policy every console answer carries.
const CSP: &str = switchboard_console::CONTENT_SECURITY_POLICY;

/// A browser without JavaScript: keeps the console's cookie, follows no redirect, and
/// says its form posts come from the same origin, as a browser does.
pub(crate) struct Browser {
    base: String,
    client: reqwest::Client,
    cookie: Option<String>,
}

/// A console answer.
pub(crate) struct Page {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: String,
}

impl Page {
    /// Where a redirect sends the browser ("" when the answer is none).
    pub(crate) fn location(&self) -> &str {
        self.headers
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    /// The message shown next to the field `field` (its `<p id="{field}-error"
    /// data-field="{field}">`), if the page shows one.
    pub(crate) fn error_next_to(&self, field: &str) -> Option<&str> {
        let marker = format!("id=\"{field}-error\" data-field=\"{field}\">");
        let start = self.body.find(&marker)? + marker.len();
        self.body[start..].split("</p>").next()
    }

    /// The opening tag of the element whose id is `id` (without its closing `>`).
    pub(crate) fn tag(&self, id: &str) -> &str {
        self.find_tag(id)
            .unwrap_or_else(|| panic!("no element #{id}: {}", self.body))
    }

    /// Whether the element `id` (an input, select or fieldset) is marked invalid.
    pub(crate) fn marked_invalid(&self, id: &str) -> bool {
        self.find_tag(id)
            .is_some_and(|tag| tag.contains("aria-invalid=\"true\""))
    }

    /// The value of the selected option of the `<select>` with id `id` ("" when none is).
    pub(crate) fn selected(&self, id: &str) -> String {
        let start = self
            .body
            .find(&format!("<select id=\"{id}\""))
            .unwrap_or_else(|| panic!("no select #{id}: {}", self.body));
        let select = &self.body[start..];
        let select = &select[..select.find("</select>").unwrap()];
        select
            .split("<option value=\"")
            .skip(1)
            .find(|option| option.contains("\" selected>"))
            .map(|option| option.split('"').next().unwrap().to_owned())
            .unwrap_or_default()
    }

    /// The text of the first element marked `data-testid="{id}"`.
    pub(crate) fn test_id(&self, id: &str) -> &str {
        let marker = format!("data-testid=\"{id}\"");
        let start = self
            .body
            .find(&marker)
            .unwrap_or_else(|| panic!("no {id}: {}", self.body));
        let rest = &self.body[start..];
        let rest = &rest[rest.find('>').unwrap() + 1..];
        &rest[..rest.find('<').unwrap()]
    }

    /// The opening tag of the element whose id is `id`, if there is one. The space before
    /// `id=` keeps a `data-testid` of the same name from matching.
    fn find_tag(&self, id: &str) -> Option<&str> {
        let at = self.body.find(&format!(" id=\"{id}\""))?;
        let start = self.body[..at].rfind('<')?;
        let tag = &self.body[start..];
        Some(&tag[..tag.find('>')?])
    }

    /// The value of the form token field on the page.
    pub(crate) fn token(&self) -> String {
        let marker = "name=\"csrf\" value=\"";
        let start = self.body.find(marker).expect("a form token on the page") + marker.len();
        self.body[start..]
            .split('"')
            .next()
            .expect("a value")
            .to_owned()
    }
}

impl Browser {
    pub(crate) fn new(base: &str) -> Browser {
        Browser {
            base: base.to_owned(),
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookie: None,
        }
    }

    async fn read(&mut self, response: reqwest::Response) -> Page {
        let status = response.status();
        let headers = response.headers().clone();
        for value in headers.get_all(SET_COOKIE) {
            let value = value.to_str().unwrap();
            if let Some(rest) = value.strip_prefix(&format!("{COOKIE}=")) {
                self.cookie = Some(rest.split(';').next().unwrap().to_owned());
            }
        }
        Page {
            status,
            headers,
            body: response.text().await.unwrap(),
        }
    }

    fn with_cookie(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.cookie {
            Some(cookie) => request.header("cookie", format!("{COOKIE}={cookie}")),
            None => request,
        }
    }

    pub(crate) async fn get(&mut self, path: &str) -> Page {
        let request = self.with_cookie(self.client.get(format!("{}{path}", self.base)));
        let response = request.send().await.unwrap();
        self.read(response).await
    }

    /// A GET of `path` with the session's cookie and the `Range` a player would send,
    /// answering status, headers and the bytes (audio is no text).
    pub(crate) async fn fetch(
        &mut self,
        path: &str,
        range: Option<&str>,
    ) -> (StatusCode, HeaderMap, Vec<u8>) {
        let mut request = self.with_cookie(self.client.get(format!("{}{path}", self.base)));
        if let Some(range) = range {
            request = request.header(reqwest::header::RANGE, range);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        (status, headers, response.bytes().await.unwrap().to_vec())
    }

    /// Posts `fields` as a same-origin form.
    pub(crate) async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        self.post_with(path, fields, &[("sec-fetch-site", "same-origin")])
            .await
    }

    async fn post_with(
        &mut self,
        path: &str,
        fields: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Page {
        let mut request = self
            .with_cookie(self.client.post(format!("{}{path}", self.base)))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form_body(fields));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.unwrap();
        self.read(response).await
    }

    /// Posts `form` as a same-origin `multipart/form-data` form (a file upload).
    pub(crate) async fn post_multipart(
        &mut self,
        path: &str,
        form: reqwest::multipart::Form,
    ) -> Page {
        let request = self
            .with_cookie(self.client.post(format!("{}{path}", self.base)))
            .header("sec-fetch-site", "same-origin")
            .multipart(form);
        let response = request.send().await.unwrap();
        self.read(response).await
    }

    /// Signs in as `email` through the sign-in form, answering the redirect.
    pub(crate) async fn sign_in(&mut self, email: &str) -> Page {
        let form = self.get("/console/sign-in").await;
        let token = form.token();
        self.post(
            "/console/sign-in",
            &[("csrf", &token), ("email", email), ("password", PASSWORD)],
        )
        .await
    }

    /// Another browser tab of this session: the same cookie, sending on its own.
    pub(crate) fn tab(&self) -> Browser {
        Browser {
            base: self.base.clone(),
            client: self.client.clone(),
            cookie: self.cookie.clone(),
        }
    }

    /// The session's cookie, as the browser holds it now.
    pub(crate) fn cookie(&self) -> Option<&str> {
        self.cookie.as_deref()
    }

    /// The form token of the signed-in session (read off a page with a form).
    async fn token(&mut self) -> String {
        self.get("/console/extensions/new").await.token()
    }
}

/// `fields` as an `application/x-www-form-urlencoded` body.
/// The console's player route `path` answers as a browser's `<audio>` element asks when
/// it loads and seeks: without `Range` all of `whole` (200, `Accept-Ranges: bytes`), each
/// satisfiable range exactly its bytes (206 with `Content-Range`), a range outside the
/// audio 416; every answer with the console's policy and kept from caches.
pub(crate) async fn plays_with_ranges(browser: &mut Browser, path: &str, whole: &[u8]) {
    let header = |headers: &HeaderMap, name: &str| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    let n = whole.len();
    assert!(n > 300, "{path}: a longer audio is needed ({n} bytes)");
    let (status, headers, bytes) = browser.fetch(path, None).await;
    assert_eq!(status, StatusCode::OK, "{path}");
    assert_eq!(bytes, whole, "{path}: the whole audio");
    assert_eq!(header(&headers, "accept-ranges"), "bytes", "{path}");
    assert_eq!(header(&headers, "content-length"), n.to_string(), "{path}");
    assert!(
        header(&headers, "content-type").starts_with("audio/"),
        "{path}"
    );
    assert_eq!(header(&headers, "content-range"), "", "{path}");
    assert_eq!(header(&headers, "content-security-policy"), CSP, "{path}");
    assert_eq!(
        header(&headers, "cache-control"),
        "private, no-store",
        "{path}"
    );
    let ranges = [
        ("bytes=0-".to_owned(), 0..n),
        ("bytes=0-0".to_owned(), 0..1),
        ("bytes=0-9".to_owned(), 0..10),
        ("bytes=100-299".to_owned(), 100..300),
        (format!("bytes={}-", n - 7), n - 7..n),
        ("bytes=-5".to_owned(), n - 5..n),
        (format!("bytes=10-{}", n + 1000), 10..n),
    ];
    for (range, served) in ranges {
        let (status, headers, bytes) = browser.fetch(path, Some(&range)).await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{path} {range}");
        assert_eq!(bytes, &whole[served.clone()], "{path} {range}");
        assert_eq!(
            header(&headers, "content-range"),
            format!("bytes {}-{}/{n}", served.start, served.end - 1),
            "{path} {range}"
        );
        assert_eq!(
            header(&headers, "content-length"),
            served.len().to_string(),
            "{path} {range}"
        );
        assert_eq!(header(&headers, "accept-ranges"), "bytes", "{path} {range}");
    }
    for range in [
        format!("bytes={n}-"),
        format!("bytes={}-{}", n + 10, n + 20),
    ] {
        let (status, headers, _) = browser.fetch(path, Some(&range)).await;
        assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE, "{path} {range}");
        assert_eq!(
            header(&headers, "content-range"),
            format!("bytes */{n}"),
            "the player is told the audio's length: {path} {range}"
        );
    }
}

fn form_body(fields: &[(&str, &str)]) -> String {
    let encode = |text: &str| {
        text.bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                    (b as char).to_string()
                }
                b' ' => "+".to_owned(),
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    fields
        .iter()
        .map(|(name, value)| format!("{}={}", encode(name), encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

async fn extensions_named(app: &TestApp, token: &str, name: &str) -> Vec<Value> {
    let found = app
        .get(&format!("/v2/admin/extensions/?query={name}"), token)
        .await
        .expect(200);
    found["records"].as_array().unwrap().clone()
}

/// `/` and `/console` lead to `/console/`, which leads to the sign-in page without a
/// session; an unknown console path is an HTML 404, not the API's JSON one.
async fn the_root_leads_to_the_console(app: TestApp) {
    let mut browser = Browser::new(&app.base);
    let root = browser.get("/").await;
    assert_eq!(root.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(root.location(), "/console/");
    assert_eq!(browser.get("/console").await.location(), "/console/");
    let home = browser.get("/console/").await;
    assert_eq!(home.status, StatusCode::SEE_OTHER);
    assert_eq!(home.location(), "/console/sign-in");
    let missing = browser.get("/console/no-such-page").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(
        missing.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html"),
        "{:?}",
        missing.headers
    );
    assert_eq!(missing.headers["content-security-policy"], CSP);
    // The API's own unknown paths still answer its JSON error.
    let api_missing = app
        .client
        .get(app.url("/v2/no-such-path"))
        .send()
        .await
        .unwrap();
    assert_eq!(api_missing.status(), StatusCode::NOT_FOUND);
    let body: Value = api_missing.json().await.unwrap();
    assert_eq!(body["name"], "NotFound");
}

/// Every page, signed in or not, answers with the strict policy and its companions, and
/// pages are not stored by caches; the stylesheet is served under its content's hash.
async fn every_page_carries_the_security_headers(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    let sign_in = browser.get("/console/sign-in").await;
    assert_eq!(sign_in.status, StatusCode::OK);
    let css = sign_in
        .body
        .split("href=\"")
        .find_map(|rest| rest.split('"').next().filter(|href| href.ends_with(".css")))
        .unwrap()
        .to_owned();
    assert!(
        css.starts_with("/console/assets/console.")
            && css.len() > "/console/assets/console..css".len() + 8,
        "{css}"
    );
    assert_eq!(browser.sign_in(w.admin_a).await.location(), "/console/");
    let pages = [
        "/console/",
        "/console/extensions",
        "/console/extensions/new",
        &format!("/console/extensions/{}", w.ext_a),
        "/console/phone-numbers",
        "/console/voicemail",
        "/console/voicemail?read=0",
        "/console/audit",
        "/console/password",
        "/console/mfa",
    ];
    for path in pages.into_iter().chain(["/console/sign-in"]) {
        let page = browser.get(path).await;
        assert!(
            page.status.is_success() || page.status.is_redirection(),
            "{path}: {}",
            page.status
        );
        assert_eq!(page.headers["content-security-policy"], CSP, "{path}");
        assert_eq!(page.headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(page.headers["referrer-policy"], "same-origin", "{path}");
        assert_eq!(page.headers["x-frame-options"], "DENY", "{path}");
        assert_eq!(page.headers["cache-control"], "no-store", "{path}");
        // No inline script or style anywhere (the policy would block it).
        assert!(!page.body.contains("<script"), "{path}");
        assert!(!page.body.contains("style="), "{path}");
    }
    let stylesheet = browser.get(&css).await;
    assert_eq!(stylesheet.status, StatusCode::OK);
    assert!(
        stylesheet.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/css")
    );
    assert!(
        stylesheet.headers["cache-control"]
            .to_str()
            .unwrap()
            .contains("immutable")
    );
    assert_eq!(
        browser
            .get("/console/assets/console.0000000000000000.css")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

/// The cookie is `HttpOnly`, `SameSite=Strict`, for `/console` only, `Secure` when the
/// service is reached over TLS; a cookie altered by one byte is no session.
async fn the_cookie_is_sealed_and_strict(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    let signed_in = browser.sign_in(w.admin_a).await;
    let cookie = signed_in.headers[SET_COOKIE].to_str().unwrap().to_owned();
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/console"] {
        assert!(cookie.contains(flag), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    // Neither the tokens nor the e-mail address can be read in it.
    assert!(
        !cookie.contains("eyJ") && !cookie.contains("sbr_") && !cookie.contains("admin-a"),
        "{cookie}"
    );
    assert_eq!(browser.get("/console/").await.status, StatusCode::OK);
    let sealed = browser.cookie.clone().unwrap();
    let mut altered = sealed.clone().into_bytes();
    let last = altered.len() - 1;
    altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
    browser.cookie = Some(String::from_utf8(altered).unwrap());
    assert_eq!(
        browser.get("/console/").await.location(),
        "/console/sign-in"
    );

    // Behind a TLS-terminating proxy the service knows as such, the cookie is Secure.
    let secure = app
        .start_sibling_with(|config| config.trusted_proxies = "127.0.0.1/32".into())
        .await;
    let mut browser = Browser::new(&secure.base);
    let page = {
        let request = browser
            .client
            .get(format!("{}/console/sign-in", secure.base))
            .header("x-forwarded-proto", "https");
        let response = request.send().await.unwrap();
        browser.read(response).await
    };
    assert!(
        page.headers[SET_COOKIE]
            .to_str()
            .unwrap()
            .contains("; Secure")
    );
    // The same header from an untrusted peer is not believed.
    let mut plain = Browser::new(&app.base);
    let request = plain
        .client
        .get(format!("{}/console/sign-in", app.base))
        .header("x-forwarded-proto", "https");
    let response = request.send().await.unwrap();
    let page = plain.read(response).await;
    assert!(
        !page.headers[SET_COOKIE]
            .to_str()
            .unwrap()
            .contains("Secure")
    );
}

/// A form without the session's token, with another session's token, or posted from
/// another origin answers 403 and changes nothing; the same form from the page itself
/// creates the extension, audited as the person.
async fn a_forged_form_changes_nothing(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.token().await;
    let mut other = Browser::new(&app.base);
    other.sign_in(w.admin_a).await;
    let other_token = other.token().await;
    assert_ne!(token, other_token);
    let fields = |csrf: &'static str| vec![("csrf", csrf), ("number", "555"), ("name", "Forged")];
    let leaked: &'static str = Box::leak(other_token.into_boxed_str());
    let tried = [
        browser.post("/console/extensions", &fields("")).await,
        browser.post("/console/extensions", &fields("00ff")).await,
        browser.post("/console/extensions", &fields(leaked)).await,
    ];
    for page in tried {
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{}", page.body);
    }
    let own: &'static str = Box::leak(token.into_boxed_str());
    for headers in [
        vec![("sec-fetch-site", "cross-site")],
        vec![("sec-fetch-site", "same-site")],
        vec![("origin", "https://attacker.example")],
        vec![("origin", "null")],
    ] {
        let page = browser
            .post_with("/console/extensions", &fields(own), &headers)
            .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{headers:?}");
    }
    assert!(extensions_named(&app, &admin, "Forged").await.is_empty());
    // A sign-out forged the same way leaves the session as it was.
    let page = browser
        .post_with(
            "/console/sign-out",
            &[("csrf", own)],
            &[("sec-fetch-site", "cross-site")],
        )
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert_eq!(browser.get("/console/").await.status, StatusCode::OK);

    let made = browser.post("/console/extensions", &fields(own)).await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.body);
    assert_eq!(made.location(), "/console/extensions?done=created");
    let created = extensions_named(&app, &admin, "Forged").await;
    assert_eq!(created.len(), 1);
    let audit = app.newest_audit_entry("extension", &admin).await;
    assert_eq!(audit["userEmail"], w.admin_a, "{audit}");
}

/// A change made in the console is on its audit page, with who made it and the record
/// before and after.
async fn the_audit_page_shows_a_change_before_and_after(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.token().await;
    let saved = browser
        .post(
            &format!("/console/extensions/{}", w.ext_a),
            &[
                ("csrf", &token),
                ("number", "101"),
                ("name", "Front desk, renamed"),
                ("branchId", &w.branch_a.to_string()),
            ],
        )
        .await;
    assert_eq!(
        saved.location(),
        "/console/extensions?done=updated",
        "{}",
        saved.body
    );
    let trail = browser.get("/console/audit").await;
    assert_eq!(trail.status, StatusCode::OK);
    let row = trail
        .body
        .split("<tr>")
        .find(|row| row.contains(&format!("extension {}", w.ext_a)))
        .unwrap_or_else(|| panic!("no entry of the change: {}", trail.body));
    assert!(row.contains(w.admin_a), "{row}");
    assert!(
        row.contains("Front desk A") && row.contains("Front desk, renamed"),
        "{row}"
    );
}

/// A form posted without a session leads to the sign-in page and changes nothing.
async fn a_post_without_a_session_goes_to_sign_in(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    let page = browser
        .post(
            "/console/extensions",
            &[("number", "556"), ("name", "Anonymous")],
        )
        .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.location(), "/console/sign-in");
    let page = browser
        .post(&format!("/console/extensions/{}/delete", w.ext_a), &[])
        .await;
    assert_eq!(page.location(), "/console/sign-in");
    assert!(extensions_named(&app, &admin, "Anonymous").await.is_empty());
    app.get(&format!("/v2/admin/extensions/{}", w.ext_a), &admin)
        .await
        .expect(200);
}

/// A refused form shows every broken field next to its input and keeps what was typed.
async fn a_refused_form_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.token().await;
    let long_name = "N".repeat(300);
    let page = browser
        .post(
            "/console/extensions",
            &[("csrf", &token), ("number", "12ab"), ("name", &long_name)],
        )
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.body);
    for field in ["number", "name"] {
        assert!(
            page.body
                .contains(&format!("id=\"{field}-error\" data-field=\"{field}\"")),
            "no error next to {field}: {}",
            page.body
        );
    }
    assert!(
        page.body.contains("value=\"12ab\""),
        "the typed number is kept"
    );
    assert!(page.body.contains(&long_name), "the typed name is kept");
}

/// A branch administrator sees the extensions of their branch only, as the API scopes
/// them; another branch's extension is no page.
async fn a_branch_admin_sees_only_their_branch(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.branch_admin_a).await;
    let list = browser.get("/console/extensions").await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(list.body.contains("Front desk A"), "{}", list.body);
    assert!(!list.body.contains("Annex A"), "{}", list.body);
    assert!(list.body.contains("A main"), "the header names the branch");
    let other = browser
        .get(&format!("/console/extensions/{}", w.ext_a2))
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
    let token = browser.token().await;
    let page = browser
        .post(
            &format!("/console/extensions/{}/delete", w.ext_a2),
            &[("csrf", &token)],
        )
        .await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    let admin = app.login(w.admin_a).await;
    app.get(&format!("/v2/admin/extensions/{}", w.ext_a2), &admin)
        .await
        .expect(200);
}

/// A platform admin picks the tenant to act on; every page names it; a partner admin
/// cannot pick another partner's tenant.
async fn platform_and_partner_admins_pick_a_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    assert_eq!(
        browser.sign_in(w.platform).await.location(),
        "/console/tenants"
    );
    assert_eq!(
        browser.get("/console/extensions").await.location(),
        "/console/tenants"
    );
    let picker = browser.get("/console/tenants").await;
    assert!(picker.body.contains("Tenant A") && picker.body.contains("Tenant B"));
    let token = picker.token();
    let tenant = w.tenant_b.to_string();
    let picked = browser
        .post(
            "/console/tenants",
            &[("csrf", &token), ("tenantId", &tenant)],
        )
        .await;
    assert_eq!(picked.location(), "/console/");
    let list = browser.get("/console/extensions").await;
    assert!(list.body.contains("Front desk B") && !list.body.contains("Front desk A"));
    assert!(
        list.body
            .contains("data-testid=\"acting-tenant\">Tenant B<"),
        "{}",
        list.body
    );

    let mut partner = Browser::new(&app.base);
    partner.sign_in(w.partner_admin_a).await;
    let token = partner.get("/console/tenants").await.token();
    let refused = partner
        .post(
            "/console/tenants",
            &[("csrf", &token), ("tenantId", &tenant)],
        )
        .await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
    assert_eq!(
        partner.get("/console/").await.location(),
        "/console/tenants"
    );
}

/// Sign-out ends the API session: the cookie of before no longer opens a page.
async fn sign_out_ends_the_api_session(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let before = browser.cookie.clone();
    let token = browser.token().await;
    let out = browser.post("/console/sign-out", &[("csrf", &token)]).await;
    assert_eq!(out.location(), "/console/sign-in?done=signed-out");
    assert_eq!(
        browser.get("/console/").await.location(),
        "/console/sign-in"
    );
    browser.cookie = before;
    assert_eq!(
        browser.get("/console/").await.location(),
        "/console/sign-in"
    );
}

/// Wrong passwords in the sign-in form lock the account as at the API, and the page
/// says so; a wrong password before that says only that.
async fn a_locked_account_says_so(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    let mut last = None;
    for _ in 0..6 {
        let token = browser.get("/console/sign-in").await.token();
        last = Some(
            browser
                .post(
                    "/console/sign-in",
                    &[
                        ("csrf", &token),
                        ("email", w.admin_a),
                        ("password", "not it"),
                    ],
                )
                .await,
        );
        let page = last.as_ref().unwrap();
        if page.status == StatusCode::UNAUTHORIZED {
            assert!(
                page.body
                    .contains("The e-mail address or password is wrong.")
            );
        }
    }
    let page = last.unwrap();
    assert_eq!(page.status, StatusCode::TOO_MANY_REQUESTS, "{}", page.body);
    assert!(page.body.contains("locked"), "{}", page.body);
    assert!(
        page.body.contains("value=\"admin-a@example.com\""),
        "the e-mail is kept"
    );
}

/// An expired access token is refreshed through the API on the next page (a new cookie);
/// a session sealed by one process opens on another process of the deployment.
async fn the_session_refreshes_and_travels_between_processes(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let sibling = app.start_sibling().await;
    let mut there = Browser::new(&sibling.base);
    there.cookie = browser.cookie.clone();
    let page = there.get("/console/extensions").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.location());
    assert!(page.body.contains("Front desk A"));
    // A form token made by one process is accepted by the other.
    let token = browser.token().await;
    let made = there
        .post(
            "/console/extensions",
            &[("csrf", &token), ("number", "777"), ("name", "Sibling")],
        )
        .await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.body);
}

/// With access tokens of 31 seconds (kept 1 s by the console), the next page refreshes
/// them through the API: a new cookie, the page shown.
async fn an_expired_access_token_is_refreshed(app: TestApp) {
    let w = World::seed(&app).await;
    let short = app
        .start_sibling_with(|config| config.token_ttl_seconds = 31)
        .await;
    let mut browser = Browser::new(&short.base);
    assert_eq!(browser.sign_in(w.admin_a).await.location(), "/console/");
    let first = browser.cookie.clone();
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let page = browser.get("/console/extensions").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.location());
    assert!(
        page.headers.contains_key(SET_COOKIE),
        "a refreshed session is set"
    );
    assert_ne!(browser.cookie, first);
    assert_eq!(browser.get("/console/").await.status, StatusCode::OK);
}

/// The refresh race across processes: two `serve` processes on one database (access
/// tokens of 31 seconds, kept 1 s by the console); once the token has expired, requests of
/// the session sent at once to both — a browser behind a load balancer without sticky
/// sessions — are all answered with the same new session, and the session goes on (the
/// API never saw its refresh token spent twice).
async fn refreshes_are_shared_between_processes(app: TestApp) {
    let w = World::seed(&app).await;
    let one = app
        .start_sibling_with(|config| config.token_ttl_seconds = 31)
        .await;
    let two = app
        .start_sibling_with(|config| config.token_ttl_seconds = 31)
        .await;
    let mut browser = Browser::new(&one.base);
    assert_eq!(browser.sign_in(w.admin_a).await.location(), "/console/");
    let first = browser.cookie.clone();
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;

    let mut tabs: Vec<Browser> = (0..8)
        .map(|n| {
            let mut tab = Browser::new(if n % 2 == 0 { &one.base } else { &two.base });
            tab.cookie = first.clone();
            tab
        })
        .collect();
    let pages =
        futures::future::join_all(tabs.iter_mut().map(|tab| tab.get("/console/extensions"))).await;
    for page in &pages {
        assert_eq!(page.status, StatusCode::OK, "{}", page.location());
    }
    let cookies: std::collections::BTreeSet<Option<String>> =
        tabs.iter().map(|tab| tab.cookie.clone()).collect();
    assert!(!cookies.contains(&first), "each was refreshed");
    for tab in &mut tabs {
        assert_eq!(
            tab.get("/console/extensions").await.status,
            StatusCode::OK,
            "the session goes on"
        );
    }
    assert_eq!(
        app.count("audit_log", Some(("action", "token.reuse")))
            .await,
        0,
        "the API saw no refresh token spent twice"
    );
    // The old cookie past the window is spent at the API again, which takes it for a
    // stolen token and ends the session (the defence the window holds off for 10 s).
    tokio::time::sleep(std::time::Duration::from_millis(10_100)).await;
    let mut replay = Browser::new(&two.base);
    replay.cookie = first;
    assert_eq!(
        replay.get("/console/extensions").await.location(),
        "/console/sign-in"
    );
    assert_eq!(
        app.count("audit_log", Some(("action", "token.reuse")))
            .await,
        1
    );
}

on_both_backends!(
    the_root_leads_to_the_console,
    every_page_carries_the_security_headers,
    the_cookie_is_sealed_and_strict,
    a_forged_form_changes_nothing,
    a_post_without_a_session_goes_to_sign_in,
    the_audit_page_shows_a_change_before_and_after,
    a_refused_form_shows_every_broken_field,
    a_branch_admin_sees_only_their_branch,
    platform_and_partner_admins_pick_a_tenant,
    sign_out_ends_the_api_session,
    a_locked_account_says_so,
    the_session_refreshes_and_travels_between_processes,
    an_expired_access_token_is_refreshed,
    refreshes_are_shared_between_processes,
);
