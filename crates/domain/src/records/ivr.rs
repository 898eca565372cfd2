//! IVRs: the voice menus callers are routed to and announcements attach to — a greeting,
//! one destination per key pressed, and where a caller goes who presses nothing or a key
//! the menu does not know.

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::NAME;
use super::destination::{ANY_DESTINATION, Destination, DestinationInput, OneDestination};
use crate::declare::{Body, ID_OR_NONE, Listed, OptionalRef, Stored};
use crate::ids::{AnnouncementId, IvrId, MediaFileId, TenantId};
use crate::list::TenantFilter;
use crate::validation::{
    Among, FLAG, ID, Int, ListOf, Nested, ObjectReader, PlanNumber, among, int, list_of, nested,
    plan_number,
};

/// An IVR number: 1 to 32 dial characters, unique among the tenant's IVRs.
pub const NUMBER: PlanNumber = plan_number(1, 32);

crate::closed_set! {
    /// The keys a caller may press in a menu, in menu order.
    pub enum MenuKey {
        /// `0`.
        Zero = "0",
        /// `1`.
        One = "1",
        /// `2`.
        Two = "2",
        /// `3`.
        Three = "3",
        /// `4`.
        Four = "4",
        /// `5`.
        Five = "5",
        /// `6`.
        Six = "6",
        /// `7`.
        Seven = "7",
        /// `8`.
        Eight = "8",
        /// `9`.
        Nine = "9",
        /// `*`.
        Star = "*",
        /// `#`.
        Hash = "#",
    }
}

impl MenuKey {
    /// The position of the key written `digit` in menu order (`0`–`9`, `*`, `#`), `None`
    /// for a text that names no key.
    pub fn rank(digit: &str) -> Option<usize> {
        MenuKey::ALL.iter().position(|k| k.as_str() == digit)
    }
}

/// One menu option as answered: the key and where it sends the caller.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct IvrOption {
    /// The key pressed: `0`–`9`, `*` or `#`.
    pub digit: String,
    /// Where the key sends the caller, resolved.
    pub destination: Destination,
}

/// An IVR with its menu.
#[derive(Clone, Debug, Serialize, ToSchema, Listed, Stored)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[stored(table = "ivrs", alias = "i")]
#[list(sort(id, name, number, tenant_id), filter = TenantFilter, table = "i", search("name", "number"))]
pub struct Ivr {
    /// The IVR's id.
    pub id: IvrId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its name.
    pub name: String,
    /// The number dialled to reach it, unique in the tenant's dial plan.
    pub number: String,
    /// The media file greeting callers; 0 for none.
    pub greeting_media_file_id: OptionalRef<MediaFileId>,
    /// The announcement greeting callers instead; 0 for none.
    pub greeting_announcement_id: OptionalRef<AnnouncementId>,
    /// The menu: one destination per key, by key order (`0`–`9`, `*`, `#`).
    #[stored(skip)]
    pub options: Vec<IvrOption>,
    /// Seconds to wait for a key before the timeout path.
    pub timeout_seconds: i64,
    /// Where a caller who presses nothing goes; null: the call ends.
    #[stored(skip)]
    pub timeout_destination: Option<Destination>,
    /// Unknown keys tolerated before the invalid path.
    pub invalid_retries: i64,
    /// Where a caller who keeps pressing unknown keys goes; null: the call ends.
    #[stored(skip)]
    pub invalid_destination: Option<Destination>,
    /// 1: callers may dial an extension's number directly from the menu.
    pub direct_dial: i64,
}

/// The key of an option.
const DIGIT: Among<MenuKey> = among();
/// Seconds to wait for a key.
const TIMEOUT_SECONDS: Int = int(1, 600);
/// Unknown keys tolerated.
const INVALID_RETRIES: Int = int(0, 10);
/// One destination of a menu path: any type.
pub const PATH: OneDestination = OneDestination(ANY_DESTINATION);
/// The options of a menu: at most one per key.
const OPTIONS: ListOf<Nested<IvrOptionInput>> = list_of(nested::<IvrOptionInput>(), 0, 12);

/// A menu option as sent: `{digit, destination}`.
#[derive(Clone, Debug, Body)]
pub struct IvrOptionInput {
    /// The key: `0`–`9`, `*` or `#`, each once in a menu.
    #[field(rule = DIGIT)]
    pub digit: MenuKey,
    /// Where the key sends the caller: a destination of the same tenant.
    #[field(rule = PATH)]
    pub destination: DestinationInput,
}

/// Refuses a key used twice and a greeting that is both a media file and an
/// announcement (`greeting`: whether each names one): rules across fields no schema
/// states.
fn check_menu(
    options: Option<&[IvrOptionInput]>,
    greeting: (bool, bool),
    r: &mut ObjectReader<'_>,
) -> bool {
    let before = r.problem_count();
    let mut seen = std::collections::HashMap::new();
    for (index, option) in options.unwrap_or_default().iter().enumerate() {
        if let Some(first) = seen.insert(option.digit.as_str(), index) {
            r.problem_at(
                &format!("options/{index}/digit"),
                format!("is already used by options/{first}"),
            );
        }
    }
    if greeting.0 && greeting.1 {
        r.problem(
            "greetingAnnouncementId",
            "cannot be set with greetingMediaFileId: the greeting is one or the other",
        );
    }
    r.problem_count() == before
}

/// The body of `POST /v2/admin/ivrs/`: a name and a number, and the menu (all optional).
// `UpdateIvr`, the body of `PATCH`, is generated from it; a field with `column` is stored
// in the IVR's row, the menu in the destination lists (docs/decisions.md, "Declared once").
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant),
    check = CreateIvr::check,
    example = CreateIvr::example_body,
    update(
        name = UpdateIvr,
        doc = "The body of `PATCH /v2/admin/ivrs/{id}`: fields not sent stay unchanged; a sent\n`options` replaces the whole menu.",
        check = UpdateIvr::check,
        example = UpdateIvr::example_body,
    )
)]
pub struct CreateIvr {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Its name.
    #[field(rule = NAME, column)]
    pub name: String,
    /// Its number.
    #[field(rule = NUMBER, column)]
    pub number: String,
    /// A media file of the tenant greeting callers; 0 (the default) for none.
    #[field(rule = ID_OR_NONE, default = OptionalRef(None), column)]
    pub greeting_media_file_id: OptionalRef<MediaFileId>,
    /// An announcement of the tenant greeting callers; 0 (the default) for none.
    #[field(rule = ID_OR_NONE, default = OptionalRef(None), column)]
    pub greeting_announcement_id: OptionalRef<AnnouncementId>,
    /// The menu: `{digit, destination}`, each key once.
    #[field(rule = OPTIONS, default = Vec::new())]
    pub options: Vec<IvrOptionInput>,
    /// Seconds to wait for a key (default 10).
    #[field(rule = TIMEOUT_SECONDS, default = 10, column)]
    pub timeout_seconds: i64,
    /// Where a caller who presses nothing goes (default: the call ends).
    #[field(rule = PATH, nullable)]
    pub timeout_destination: Option<DestinationInput>,
    /// Unknown keys tolerated before the invalid path (default 3).
    #[field(rule = INVALID_RETRIES, default = 3, column)]
    pub invalid_retries: i64,
    /// Where a caller who keeps pressing unknown keys goes (default: the call ends).
    #[field(rule = PATH, nullable)]
    pub invalid_destination: Option<DestinationInput>,
    /// 1: callers may dial extensions directly from the menu; 0 (the default) not.
    #[field(rule = FLAG, default = 0, column)]
    pub direct_dial: i64,
}

impl CreateIvr {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        check_menu(
            Some(&self.options),
            (
                self.greeting_media_file_id.get().is_some(),
                self.greeting_announcement_id.get().is_some(),
            ),
            r,
        )
    }

    fn example_body() -> Value {
        json!({"name": "Main menu", "number": "500", "greetingMediaFileId": 0,
               "options": [{"digit": "1", "destination": {"id": 1, "destType": "EXT"}}],
               "timeoutSeconds": 10, "timeoutDestination": {"id": 0, "destType": "HANGUP"},
               "invalidRetries": 3, "directDial": 0})
    }
}

impl UpdateIvr {
    fn example_body() -> Value {
        json!({"options": [{"digit": "0", "destination": {"id": 1, "destType": "IVR"}}],
               "timeoutDestination": null, "greetingAnnouncementId": 1})
    }

    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        check_menu(
            self.options.as_deref(),
            (
                self.greeting_media_file_id
                    .is_some_and(|g| g.get().is_some()),
                self.greeting_announcement_id
                    .is_some_and(|g| g.get().is_some()),
            ),
            r,
        )
    }
}
