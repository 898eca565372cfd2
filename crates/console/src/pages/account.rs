//! Signing in and out, the password, and two-step sign-in (TOTP) enrolment: each a call
//! of the API's own authentication and account endpoints, so the lockout, the audit
//! trail and the sessions are the API's.

use askama::Template;
use axum::Form;
use axum::extract::Query;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use super::{Chrome, Fields, Problems, TOKEN_FIELD, check_post, field, html, html_as};
use crate::session::{Acting, Person, Session};
use crate::visit::{PageError, PageResult, Visit, access_until, expect_success};

#[derive(Template)]
#[template(path = "sign_in.html")]
struct SignIn {
    chrome: Chrome,
    email: String,
    ask_code: bool,
    problems: Problems,
    note: Option<&'static str>,
}

/// `GET /console/sign-in`.
pub(crate) async fn sign_in_form(visit: Visit, Query(query): Query<Fields>) -> Response {
    if visit.person().is_some() {
        return visit.finish(Ok(Redirect::to("/console/").into_response()));
    }
    let note = match field(&query, "done") {
        "signed-out" => Some("You are signed out."),
        "password" => Some("Your password is changed. Sign in with the new one."),
        _ => None,
    };
    let page = SignIn {
        chrome: visit.chrome(""),
        email: String::new(),
        ask_code: false,
        problems: Problems::default(),
        note,
    };
    let rendered = html(&page);
    visit.finish(rendered)
}

/// `POST /console/sign-in`: the API's login, with the browser's address (its lockout
/// counts this browser, not the service).
pub(crate) async fn sign_in(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = sign_in_page(&mut visit, &fields).await;
    visit.finish(page)
}

async fn sign_in_page(visit: &mut Visit, fields: &Fields) -> PageResult {
    visit.check_form(fields.get(TOKEN_FIELD).map(String::as_str))?;
    let (email, password, otp) = (
        field(fields, "email").trim(),
        field(fields, "password"),
        field(fields, "otp").trim(),
    );
    let mut body = json!({"email": email, "password": password});
    if !otp.is_empty() {
        body["otp"] = json!(otp);
    }
    let answer = visit
        .send(Method::POST, "/v2/authentication/", None, Some(body))
        .await?;
    if answer.status.is_success() {
        let login = answer.json();
        let person = person_of(visit, &login).await?;
        let next = if person.acting.is_none() {
            "/console/tenants"
        } else {
            "/console/"
        };
        visit.set_session(Session::signed_in(person));
        return Ok(Redirect::to(next).into_response());
    }
    let refusal = answer.json();
    let needs_code = refusal["name"] == "MfaRequired";
    let problems = match answer.status {
        StatusCode::BAD_REQUEST => Problems::of_refusal(&refusal, &["email", "password", "otp"]),
        StatusCode::UNAUTHORIZED if needs_code && otp.is_empty() => Problems {
            general: vec![
                "Your account uses two-step sign-in: enter the code from your authenticator app."
                    .to_owned(),
            ],
            ..Problems::default()
        },
        StatusCode::UNAUTHORIZED if needs_code => Problems {
            general: vec!["The code is wrong, expired or already used.".to_owned()],
            ..Problems::default()
        },
        StatusCode::UNAUTHORIZED => Problems {
            general: vec!["The e-mail address or password is wrong.".to_owned()],
            ..Problems::default()
        },
        // A lock or a rate limit: the API's own words say until when.
        _ => Problems::of_refusal(&refusal, &[]),
    };
    let page = SignIn {
        chrome: visit.chrome(""),
        email: email.to_owned(),
        ask_code: needs_code,
        problems,
        note: None,
    };
    html_as(&page, answer.status)
}

/// The signed-in person of a login answer; a tenant-scoped person acts on their own
/// tenant (its name read with their new token).
async fn person_of(visit: &Visit, login: &Value) -> Result<Person, PageError> {
    let user = &login["user"];
    let (Some(access), Some(refresh)) = (
        login["accessToken"].as_str(),
        login["refreshToken"].as_str(),
    ) else {
        return Err(anyhow::anyhow!("the login answered no tokens").into());
    };
    let tenant_id = user["tenantId"].as_i64().unwrap_or(0);
    let acting = if tenant_id > 0 {
        let answer = visit
            .send(
                Method::GET,
                &format!("/v2/admin/tenants/{tenant_id}"),
                Some(access),
                None,
            )
            .await?;
        let name = answer.json()["name"]
            .as_str()
            .map_or_else(|| format!("tenant {tenant_id}"), str::to_owned);
        Some(Acting {
            id: tenant_id,
            name,
        })
    } else {
        None
    };
    Ok(Person {
        access_token: access.to_owned(),
        access_until: access_until(login),
        refresh_token: refresh.to_owned(),
        email: user["email"].as_str().unwrap_or_default().to_owned(),
        role: user["userRole"].as_i64().unwrap_or(5),
        tenant_id,
        branch_name: user["branchName"]
            .as_str()
            .filter(|name| !name.is_empty() && user["userRole"] == 4)
            .map(str::to_owned),
        mfa_enabled: user["mfaEnabled"].as_i64() == Some(1),
        acting,
    })
}

/// `POST /console/sign-out`: ends the API session (every token of it stops working).
pub(crate) async fn sign_out(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = sign_out_page(&mut visit, &fields).await;
    visit.finish(page)
}

async fn sign_out_page(visit: &mut Visit, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    if let Some(person) = visit.person().cloned() {
        let answer = visit
            .send(
                Method::POST,
                "/v2/authentication/logout",
                None,
                Some(json!({"refreshToken": person.refresh_token})),
            )
            .await?;
        expect_success(answer)?;
    }
    visit.set_session(Session::anonymous());
    Ok(Redirect::to("/console/sign-in?done=signed-out").into_response())
}

#[derive(Template)]
#[template(path = "password.html")]
struct PasswordPage {
    chrome: Chrome,
    problems: Problems,
    mfa_enabled: bool,
}

/// `GET /console/password`: the account page (password, two-step sign-in).
pub(crate) async fn password_form(mut visit: Visit) -> Response {
    let page = async {
        let person = visit.signed_in().await?;
        html(&PasswordPage {
            chrome: visit.chrome("account"),
            problems: Problems::default(),
            mfa_enabled: person.mfa_enabled,
        })
    }
    .await;
    visit.finish(page)
}

/// `POST /console/password`: the API's password change, which ends every session of
/// the account, this one included: the person signs in again.
pub(crate) async fn change_password(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = change_password_page(&mut visit, &fields).await;
    visit.finish(page)
}

async fn change_password_page(visit: &mut Visit, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    let body = json!({
        "oldPassword": field(fields, "oldPassword"),
        "newPassword": field(fields, "newPassword"),
    });
    let answer = visit
        .call(Method::PATCH, "/v2/users/me/password", Some(body))
        .await?;
    if answer.status.is_success() {
        visit.set_session(Session::anonymous());
        return Ok(Redirect::to("/console/sign-in?done=password").into_response());
    }
    let person = visit.signed_in().await?;
    let page = PasswordPage {
        chrome: visit.chrome("account"),
        problems: Problems::of_refusal(&answer.json(), &["oldPassword", "newPassword"]),
        mfa_enabled: person.mfa_enabled,
    };
    html_as(&page, answer.status)
}

#[derive(Template)]
#[template(path = "mfa.html")]
struct MfaPage {
    chrome: Chrome,
    problems: Problems,
    mfa_enabled: bool,
    /// The enrolment under way: the QR code (an SVG data URI) and the secret in base32.
    enrolment: Option<(String, String)>,
    /// The recovery codes, once enrolment is confirmed.
    recovery_codes: Vec<String>,
}

impl MfaPage {
    fn new(chrome: Chrome, mfa_enabled: bool) -> MfaPage {
        MfaPage {
            chrome,
            problems: Problems::default(),
            mfa_enabled,
            enrolment: None,
            recovery_codes: Vec::new(),
        }
    }
}

/// `GET /console/mfa`: two-step sign-in, on or off, and the form that starts enrolment.
pub(crate) async fn mfa_form(mut visit: Visit) -> Response {
    let page = async {
        let person = visit.signed_in().await?;
        html(&MfaPage::new(visit.chrome("account"), person.mfa_enabled))
    }
    .await;
    visit.finish(page)
}

/// `POST /console/mfa`: starts enrolment (confirmed with the password) and shows the
/// secret as a QR code drawn here, with the form that confirms it.
pub(crate) async fn enrol_mfa(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = enrol_mfa_page(&mut visit, &fields).await;
    visit.finish(page)
}

async fn enrol_mfa_page(visit: &mut Visit, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    let body = json!({"password": field(fields, "password")});
    let answer = visit
        .call(Method::POST, "/v2/users/me/mfa/totp", Some(body))
        .await?;
    let person = visit.signed_in().await?;
    let mut page = MfaPage::new(visit.chrome("account"), person.mfa_enabled);
    if !answer.status.is_success() {
        page.problems = Problems::of_refusal(&answer.json(), &["password"]);
        return html_as(&page, answer.status);
    }
    let enrolment = answer.json();
    let uri = enrolment["otpauthUri"].as_str().unwrap_or_default();
    let secret = enrolment["secret"].as_str().unwrap_or_default();
    page.enrolment = Some((qr_data_uri(uri)?, secret.to_owned()));
    html(&page)
}

/// `POST /console/mfa/confirm`: confirms enrolment with a code from the app and shows
/// the recovery codes, once.
pub(crate) async fn confirm_mfa(mut visit: Visit, Form(fields): Form<Fields>) -> Response {
    let page = confirm_mfa_page(&mut visit, &fields).await;
    visit.finish(page)
}

async fn confirm_mfa_page(visit: &mut Visit, fields: &Fields) -> PageResult {
    check_post(visit, fields)?;
    let body = json!({"code": field(fields, "code").trim()});
    let answer = visit
        .call(Method::POST, "/v2/users/me/mfa/totp/confirm", Some(body))
        .await?;
    let mut person = visit.signed_in().await?;
    if !answer.status.is_success() {
        let mut page = MfaPage::new(visit.chrome("account"), person.mfa_enabled);
        page.problems = Problems::of_refusal(&answer.json(), &[]);
        return html_as(&page, answer.status);
    }
    person.mfa_enabled = true;
    visit.set_person(person);
    let mut page = MfaPage::new(visit.chrome("account"), true);
    page.recovery_codes = answer.json()["recoveryCodes"]
        .as_array()
        .map(|codes| {
            codes
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    html(&page)
}

/// The QR code of `text` as an SVG image in a data URI (the page's policy allows `data:`
/// images, and no script draws it).
fn qr_data_uri(text: &str) -> anyhow::Result<String> {
    use qrcode::render::svg;
    let code = qrcode::QrCode::new(text.as_bytes())?;
    let image = code
        .render::<svg::Color<'_>>()
        .min_dimensions(240, 240)
        .dark_color(svg::Color("#000000"))
        .light_color(svg::Color("#ffffff"))
        .build();
    Ok(format!(
        "data:image/svg+xml;base64,{}",
        STANDARD.encode(image.as_bytes())
    ))
}
