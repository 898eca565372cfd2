//! Extensions: the dialable endpoints of a tenant, targets of `EXT` destinations.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::NAME;
use crate::ids::{BranchId, ExtensionId, TenantId};
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{
    Chars, FromBody, FromQuery, ID, ObjectReader, Problems, QueryReader, dial,
};

/// An extension number: 1 to 32 dial characters, unique in its tenant.
pub const NUMBER: Chars = dial(1, 32);

/// An extension.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct Extension {
    /// The extension's id.
    pub id: ExtensionId,
    /// The tenant the extension belongs to.
    pub tenant_id: TenantId,
    /// The branch the extension belongs to, if any.
    pub branch_id: Option<BranchId>,
    /// The number dialled to reach it, unique in its tenant.
    pub number: String,
    /// Its display name.
    pub name: String,
}

/// The body of `POST /v2/admin/extensions/`.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct CreateExtension {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[schema(nullable = false, minimum = 1)]
    pub tenant_id: Option<TenantId>,
    /// The branch, of the same tenant, or `null`; branch admins get their own.
    #[schema(minimum = 1)]
    pub branch_id: Option<BranchId>,
    /// The number, unique in the tenant.
    #[schema(min_length = 1, max_length = 32, pattern = "^[0-9*#+]+$")]
    pub number: String,
    /// The display name.
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
}

impl FromBody for CreateExtension {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.optional("tenantId", &ID),
                r.nullable("branchId", &ID),
                r.required("number", &NUMBER),
                r.required("name", &NAME),
            )
        });
        problems.finish(|| {
            let (tenant_id, branch_id, number, name) = fields?;
            Some(CreateExtension {
                tenant_id: tenant_id.ok()?.map(TenantId),
                branch_id: branch_id.ok()?.flatten().map(BranchId),
                number: number?,
                name: name?,
            })
        })
    }
}

/// The body of `PATCH /v2/admin/extensions/{id}`.
#[derive(Clone, Debug, Default, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct UpdateExtension {
    /// The branch; `null` detaches the extension from any branch.
    #[schema(minimum = 1)]
    pub branch_id: Option<Option<BranchId>>,
    /// The number, unique in the tenant.
    #[schema(
        nullable = false,
        min_length = 1,
        max_length = 32,
        pattern = "^[0-9*#+]+$"
    )]
    pub number: Option<String>,
    /// The display name.
    #[schema(nullable = false, min_length = 1, max_length = 255)]
    pub name: Option<String>,
}

impl FromBody for UpdateExtension {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.nullable("branchId", &ID),
                r.optional("number", &NUMBER),
                r.optional("name", &NAME),
            )
        });
        problems.finish(|| {
            let (branch_id, number, name) = fields?;
            Some(UpdateExtension {
                branch_id: branch_id.ok()?.map(|b| b.map(BranchId)),
                number: number.ok()?,
                name: name.ok()?,
            })
        })
    }
}

/// Filters of the extension list.
#[derive(Clone, Debug, Default)]
pub struct ExtensionFilter {
    /// Only the extensions of this tenant.
    pub tenant_id: Option<TenantId>,
    /// Only the extensions of this branch.
    pub branch_id: Option<BranchId>,
}

impl FromQuery for ExtensionFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mut q = QueryReader::new(params, &mut problems);
        let tenant_id = q.optional("tenantId", &ID).map(TenantId);
        let branch_id = q.optional("branchId", &ID).map(BranchId);
        problems.finish(|| {
            Some(ExtensionFilter {
                tenant_id,
                branch_id,
            })
        })
    }
}

/// Sorting and search of the extension list.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "id",
        },
        SortField {
            name: "number",
            column: "number",
        },
        SortField {
            name: "name",
            column: "name",
        },
        SortField {
            name: "tenantId",
            column: "tenant_id",
        },
        SortField {
            name: "branchId",
            column: "branch_id",
        },
    ],
    search_columns: &["number", "name"],
    search_index: None,
};

impl crate::list::ListFilter for ExtensionFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[
        FilterDoc {
            name: "tenantId",
            description: "Only the extensions of this tenant.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "branchId",
            description: "Only the extensions of this branch.",
            kind: FilterKind::Id,
        },
    ];
}
