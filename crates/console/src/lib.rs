//! Switchboard's administrator console: server-rendered pages at `/console/`, served by
//! `switchboard serve` beside the API, on the same listener and through the same
//! middleware. It is another face of the API's use cases, not a second implementation:
//! every read and every change is a request to the API, in process ([`inprocess`]),
//! carrying the signed-in person's own token and the browser's address, so the API's
//! permissions, tenant and branch scope, validation, lockout, rate limits, audit trail and
//! webhooks apply exactly as they do to any client.
//!
//! Pages work without JavaScript (a form posts, the answer redirects, the browser gets
//! the next page); every form carries a token bound to the session and every POST from
//! another origin is refused ([`visit`]); every answer carries a strict
//! Content-Security-Policy ([`security_headers`]).

pub mod inprocess;
pub mod session;

mod assets;
mod chrome;
mod flow;
mod pages;
mod refresh;
mod shared;
mod visit;

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{Redirect, Response};
use axum::routing::{get, post};
use switchboard_db::Db;

use crate::inprocess::InProcess;
use crate::pages::{
    announcements, button_layouts, calls, campaign_records, campaigns, faxes, ivrs, media_files,
    music_on_hold, numbers, opt_outs, paging_groups, people, phones, queues,
};
pub use crate::session::Keys;
use crate::shared::Console;
pub use crate::shared::PrincipalOf;

/// The path templates of the console's requests, for the access log and the metrics
/// (every page under one: the console's pages are not the API's document).
pub const TEMPLATES: &[&str] = &["/", "/console", "/console/", "/console/{*page}"];

/// What the console needs of the service it is a face of, handed over by the binary that
/// serves the two together. The console does not depend on the API's crate, so the two
/// compile side by side (issue 33): it reaches the API through these alone.
#[derive(Clone)]
pub struct Service {
    /// The API, called in process.
    pub api: InProcess,
    /// Who an access token stands for.
    pub principal_of: PrincipalOf,
    /// The database, where every process of a deployment shares the refreshes of tokens.
    pub db: Db,
    /// The service's public URL (`SWITCHBOARD_PUBLIC_URL`): the provisioning links shown,
    /// and whether the browser's connection is TLS (the session cookie is then `Secure`).
    pub public_url: String,
    /// The proxies whose forwarding headers are believed (`SWITCHBOARD_TRUSTED_PROXIES`),
    /// as the API believes them: whether a proxy says the browser spoke TLS to it.
    pub trusted_proxies: Arc<[ipnet::IpNet]>,
}

/// The console's routes with their state.
pub fn router(service: Service, keys: Keys) -> Router {
    let keys = Arc::new(keys);
    let console = Console {
        api: service.api,
        principal_of: service.principal_of,
        keys: keys.clone(),
        public_url: service.public_url.into(),
        trusted_proxies: service.trusted_proxies,
        refreshes: Arc::new(refresh::Refreshes::shared(service.db, keys)),
    };
    Router::new()
        .route("/", get(to_console))
        .route("/console", get(to_console))
        .route("/console/", get(pages::dashboard::show))
        .route(
            "/console/sign-in",
            get(pages::account::sign_in_form).post(pages::account::sign_in),
        )
        .route("/console/sign-out", post(pages::account::sign_out))
        .route(
            "/console/password",
            get(pages::account::password_form).post(pages::account::change_password),
        )
        .route(
            "/console/mfa",
            get(pages::account::mfa_form).post(pages::account::enrol_mfa),
        )
        .route("/console/mfa/confirm", post(pages::account::confirm_mfa))
        .route(
            "/console/tenants",
            get(pages::tenants::list).post(pages::tenants::pick),
        )
        .route(
            "/console/extensions",
            get(pages::extensions::list).post(pages::extensions::create),
        )
        .route("/console/extensions/new", get(pages::extensions::new_form))
        .route(
            "/console/extensions/{id}",
            get(pages::extensions::edit_form).post(pages::extensions::update),
        )
        .route(
            "/console/extensions/{id}/delete",
            post(pages::extensions::delete),
        )
        .route("/console/phone-numbers/{id}/flow", get(pages::flow::show))
        .route(
            "/console/phone-numbers/{id}/flow.svg",
            get(pages::flow::picture),
        )
        .route("/console/business-hours", get(pages::business_hours::list))
        .route(
            "/console/business-hours/{id}",
            get(pages::business_hours::show).post(pages::business_hours::update),
        )
        .route(
            "/console/business-hours/{id}/holidays",
            post(pages::business_hours::add_holiday),
        )
        .route(
            "/console/business-hours/{id}/holidays/{holiday}/delete",
            post(pages::business_hours::remove_holiday),
        )
        .route("/console/voicemail", get(pages::voicemail::list))
        .route("/console/audit", get(pages::audit::list))
        .route("/console/voicemail/{id}", post(pages::voicemail::mark))
        .route(
            "/console/voicemail/{id}/audio",
            get(pages::voicemail::audio),
        )
        .route("/console/assets/{name}", get(chrome::serve))
        .merge(area_routes())
        .route(
            "/console/{*page}",
            get(chrome::not_found).post(chrome::not_found),
        )
        .layer(axum::middleware::map_response(security_headers))
        .with_state(console)
}

/// The routes of the areas whose page module brings its own (`routes()`, one line each
/// here), merged into the console's router.
pub(crate) fn area_routes() -> Router<Console> {
    Router::new()
        .merge(ivrs::routes())
        .merge(queues::routes())
        .merge(paging_groups::routes())
        .merge(music_on_hold::routes())
        .merge(announcements::routes())
        .merge(media_files::routes())
        .merge(campaigns::routes())
        .merge(campaign_records::routes())
        .merge(opt_outs::routes())
        .merge(faxes::routes())
        .merge(people::routes())
        .merge(calls::routes())
        .merge(phones::routes())
        .merge(button_layouts::routes())
        .merge(numbers::routes())
}

/// `/` and `/console`: the console's home.
pub(crate) async fn to_console() -> Redirect {
    Redirect::permanent("/console/")
}

/// The Content-Security-Policy of every console answer: nothing but the console's own
/// files, no inline script or style, no framing, forms posting to the console only.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'";

/// Adds the security headers to every console answer; pages (not the hashed assets) are
/// never stored by caches, since they show a person's data.
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    // A handler may set a narrower policy of its own (the call-flow picture's).
    headers
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use switchboard_api::paths::{PathTemplates, RouteTemplate};

    use super::TEMPLATES;

    /// Console requests are logged and counted under a template, never their raw path
    /// (ids in paths would make a metric series per record).
    #[test]
    fn console_paths_are_named_by_their_templates() {
        let templates = PathTemplates::new(std::iter::empty(), TEMPLATES);
        let cases = [
            ("/", "/"),
            ("/console", "/console"),
            ("/console/", "/console/"),
            ("/console/extensions/17", "/console/{*page}"),
            (
                "/console/assets/console.0123456789abcdef.css",
                "/console/{*page}",
            ),
        ];
        for (path, template) in cases {
            let request = axum::http::Request::get(path)
                .body(Body::empty())
                .expect("a request");
            let request = templates.resolve(request);
            assert_eq!(
                request
                    .extensions()
                    .get::<RouteTemplate>()
                    .map(RouteTemplate::as_str),
                Some(template),
                "{path}"
            );
        }
    }
}
