//! Branches: the sites of a tenant.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::NAME;
use crate::ids::{BranchId, TenantId};
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{FromBody, FromQuery, ID, ObjectReader, Problems, QueryReader};

/// A branch.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct Branch {
    /// The branch's id.
    pub id: BranchId,
    /// The tenant the branch belongs to.
    pub tenant_id: TenantId,
    /// The branch's name.
    pub name: String,
}

/// The body of `POST /v2/admin/branches/`.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct CreateBranch {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[schema(nullable = false, minimum = 1)]
    pub tenant_id: Option<TenantId>,
    /// The branch's name.
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
}

impl FromBody for CreateBranch {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems)
            .map(|mut r| (r.optional("tenantId", &ID), r.required("name", &NAME)));
        problems.finish(|| {
            let (tenant_id, name) = fields?;
            Some(CreateBranch {
                tenant_id: tenant_id.ok()?.map(TenantId),
                name: name?,
            })
        })
    }
}

/// The body of `PATCH /v2/admin/branches/{id}`.
#[derive(Clone, Debug, Default, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct UpdateBranch {
    /// The branch's name.
    #[schema(nullable = false, min_length = 1, max_length = 255)]
    pub name: Option<String>,
}

impl FromBody for UpdateBranch {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let name = ObjectReader::body(body, &mut problems).map(|mut r| r.optional("name", &NAME));
        problems.finish(|| Some(UpdateBranch { name: name?.ok()? }))
    }
}

/// Filters of the branch list.
#[derive(Clone, Debug, Default)]
pub struct BranchFilter {
    /// Only the branches of this tenant.
    pub tenant_id: Option<TenantId>,
}

impl FromQuery for BranchFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let tenant_id = QueryReader::new(params, &mut problems).optional("tenantId", &ID);
        problems.finish(|| {
            Some(BranchFilter {
                tenant_id: tenant_id.map(TenantId),
            })
        })
    }
}

/// Sorting and search of the branch list.
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
            name: "tenantId",
            column: "tenant_id",
        },
    ],
    search_columns: &["name"],
    search_index: None,
};

impl crate::list::ListFilter for BranchFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[FilterDoc {
        name: "tenantId",
        description: "Only the branches of this tenant.",
        kind: FilterKind::Id,
    }];
}
