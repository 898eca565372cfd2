//! The OpenAPI 3.1 document: generated from the handlers' annotations, with the bearer
//! scheme declared and the contract's error responses added to every operation here,
//! once, rather than repeated on each handler.

use utoipa::openapi::path::{HttpMethod, Operation};
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr};
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};

use crate::error::ErrorBody;

mod enum_names;

/// The document's fixed parts; paths come from the router.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Switchboard",
        version = "2.0.0",
        description = "HTTP administration API of a multi-tenant business telephony platform.\n\n\
            Log in with `POST /v2/authentication/` and send the `accessToken` as \
            `Authorization: Bearer <token>`. Every error answers the Error body with `code` \
            equal to the HTTP status; `validationErrors` lists every broken rule as \
            `'<location>/<path>' <message>`."
    ),
    modifiers(&Contract),
    // Schemas referenced only from hand-written request schemas, which utoipa cannot
    // collect on its own.
    components(schemas(
        switchboard_domain::records::business_hour::HoursInterval,
        switchboard_domain::records::media_file::LanguageText,
        switchboard_domain::records::user::UserAccount,
        switchboard_domain::records::user::UserSettings,
    )),
    tags(
        (name = "authentication", description = "Log in, refresh, log out"),
        (name = "account", description = "The caller's own password and multi-factor login"),
        (name = "audit-log", description = "Who did what, when, from where"),
        (name = "partners", description = "Resellers owning tenants"),
        (name = "tenants", description = "Customer businesses"),
        (name = "branches", description = "Sites of a tenant"),
        (name = "users", description = "Accounts"),
        (name = "extensions", description = "Dialable endpoints of a tenant"),
        (name = "announcements", description = "Media played on IVRs between two dates"),
        (name = "business-hours", description = "Opening hours, holidays, and whether a business is open now"),
        (name = "ivrs", description = "Voice menus"),
        (name = "media-files", description = "Uploaded audio and its signed download links"),
        (name = "paging-groups", description = "Numbers that page a set of extensions at once"),
        (name = "messaging", description = "Media for MMS messages"),
        (name = "phone-numbers", description = "Numbers provisioned to tenants, and their settings"),
        (name = "webhooks", description = "Where a tenant's events are posted"),
        (name = "calls", description = "Every call the engine reported, recorded or not"),
        (name = "devices", description = "Desk phones, their provisioning credentials and the device-model catalogue"),
        (name = "button-layouts", description = "What each key of a desk-phone model does"),
        (name = "provisioning", description = "The configuration files desk phones fetch, with their own credentials"),
        (name = "text-to-speech", description = "The speech engine's voices and languages, and prompts rendered as telephony audio"),
        (name = "reporting", description = "Call reports with transcripts, and call aggregates per day or hour"),
        (name = "conduits", description = "A tenant's external connections: SIP trunks, carriers, integrations"),
        (name = "music-on-hold", description = "Playlists of media files played to callers on hold, and the tenant's default"),
        (name = "call-campaigns", description = "Outbound calling lists, their records, opt-out (do-not-call) lists and call outcomes"),
        (name = "operations", description = "Health probes"),
        (name = "queues", description = "Call queues: callers wait with hold music until a member answers"),
        (name = "pharmacy", description = "Pharmacy agents: a pharmacy's refill line, and the refill requests it took"),
        (name = "destinations", description = "The routing graph: where calls to each number can go"),
        (name = "faxes", description = "Faxes received and sent, their documents, attempts and retries"),
        (name = "engine", description = "The telephony engine's work queue: outbound faxes, texts and campaign calls claimed under a lease, and their results"),
    )
)]
pub struct ApiDoc;

/// The name of the bearer security scheme.
pub const BEARER: &str = "bearerAuth";

/// The name of the scheme desk phones fetch their files with: HTTP Basic with the
/// device's provisioning credentials.
pub const PROVISIONING: &str = "provisioningBasic";

/// The other scheme desk phones fetch their files with: HTTP Digest (RFC 7616, SHA-256 or
/// MD5, `qop=auth`) with the same credentials.
pub const PROVISIONING_DIGEST: &str = "provisioningDigest";

/// The error statuses every operation may answer, with what they mean.
const COMMON_ERRORS: &[(&str, &str)] = &[
    (
        "400",
        "A path, query or body value breaks a rule, or the request cannot be read",
    ),
    ("401", "Missing, invalid or expired access token"),
    ("403", "The permission or the tenant scope refuses"),
    ("404", "No such record in the caller's scope"),
    ("429", "Too many requests; see Retry-After"),
    (
        "500",
        "An internal error; the details are logged with the request id",
    ),
];

/// Further statuses of operations that take a body.
const BODY_ERRORS: &[(&str, &str)] = &[
    (
        "409",
        "A unique value is already taken, or the record is in use",
    ),
    ("413", "The body is larger than allowed"),
    ("415", "The body is not application/json"),
];

/// Adds the security scheme and the error responses.
struct Contract;

fn error_response(description: &str) -> RefOr<utoipa::openapi::response::Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name(ErrorBody::name())))
                .build(),
        )
        .into()
}

fn add_errors(operation: &mut Operation, errors: &[(&str, &str)]) {
    for (status, description) in errors {
        operation
            .responses
            .responses
            .entry((*status).to_owned())
            .or_insert_with(|| error_response(description));
    }
}

impl Modify for Contract {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
        components.add_security_scheme(
            PROVISIONING,
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Basic).build()),
        );
        components.add_security_scheme(
            PROVISIONING_DIGEST,
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Digest).build()),
        );
        components
            .schemas
            .insert(ErrorBody::name().into_owned(), ErrorBody::schema());
        openapi.security = Some(vec![SecurityRequirement::new(BEARER, Vec::<String>::new())]);
    }
}

/// Adds the error responses to every operation of the finished document (the router's
/// paths are only known after it is built) and gives every enum a name.
pub fn finish(openapi: &mut utoipa::openapi::OpenApi) {
    add_error_responses(openapi);
    declare_json_parts(openapi);
    enum_names::name_enums(openapi);
}

/// Gives each multipart form the media type of its JSON parts (`encoding`): a part that
/// is an object, or text declaring `contentMediaType: application/json`, is sent as JSON,
/// which generators need to be told to encode it so.
fn declare_json_parts(openapi: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::encoding::EncodingBuilder;
    use utoipa::openapi::schema::Schema;

    let Some(components) = openapi.components.as_ref() else {
        return;
    };
    let json_parts = |form: &str| -> Vec<String> {
        let Some(RefOr::T(Schema::Object(form))) = components.schemas.get(form) else {
            return Vec::new();
        };
        form.properties
            .iter()
            .filter(|(_, part)| match part {
                RefOr::Ref(_) => true,
                RefOr::T(Schema::Object(object)) => object.content_media_type == "application/json",
                RefOr::T(_) => false,
            })
            .map(|(name, _)| name.clone())
            .collect()
    };
    let mut forms = Vec::new();
    for (path, item) in &openapi.paths.paths {
        for (method, operation) in [
            ("post", item.post.as_ref()),
            ("patch", item.patch.as_ref()),
            ("put", item.put.as_ref()),
        ] {
            let Some(RefOr::T(body)) = operation.and_then(|o| o.request_body.as_ref()) else {
                continue;
            };
            if let Some(RefOr::T(content)) = body.content.get("multipart/form-data")
                && let Some(RefOr::Ref(form)) = content.schema.as_ref()
            {
                let name = form
                    .ref_location
                    .trim_start_matches("#/components/schemas/")
                    .to_owned();
                forms.push((path.clone(), method, json_parts(&name)));
            }
        }
    }
    for (path, method, parts) in forms {
        let Some(item) = openapi.paths.paths.get_mut(&path) else {
            continue;
        };
        let operation = match method {
            "post" => item.post.as_mut(),
            "patch" => item.patch.as_mut(),
            _ => item.put.as_mut(),
        };
        let Some(RefOr::T(body)) = operation.and_then(|o| o.request_body.as_mut()) else {
            continue;
        };
        if let Some(RefOr::T(content)) = body.content.get_mut("multipart/form-data") {
            for part in parts {
                content.encoding.insert(
                    part,
                    EncodingBuilder::new()
                        .content_type(Some("application/json"))
                        .build(),
                );
            }
        }
    }
}

fn add_error_responses(openapi: &mut utoipa::openapi::OpenApi) {
    for (path, item) in openapi.paths.paths.iter_mut() {
        let public = path == "/healthz" || path == "/readyz";
        for (method, operation) in [
            (HttpMethod::Get, item.get.as_mut()),
            (HttpMethod::Post, item.post.as_mut()),
            (HttpMethod::Patch, item.patch.as_mut()),
            (HttpMethod::Put, item.put.as_mut()),
            (HttpMethod::Delete, item.delete.as_mut()),
        ] {
            let Some(operation) = operation else { continue };
            if public {
                continue;
            }
            add_errors(operation, COMMON_ERRORS);
            if matches!(
                method,
                HttpMethod::Post | HttpMethod::Patch | HttpMethod::Put
            ) {
                add_errors(operation, BODY_ERRORS);
            }
            if method == HttpMethod::Delete {
                add_errors(operation, &BODY_ERRORS[..1]);
            }
        }
    }
}
