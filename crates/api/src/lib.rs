//! Switchboard's HTTP layer: the axum router with its extractors, the one error type, the
//! OpenAPI document generated from the handlers, and the server loop.

pub mod audit;
pub mod auth;
pub mod client;
pub mod csv_io;
pub mod docs;
pub mod error;
pub mod extract;
pub mod limits;
pub mod listing;
pub mod media_type;
pub mod metrics;
pub mod middleware;
pub mod openapi;
pub mod paths;
pub mod process;
pub mod repeats;
pub mod routes;
pub mod scrape;
pub mod services;
pub mod state;

// The middleware at the paths it had before it moved into `middleware/`, so callers keep them.
pub use crate::middleware::{admission, drain, guard, linger, rate_limit, stall};

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use utoipa_swagger_ui::SwaggerUi;

pub use crate::drain::Stopping;
use crate::error::ApiError;
use crate::middleware::request_id::accept_request_id;
pub use crate::middleware::request_id::{REQUEST_ID, TRACEPARENT};
use crate::routes::{
    announcements, audit_log, authentication, branches, business_hours, button_layouts,
    call_campaigns, call_outcomes, call_recordings, calls, conduits, custom_voices, destinations,
    devices, engine_jobs, extensions, faxes, ingest, ivrs, me, media_files, messaging,
    music_on_hold, objects, operations, opt_outs, paging_groups, partners, pharmacy_agents,
    phone_numbers, provisioning, queues, reporting, tenants, text_to_speech, texts, users,
    voicemail, webhook_deliveries, webhooks,
};
pub use crate::state::{AppState, Settings, Shared};

/// The routes and the OpenAPI document they make.
pub fn router() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let (router, mut openapi) = OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .routes(routes!(operations::healthz))
        .routes(routes!(operations::readyz))
        .routes(routes!(authentication::login))
        .routes(routes!(authentication::refresh))
        .routes(routes!(authentication::logout))
        .routes(routes!(me::change_password))
        .routes(routes!(me::enrol_totp))
        .routes(routes!(me::confirm_totp))
        .routes(routes!(me::disable_totp))
        .routes(routes!(audit_log::list))
        .routes(routes!(audit_log::list_unversioned))
        .routes(routes!(partners::list, partners::create))
        .routes(routes!(partners::get, partners::update, partners::delete))
        .routes(routes!(tenants::list, tenants::create))
        .routes(routes!(tenants::get, tenants::update, tenants::delete))
        .routes(routes!(branches::list, branches::create))
        .routes(routes!(branches::get, branches::update, branches::delete))
        .routes(routes!(users::list, users::create))
        .routes(routes!(users::get, users::update, users::delete))
        .routes(routes!(extensions::list, extensions::create))
        .routes(routes!(
            extensions::get,
            extensions::update,
            extensions::delete
        ))
        .merge(
            // Uploads carry audio: a larger body limit than JSON requests, for these routes only.
            OpenApiRouter::new()
                .routes(routes!(media_files::list, media_files::create))
                .routes(routes!(
                    media_files::list_unversioned,
                    media_files::create_unversioned
                ))
                .layer(DefaultBodyLimit::max(
                    media_files::MAX_MEDIA_BYTES + 256 * 1024,
                )),
        )
        .routes(routes!(
            media_files::get,
            media_files::update,
            media_files::delete
        ))
        .routes(routes!(
            media_files::get_admin_unversioned,
            media_files::update_unversioned,
            media_files::delete_unversioned
        ))
        .routes(routes!(media_files::get_unversioned))
        .routes(routes!(media_files::get_v2))
        .merge(
            // Several files of up to 3 MB each; the per-file limit is enforced as they stream.
            OpenApiRouter::new()
                .routes(routes!(messaging::upload_media))
                .layer(DefaultBodyLimit::max(
                    messaging::MAX_FILES * (messaging::MAX_FILE_BYTES + 64 * 1024),
                )),
        )
        .routes(routes!(messaging::list_media))
        .routes(routes!(messaging::delete_media))
        .routes(routes!(objects::download))
        .routes(routes!(phone_numbers::list, phone_numbers::create))
        .routes(routes!(
            phone_numbers::get,
            phone_numbers::update,
            phone_numbers::delete
        ))
        .routes(routes!(voicemail::list))
        .routes(routes!(
            voicemail::get,
            voicemail::update,
            voicemail::delete
        ))
        .routes(routes!(call_recordings::list))
        .routes(routes!(call_recordings::get, call_recordings::delete))
        .routes(routes!(calls::list))
        .routes(routes!(calls::list_unversioned))
        .routes(routes!(calls::get))
        .routes(routes!(calls::get_unversioned))
        .merge(
            // The engine pushes audio: recordings up to their own limit, for these routes only.
            OpenApiRouter::new()
                .routes(routes!(ingest::voicemail))
                .routes(routes!(ingest::call))
                .layer(DefaultBodyLimit::max(
                    switchboard_domain::records::call::MAX_RECORDING_BYTES + 1024 * 1024,
                )),
        )
        .routes(routes!(ingest::sms))
        .merge(
            // A received fax may carry its document: up to its own limit.
            OpenApiRouter::new()
                .routes(routes!(ingest::fax))
                .layer(DefaultBodyLimit::max(
                    switchboard_domain::records::fax::MAX_DOCUMENT_BYTES + 256 * 1024,
                )),
        )
        .routes(routes!(engine_jobs::claim))
        .routes(routes!(engine_jobs::result))
        .routes(routes!(texts::list, texts::send))
        .routes(routes!(texts::get))
        .merge(
            // A fax carries its document: up to its own limit, for this route only.
            OpenApiRouter::new()
                .routes(routes!(faxes::list, faxes::send))
                .layer(DefaultBodyLimit::max(
                    switchboard_domain::records::fax::MAX_DOCUMENT_BYTES + 256 * 1024,
                )),
        )
        .routes(routes!(faxes::get, faxes::delete))
        .routes(routes!(faxes::get_policy, faxes::set_policy))
        .routes(routes!(faxes::retry))
        .routes(routes!(faxes::retry_unversioned))
        .routes(routes!(faxes::retry_post))
        .routes(routes!(webhooks::list_types))
        .routes(routes!(webhooks::list, webhooks::create))
        .routes(routes!(webhooks::get, webhooks::update, webhooks::delete))
        .routes(routes!(webhooks::signing_secret))
        .routes(routes!(webhooks::rotate_secret))
        .routes(routes!(webhook_deliveries::list))
        .routes(routes!(webhook_deliveries::test))
        .routes(routes!(webhook_deliveries::replay))
        .routes(routes!(announcements::list, announcements::create))
        .routes(routes!(
            announcements::get,
            announcements::update,
            announcements::delete
        ))
        .routes(routes!(business_hours::list, business_hours::create))
        .routes(routes!(
            business_hours::get,
            business_hours::update,
            business_hours::delete
        ))
        .routes(routes!(business_hours::status))
        .routes(routes!(
            business_hours::list_holidays,
            business_hours::add_holiday
        ))
        .routes(routes!(
            business_hours::get_holiday,
            business_hours::update_holiday,
            business_hours::delete_holiday
        ))
        .routes(routes!(ivrs::list, ivrs::create))
        .routes(routes!(ivrs::get, ivrs::update, ivrs::delete))
        .routes(routes!(paging_groups::list, paging_groups::create))
        .routes(routes!(
            paging_groups::get,
            paging_groups::update,
            paging_groups::delete
        ))
        .routes(routes!(devices::models))
        .routes(routes!(devices::list, devices::create))
        .routes(routes!(devices::list_unversioned))
        .routes(routes!(devices::search))
        .routes(routes!(devices::search_v2))
        .routes(routes!(devices::get, devices::update, devices::delete))
        .routes(routes!(devices::rotate_credentials))
        .routes(routes!(devices::registration))
        .routes(routes!(button_layouts::list, button_layouts::create))
        .routes(routes!(
            button_layouts::get,
            button_layouts::update,
            button_layouts::delete
        ))
        .routes(routes!(provisioning::fetch))
        .routes(routes!(text_to_speech::voices))
        .routes(routes!(text_to_speech::voices_unversioned))
        .routes(routes!(text_to_speech::languages))
        .routes(routes!(text_to_speech::languages_unversioned))
        .routes(routes!(text_to_speech::tts))
        .routes(routes!(text_to_speech::tts_unversioned))
        .routes(routes!(custom_voices::list, custom_voices::create))
        .routes(routes!(
            custom_voices::get,
            custom_voices::update,
            custom_voices::delete
        ))
        .routes(routes!(queues::list, queues::create))
        .routes(routes!(queues::get, queues::update, queues::delete))
        .routes(routes!(pharmacy_agents::list, pharmacy_agents::create))
        .routes(routes!(
            pharmacy_agents::list_unversioned,
            pharmacy_agents::create_unversioned
        ))
        .routes(routes!(
            pharmacy_agents::get,
            pharmacy_agents::update,
            pharmacy_agents::delete
        ))
        .routes(routes!(
            pharmacy_agents::get_unversioned,
            pharmacy_agents::update_unversioned,
            pharmacy_agents::delete_unversioned
        ))
        .routes(routes!(pharmacy_agents::refill_requests))
        .routes(routes!(pharmacy_agents::refill_requests_unversioned))
        .routes(routes!(pharmacy_agents::ingest_refill_request))
        .routes(routes!(destinations::graph))
        .routes(routes!(destinations::graph_unversioned))
        .routes(routes!(phone_numbers::search))
        .routes(routes!(phone_numbers::search_unversioned))
        .routes(routes!(reporting::list))
        .routes(routes!(reporting::list_unversioned))
        .routes(routes!(reporting::get))
        .routes(routes!(reporting::get_unversioned))
        .routes(routes!(reporting::ingest_transcript))
        .routes(routes!(conduits::tenant_list))
        .routes(routes!(conduits::tenant_list_v2))
        .routes(routes!(conduits::list, conduits::create))
        .routes(routes!(conduits::get, conduits::update, conduits::delete))
        .routes(routes!(conduits::ingest_check))
        .routes(routes!(music_on_hold::list, music_on_hold::create))
        .routes(routes!(
            music_on_hold::list_unversioned,
            music_on_hold::create_unversioned
        ))
        .routes(routes!(
            music_on_hold::get,
            music_on_hold::update,
            music_on_hold::delete
        ))
        .routes(routes!(
            music_on_hold::get_unversioned,
            music_on_hold::update_unversioned,
            music_on_hold::delete_unversioned
        ))
        .routes(routes!(music_on_hold::playlist))
        .routes(routes!(call_campaigns::list, call_campaigns::create))
        .routes(routes!(
            call_campaigns::list_unversioned,
            call_campaigns::create_unversioned
        ))
        .routes(routes!(
            call_campaigns::get,
            call_campaigns::update,
            call_campaigns::delete
        ))
        .routes(routes!(
            call_campaigns::list_records,
            call_campaigns::create_record
        ))
        .routes(routes!(call_campaigns::import_records))
        .routes(routes!(call_campaigns::export_records))
        .routes(routes!(
            call_campaigns::get_record,
            call_campaigns::update_record,
            call_campaigns::delete_record
        ))
        .routes(routes!(opt_outs::list, opt_outs::create))
        .routes(routes!(opt_outs::import))
        .routes(routes!(opt_outs::export))
        .routes(routes!(opt_outs::get, opt_outs::update, opt_outs::delete))
        .routes(routes!(call_outcomes::list, call_outcomes::create))
        .routes(routes!(
            call_outcomes::get,
            call_outcomes::update,
            call_outcomes::delete
        ))
        .split_for_parts();
    openapi::finish(&mut openapi);
    (router, openapi)
}

/// The OpenAPI document alone (for `switchboard openapi` and the snapshot test).
pub fn openapi() -> utoipa::openapi::OpenApi {
    router().1
}

async fn no_route() -> Response {
    ApiError::no_route().into_response()
}

async fn method_not_allowed() -> Response {
    ApiError::method_not_allowed().into_response()
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::internal("a handler panicked").into_response()
}

/// Routes served beside the API's on its listener and through the same middleware (request
/// id, access log, metrics, drain, body limit) — the console: already given their state,
/// with the path templates their requests are logged and counted under. The API does not
/// know what they are; the binary composes them.
#[derive(Clone)]
pub struct Mounted {
    /// The routes (none of them an API path).
    pub router: Router,
    /// The templates of their paths, for the access log and the metrics.
    pub templates: &'static [&'static str],
}

/// The API alone as one service (see [`app_with`]): what in-process callers of the API use.
pub fn app(
    state: AppState,
) -> impl tower::Service<
    Request,
    Response = Response,
    Error = std::convert::Infallible,
    Future = impl Future<Output = Result<Response, std::convert::Infallible>> + Send,
> + Clone
+ Send
+ 'static {
    app_with(state, None)
}

/// The API as the service calls itself, in process (the console, the demo's seeding):
/// [`app`] with every answer's media links the service's own
/// ([`routes::objects::with_service_links`]), boxed for callers that hold it without
/// naming its type.
pub fn in_process(
    state: AppState,
) -> tower::util::BoxCloneSyncService<Request, Response, std::convert::Infallible> {
    tower::util::BoxCloneSyncService::new(tower::ServiceExt::map_future(
        app(state),
        routes::objects::with_service_links,
    ))
}

/// The whole application as one service: routes, docs, fallbacks and middleware, with
/// collection paths answering with and without their trailing slash (interface §5), and
/// the `mounted` routes beside them.
///
/// The middleware wraps the router once, not each of its routes: a layer given to
/// `Router::layer` is boxed around every route, and each request then clones that chain
/// of boxes layer by layer (a quarter of the CPU time of an authenticated GET, issue 17).
/// The route template a request reaches is looked up before routing
/// ([`paths::PathTemplates`]), for the log and the metrics.
pub fn app_with(
    state: AppState,
    mounted: Option<Mounted>,
) -> impl tower::Service<
    Request,
    Response = Response,
    Error = std::convert::Infallible,
    Future = impl Future<Output = Result<Response, std::convert::Infallible>> + Send,
> + Clone
+ Send
+ 'static {
    let (router, openapi) = router();
    let mut others = vec!["/v2/openapi.json", "/docs", "/docs/", "/docs/{*rest}"];
    if let Some(mounted) = &mounted {
        others.extend_from_slice(mounted.templates);
    }
    let templates = Arc::new(paths::PathTemplates::new(
        openapi.paths.paths.keys(),
        &others,
    ));
    let body_limit = state.settings.body_limit;
    let router = router
        .merge(SwaggerUi::new("/docs").url("/v2/openapi.json", openapi))
        .fallback(no_route)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state.clone());
    // Merged after the fallbacks: the mounted routes answer their own paths (their
    // unknown pages included), never the API's JSON 404.
    let router = match mounted {
        Some(mounted) => router.merge(mounted.router),
        None => router,
    };
    // Outermost first.
    tower::ServiceBuilder::new()
        .map_request(move |request: Request| templates.resolve(accept_request_id(request)))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        // A panic in the admission's own code still answers (the inner layer catches the
        // handlers', whose answers the admission logs and counts).
        .map_response(IntoResponse::into_response)
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(axum::middleware::from_fn_with_state(
            state,
            admission::admit,
        ))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(DefaultBodyLimit::max(body_limit))
        .service(router)
}

/// Serves `state` on `listener` until `shutdown` completes, then stops as it says: drains
/// (see [`drain`]), closes the listener and lets in-flight requests finish. The process's
/// background workers run alongside and stop with it.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = Stopping> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, state, None, shutdown).await
}

/// [`serve`] with the `mounted` routes beside the API's (see [`Mounted`]).
pub async fn serve_with(
    listener: TcpListener,
    state: AppState,
    mounted: Option<Mounted>,
    shutdown: impl Future<Output = Stopping> + Send + 'static,
) -> std::io::Result<()> {
    let (stop_worker, worker_stop) = tokio::sync::watch::channel(false);
    // Metrics on their own listener, bound before serving so a bad address fails the start.
    let metrics = match state.settings.metrics_listen {
        Some(address) => Some(tokio::spawn(scrape::serve(
            TcpListener::bind(address).await?,
            state.clone(),
            worker_stop.clone(),
        ))),
        None => None,
    };
    let worker = switchboard_jobs::spawn(state.jobs.clone(), worker_stop);
    let served = serve_http(listener, state, mounted, shutdown).await;
    let _ = stop_worker.send(true);
    if let Some(metrics) = metrics {
        let _ = metrics.await;
    }
    if let Err(error) = worker.await {
        tracing::error!(%error, "the background workers failed");
    }
    served
}

async fn serve_http(
    listener: TcpListener,
    state: AppState,
    mounted: Option<Mounted>,
    shutdown: impl Future<Output = Stopping> + Send + 'static,
) -> std::io::Result<()> {
    let write_stall = state.settings.write_stall;
    let draining = state.draining.clone();
    let service = app_with(state, mounted);
    let (stopped_tx, stopped_rx) = tokio::sync::oneshot::channel::<Duration>();
    // `tap_io` only for its connect-info impl: handlers see the client's SocketAddr.
    let listener =
        axum::serve::ListenerExt::tap_io(stall::StallListener::new(listener, write_stall), |_| {});
    let server = axum::serve(
        listener,
        axum::ServiceExt::into_make_service_with_connect_info::<std::net::SocketAddr>(service),
    )
    .with_graceful_shutdown(async move {
        let stopping = shutdown.await;
        draining.begin();
        if !stopping.drain.is_zero() {
            tracing::info!(
                seconds = stopping.drain.as_secs_f64(),
                "draining: /readyz answers 503 while requests are still served"
            );
            tokio::time::sleep(stopping.drain).await;
        }
        tracing::info!("closing the listener; letting in-flight requests finish");
        let _ = stopped_tx.send(stopping.grace);
    });
    let server = tokio::spawn(server.into_future());
    tokio::pin!(server);
    let grace = tokio::select! {
        result = &mut server => return result.map_err(std::io::Error::other)?,
        grace = stopped_rx => grace.unwrap_or_default(),
    };
    match tokio::time::timeout(grace, &mut server).await {
        Ok(result) => result.map_err(std::io::Error::other)?,
        Err(_) => {
            tracing::warn!("in-flight requests did not finish within the grace period");
            Ok(())
        }
    }
}
