//! Paging groups: a number that rings an ordered set of extensions' speakers at once.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::NAME;
use super::destination::{Destination, DestinationInput, MemberBody, read_list};
use crate::ids::{PagingGroupId, TenantId};
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{
    Chars, FromBody, FromQuery, ID, ObjectReader, OneOf, Problems, QueryReader, dial, int,
};

/// A paging group number: at least 2 dial characters (the spec's minimum), unique in
/// its tenant.
pub const NUMBER: Chars = dial(2, 32);

/// The media file played before paging.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct IntroMessageMediaFile {
    /// The media file's id.
    pub id: Option<i64>,
    /// The media file's name.
    pub name: Option<String>,
}

/// A paging group, exactly the spec's fields.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
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
    pub check_in_use: Option<String>,
    /// `yes` when members may answer back.
    pub two_way_audio: Option<String>,
    /// The media file played first; 0 for none.
    pub intro_message_media_file_id: i64,
    /// The intro media file, resolved; null for none.
    pub intro_message_media_file: Option<IntroMessageMediaFile>,
    /// The member extensions, by `order`.
    pub routing_destinations: Vec<Destination>,
}

/// The body of `POST /v2/admin/paging-groups/`.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct CreatePagingGroup {
    /// The owning tenant (required by the spec).
    #[schema(value_type = i64, minimum = 1)]
    pub tenant_id: TenantId,
    /// The group's number: at least 2 dial characters, unique in the tenant.
    #[schema(min_length = 2, max_length = 32, pattern = "^[0-9*#+]+$")]
    pub number: String,
    /// Its name.
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
    /// Only `on`.
    #[schema(nullable = false, pattern = "^on$")]
    pub check_in_use: Option<String>,
    /// Only `yes`.
    #[schema(nullable = false, pattern = "^yes$")]
    pub two_way_audio: Option<String>,
    /// A media file of the same tenant; 0 (the default) for none.
    #[schema(nullable = false, minimum = 0)]
    pub intro_message_media_file_id: Option<i64>,
    /// The member extensions, in order.
    #[schema(value_type = Option<Vec<MemberBody>>, nullable = false)]
    pub routing_destinations: Vec<DestinationInput>,
}

const MEMBER_TYPES: &[&str] = &["EXT"];
const CHECK_IN_USE: OneOf = OneOf(&["on"]);
const TWO_WAY_AUDIO: OneOf = OneOf(&["yes"]);

impl FromBody for CreatePagingGroup {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.required("tenantId", &ID),
                r.required("number", &NUMBER),
                r.required("name", &NAME),
                r.optional("checkInUse", &CHECK_IN_USE),
                r.optional("twoWayAudio", &TWO_WAY_AUDIO),
                r.optional("introMessageMediaFileId", &int(0, i64::MAX)),
                read_list(&mut r, "routingDestinations", MEMBER_TYPES),
            )
        });
        problems.finish(|| {
            let (tenant_id, number, name, check_in_use, two_way_audio, intro, members) = fields?;
            Some(CreatePagingGroup {
                tenant_id: TenantId(tenant_id?),
                number: number?,
                name: name?,
                check_in_use: check_in_use.ok()?,
                two_way_audio: two_way_audio.ok()?,
                intro_message_media_file_id: intro.ok()?,
                routing_destinations: members.ok()?.unwrap_or_default(),
            })
        })
    }
}

/// The body of `PATCH /v2/admin/paging-groups/{id}`: fields not sent stay unchanged; a
/// sent `routingDestinations` replaces the members.
#[derive(Clone, Debug, Default, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct UpdatePagingGroup {
    /// The group's number.
    #[schema(
        nullable = false,
        min_length = 2,
        max_length = 32,
        pattern = "^[0-9*#+]+$"
    )]
    pub number: Option<String>,
    /// Its name.
    #[schema(nullable = false, min_length = 1, max_length = 255)]
    pub name: Option<String>,
    /// `on`, or `null` to clear.
    #[schema(value_type = Option<String>, pattern = "^on$")]
    pub check_in_use: Option<Option<String>>,
    /// `yes`, or `null` to clear.
    #[schema(value_type = Option<String>, pattern = "^yes$")]
    pub two_way_audio: Option<Option<String>>,
    /// A media file of the same tenant; 0 for none.
    #[schema(nullable = false, minimum = 0)]
    pub intro_message_media_file_id: Option<i64>,
    /// The member extensions, in order (replaces the current ones).
    #[schema(value_type = Option<Vec<MemberBody>>, nullable = false)]
    pub routing_destinations: Option<Vec<DestinationInput>>,
}

impl FromBody for UpdatePagingGroup {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.optional("number", &NUMBER),
                r.optional("name", &NAME),
                r.nullable("checkInUse", &CHECK_IN_USE),
                r.nullable("twoWayAudio", &TWO_WAY_AUDIO),
                r.optional("introMessageMediaFileId", &int(0, i64::MAX)),
                read_list(&mut r, "routingDestinations", MEMBER_TYPES),
            )
        });
        problems.finish(|| {
            let (number, name, check_in_use, two_way_audio, intro, members) = fields?;
            Some(UpdatePagingGroup {
                number: number.ok()?,
                name: name.ok()?,
                check_in_use: check_in_use.ok()?,
                two_way_audio: two_way_audio.ok()?,
                intro_message_media_file_id: intro.ok()?,
                routing_destinations: members.ok()?,
            })
        })
    }
}

/// Filters of the paging group list.
#[derive(Clone, Debug, Default)]
pub struct PagingGroupFilter {
    /// Only the groups of this tenant.
    pub tenant_id: Option<TenantId>,
}

impl FromQuery for PagingGroupFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let tenant_id = QueryReader::new(params, &mut problems).optional("tenantId", &ID);
        problems.finish(|| {
            Some(PagingGroupFilter {
                tenant_id: tenant_id.map(TenantId),
            })
        })
    }
}

/// Sorting and search of the paging group list.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "g.id",
        },
        SortField {
            name: "name",
            column: "g.name",
        },
        SortField {
            name: "number",
            column: "g.number",
        },
        SortField {
            name: "tenantId",
            column: "g.tenant_id",
        },
    ],
    search_columns: &["g.name", "g.number"],
    search_index: None,
};

impl crate::list::ListFilter for PagingGroupFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[FilterDoc {
        name: "tenantId",
        description: "Only the paging groups of this tenant.",
        kind: FilterKind::Id,
    }];
}
