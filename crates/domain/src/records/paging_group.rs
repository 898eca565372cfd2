//! Paging groups: a number that rings an ordered set of extensions' speakers at once.

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use super::destination::{DestType, Destination, DestinationInput, Destinations};
use crate::declare::{Body, ID_OR_NONE, Listed, OptionalRef};
use crate::ids::{MediaFileId, PagingGroupId, TenantId};
use crate::list::TenantFilter;
use crate::validation::{Among, ID, PlanNumber, among, plan_number};

/// A paging group number: at least 2 dial characters (the spec's minimum), unique in
/// its tenant.
pub const NUMBER: PlanNumber = plan_number(2, 32);

/// The media file played before paging.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct IntroMessageMediaFile {
    /// The media file's id.
    pub id: Option<MediaFileId>,
    /// The media file's name.
    pub name: Option<String>,
}

/// A paging group, exactly the spec's fields.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[list(sort(id, name, number, tenant_id), filter = TenantFilter, table = "g", search("name", "number"))]
pub struct PagingGroup {
    /// The group's id.
    pub id: PagingGroupId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// The number dialled to page the group.
    pub number: Option<String>,
    /// Its name.
    pub name: String,
    /// `on` to skip members already on a call.
    #[schema(value_type = Option<String>)]
    pub check_in_use: Option<CheckInUse>,
    /// `yes` when members may answer back.
    #[schema(value_type = Option<String>)]
    pub two_way_audio: Option<TwoWayAudio>,
    /// The media file played first; 0 for none.
    pub intro_message_media_file_id: OptionalRef<MediaFileId>,
    /// The intro media file, resolved; null for none.
    pub intro_message_media_file: Option<IntroMessageMediaFile>,
    /// The member extensions, by `order`.
    pub routing_destinations: Vec<Destination>,
}

/// The members of a paging group: extensions of the same tenant, in order.
pub const MEMBERS: Destinations = Destinations {
    name: "MemberBody",
    allowed: &[DestType::Ext],
    min: 0,
};
crate::closed_set! {
    /// A paging group's `checkInUse`: only `on` (absent or null is off).
    pub enum CheckInUse {
        /// Members already on a call are skipped.
        On = "on",
    }
}
const CHECK_IN_USE: Among<CheckInUse> = among();
crate::closed_set! {
    /// A paging group's `twoWayAudio`: only `yes` (absent or null is one-way).
    pub enum TwoWayAudio {
        /// Members may talk back.
        Yes = "yes",
    }
}
const TWO_WAY_AUDIO: Among<TwoWayAudio> = among();

/// The body of `POST /v2/admin/paging-groups/`.
// `UpdatePagingGroup`, the body of `PATCH`, is generated from it (docs/decisions.md,
// "Declared once"): the create reads `checkInUse` and `twoWayAudio` without `null`, a
// change takes `null` to clear them.
#[derive(Clone, Debug, Body)]
#[body(update(
    name = UpdatePagingGroup,
    doc = "The body of `PATCH /v2/admin/paging-groups/{id}`: fields not sent stay unchanged; a\nsent `routingDestinations` replaces the members.",
))]
pub struct CreatePagingGroup {
    /// The owning tenant (required by the spec).
    #[field(rule = ID, create_only)]
    pub tenant_id: TenantId,
    /// The group's number: at least 2 dial characters, unique in the tenant.
    #[field(rule = NUMBER, column)]
    pub number: String,
    /// Its name.
    #[field(rule = NAME, column)]
    pub name: String,
    /// Only `on`; in a change, `null` clears it.
    #[field(rule = CHECK_IN_USE, column, null_clears)]
    pub check_in_use: Option<CheckInUse>,
    /// Only `yes`; in a change, `null` clears it.
    #[field(rule = TWO_WAY_AUDIO, column, null_clears)]
    pub two_way_audio: Option<TwoWayAudio>,
    /// A media file of the same tenant; 0 (the default) for none.
    #[field(rule = ID_OR_NONE, default = OptionalRef(None), column = "intro_media_file_id")]
    pub intro_message_media_file_id: OptionalRef<MediaFileId>,
    /// The member extensions, in order (in a change, they replace the current ones).
    #[field(rule = MEMBERS, default = Vec::new())]
    pub routing_destinations: Vec<DestinationInput>,
}
