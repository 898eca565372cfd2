//! What every page shows around its content (the stylesheet's link, the signed-in person,
//! the navigation) and the answers that are no page: the error page, the 404, the
//! stylesheet itself. Below the pages and the visit, which both frame their answers with it.

use askama::Template;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use switchboard_domain::{Permission, Principal};

use crate::session::Person;

/// A console path that is no page: an HTML 404 (never the API's JSON one).
pub(crate) async fn not_found() -> Response {
    error_page(
        Chrome::new(None, None, String::new(), ""),
        StatusCode::NOT_FOUND,
        "Not found",
        "There is no such page in the console.",
    )
}

/// What every page shows around its content.
pub(crate) struct Chrome {
    /// The stylesheet's path.
    pub css: String,
    /// The signed-in person, when someone is.
    pub person: Option<PersonView>,
    /// This session's form token, for every form's hidden field.
    pub token: String,
    /// The navigation by group, this page's entry marked.
    pub nav: Vec<NavGroup>,
}

/// A group of the navigation (call handling, phones …).
pub(crate) struct NavGroup {
    /// Its heading.
    pub label: &'static str,
    /// Its entries.
    pub items: Vec<NavItem>,
}

/// One entry of the navigation.
pub(crate) struct NavItem {
    /// Its path.
    pub path: &'static str,
    /// Its label.
    pub label: &'static str,
    /// Whether it is the page shown (`aria-current`).
    pub current: bool,
}

/// The signed-in person as the header shows them.
pub(crate) struct PersonView {
    /// Their e-mail address.
    pub email: String,
    /// Their role, in words.
    pub role: &'static str,
    /// The tenant acted on, when there is one.
    pub tenant: Option<String>,
    /// Their branch, for a branch administrator.
    pub branch: Option<String>,
}

/// An entry of the navigation: path, label, key (the key a page passes to
/// [`Chrome::new`]), and the permission the API asks of whoever reads what its page
/// lists (`None`: every signed-in person opens it).
type Entry = (&'static str, &'static str, &'static str, Option<Permission>);

/// The navigation, grouped as an administrator thinks of the system: what happens to a
/// call, the sounds it hears, the phones, calling out, looking back, the people. Each
/// entry names the permission of the API list its page reads first, so the side bar
/// offers only pages the person may open, decided by the API's own rule
/// ([`Principal::can`]).
const NAVIGATION: &[(&str, &[Entry])] = &[
    ("Overview", &[("/console/", "Today", "today", None)]),
    (
        "Call handling",
        &[
            (
                "/console/phone-numbers",
                "Phone numbers",
                "numbers",
                Some(Permission::PhoneNumbersRead),
            ),
            (
                "/console/business-hours",
                "Business hours",
                "hours",
                Some(Permission::BusinessHoursRead),
            ),
            (
                "/console/ivrs",
                "IVR menus",
                "ivrs",
                Some(Permission::IvrsRead),
            ),
            (
                "/console/queues",
                "Queues",
                "queues",
                Some(Permission::QueuesRead),
            ),
            (
                "/console/paging-groups",
                "Paging groups",
                "paging",
                Some(Permission::PagingGroupsRead),
            ),
            (
                "/console/extensions",
                "Extensions",
                "extensions",
                Some(Permission::ExtensionsRead),
            ),
        ],
    ),
    (
        "Sounds",
        &[
            (
                "/console/media-files",
                "Media files",
                "media",
                Some(Permission::MediaFilesRead),
            ),
            (
                "/console/music-on-hold",
                "Music on hold",
                "music",
                Some(Permission::MusicOnHoldRead),
            ),
            (
                "/console/announcements",
                "Announcements",
                "announcements",
                Some(Permission::AnnouncementsRead),
            ),
        ],
    ),
    (
        "Phones",
        &[
            (
                "/console/phones",
                "Phones",
                "phones",
                Some(Permission::DevicesRead),
            ),
            (
                "/console/button-layouts",
                "Button layouts",
                "layouts",
                Some(Permission::DevicesRead),
            ),
        ],
    ),
    (
        "Outbound",
        &[
            (
                "/console/campaigns",
                "Campaigns",
                "campaigns",
                Some(Permission::CampaignsRead),
            ),
            (
                "/console/opt-outs",
                "Opt-outs",
                "opt-outs",
                Some(Permission::CampaignsRead),
            ),
            (
                "/console/faxes",
                "Faxes",
                "faxes",
                Some(Permission::FaxesRead),
            ),
        ],
    ),
    (
        "Look back",
        &[
            (
                "/console/calls",
                "Calls",
                "calls",
                Some(Permission::CallRecordingsRead),
            ),
            (
                "/console/voicemail",
                "Voicemail",
                "voicemail",
                Some(Permission::VoicemailRead),
            ),
            (
                "/console/audit",
                "Audit trail",
                "audit",
                Some(Permission::AuditLogRead),
            ),
        ],
    ),
    (
        "People",
        &[
            (
                "/console/people",
                "People",
                "people",
                Some(Permission::UsersRead),
            ),
            ("/console/password", "Account", "account", None),
        ],
    ),
];

/// The entry only platform and partner admins have (in the last group).
const TENANTS: Entry = (
    "/console/tenants",
    "Tenants",
    "tenants",
    Some(Permission::TenantsRead),
);

impl Chrome {
    /// The furniture for `person` (none on the sign-in page), the navigation offering
    /// what `principal` (the API's view of them, when the page asked for it) may open.
    pub fn new(
        person: Option<&Person>,
        principal: Option<&Principal>,
        token: String,
        current: &'static str,
    ) -> Chrome {
        Chrome {
            css: crate::assets::css_path(),
            person: person.map(|p| PersonView {
                email: p.email.clone(),
                role: role_name(p.role),
                tenant: p.acting.as_ref().map(|t| t.name.clone()),
                branch: p.branch_name.clone(),
            }),
            token,
            nav: person
                .map(|p| navigation(p.picks_tenant(), principal, current))
                .unwrap_or_default(),
        }
    }
}

/// The navigation, `current`'s entry marked: the entries whose permission `principal`
/// holds (with none known, only those every signed-in person opens), with the tenant
/// picker when the person picks the tenant they act on. A group left empty is left out.
fn navigation(picks_tenant: bool, principal: Option<&Principal>, current: &str) -> Vec<NavGroup> {
    let may_open = |needs: Option<Permission>| {
        needs.is_none_or(|permission| principal.is_some_and(|p| p.can(permission)))
    };
    let last = NAVIGATION.len() - 1;
    NAVIGATION
        .iter()
        .enumerate()
        .map(|(at, (label, entries))| NavGroup {
            label,
            items: entries
                .iter()
                .copied()
                .chain((at == last && picks_tenant).then_some(TENANTS))
                .filter(|(_, _, _, needs)| may_open(*needs))
                .map(|(path, label, key, _)| NavItem {
                    path,
                    label,
                    current: key == current,
                })
                .collect(),
        })
        .filter(|group| !group.items.is_empty())
        .collect()
}

/// A role's name.
pub(crate) fn role_name(role: i64) -> &'static str {
    match role {
        1 => "platform administrator",
        2 => "partner administrator",
        3 => "tenant administrator",
        4 => "branch administrator",
        _ => "user",
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    chrome: Chrome,
    title: &'a str,
    message: &'a str,
}

/// A page saying why the asked one is not shown.
pub(crate) fn error_page(
    chrome: Chrome,
    status: StatusCode,
    title: &str,
    message: &str,
) -> Response {
    let page = ErrorPage {
        chrome,
        title,
        message,
    };
    match page.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(_) => (status, title.to_owned()).into_response(),
    }
}

/// `GET /console/assets/{name}`: the stylesheet under its current name, 404 otherwise.
pub(crate) async fn serve(Path(name): Path<String>) -> Response {
    if name != *crate::assets::CSS_NAME {
        return not_found().await;
    }
    let mut response = crate::assets::CSS.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/css; charset=utf-8"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    response
}
