//! IVRs: the voice menus callers are routed to and announcements attach to.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::NAME;
use crate::ids::{IvrId, TenantId};
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{
    Chars, FromBody, FromQuery, ID, ObjectReader, Problems, QueryReader, dial,
};

/// An IVR number: 1 to 32 dial characters, unique among the tenant's IVRs.
pub const NUMBER: Chars = dial(1, 32);

/// An IVR.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct Ivr {
    /// The IVR's id.
    pub id: IvrId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its name.
    pub name: String,
    /// The number dialled to reach it, unique among the tenant's IVRs.
    pub number: String,
}

/// The body of `POST /v2/admin/ivrs/`.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct CreateIvr {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[schema(nullable = false, minimum = 1)]
    pub tenant_id: Option<TenantId>,
    /// Its name.
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
    /// Its number.
    #[schema(min_length = 1, max_length = 32, pattern = "^[0-9*#+]+$")]
    pub number: String,
}

impl FromBody for CreateIvr {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.optional("tenantId", &ID),
                r.required("name", &NAME),
                r.required("number", &NUMBER),
            )
        });
        problems.finish(|| {
            let (tenant_id, name, number) = fields?;
            Some(CreateIvr {
                tenant_id: tenant_id.ok()?.map(TenantId),
                name: name?,
                number: number?,
            })
        })
    }
}

/// The body of `PATCH /v2/admin/ivrs/{id}`.
#[derive(Clone, Debug, Default, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct UpdateIvr {
    /// Its name.
    #[schema(nullable = false, min_length = 1, max_length = 255)]
    pub name: Option<String>,
    /// Its number.
    #[schema(
        nullable = false,
        min_length = 1,
        max_length = 32,
        pattern = "^[0-9*#+]+$"
    )]
    pub number: Option<String>,
}

impl FromBody for UpdateIvr {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems)
            .map(|mut r| (r.optional("name", &NAME), r.optional("number", &NUMBER)));
        problems.finish(|| {
            let (name, number) = fields?;
            Some(UpdateIvr {
                name: name.ok()?,
                number: number.ok()?,
            })
        })
    }
}

/// Filters of the IVR list.
#[derive(Clone, Debug, Default)]
pub struct IvrFilter {
    /// Only the IVRs of this tenant.
    pub tenant_id: Option<TenantId>,
}

impl FromQuery for IvrFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let tenant_id = QueryReader::new(params, &mut problems).optional("tenantId", &ID);
        problems.finish(|| {
            Some(IvrFilter {
                tenant_id: tenant_id.map(TenantId),
            })
        })
    }
}

/// Sorting and search of the IVR list.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "id",
        },
        SortField {
            name: "name",
            column: "name",
        },
        SortField {
            name: "number",
            column: "number",
        },
        SortField {
            name: "tenantId",
            column: "tenant_id",
        },
    ],
    search_columns: &["name", "number"],
    search_index: None,
};

impl crate::list::ListFilter for IvrFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[FilterDoc {
        name: "tenantId",
        description: "Only the IVRs of this tenant.",
        kind: FilterKind::Id,
    }];
}
