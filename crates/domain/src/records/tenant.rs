//! Tenants: the customer businesses, each owned by a partner.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::NAME;
use crate::ids::{PartnerId, TenantId};
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{FromBody, FromQuery, ID, ObjectReader, Problems, QueryReader};

/// A tenant.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct Tenant {
    /// The tenant's id.
    pub id: TenantId,
    /// The partner that owns the tenant.
    pub partner_id: PartnerId,
    /// The tenant's name.
    pub name: String,
}

/// The body of `POST /v2/admin/tenants/`.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct CreateTenant {
    /// The tenant's name.
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
    /// The owning partner; partner admins may omit it (their own is used).
    #[schema(nullable = false, minimum = 1)]
    pub partner_id: Option<PartnerId>,
}

impl FromBody for CreateTenant {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems)
            .map(|mut r| (r.required("name", &NAME), r.optional("partnerId", &ID)));
        problems.finish(|| {
            let (name, partner_id) = fields?;
            Some(CreateTenant {
                name: name?,
                partner_id: partner_id.ok()?.map(PartnerId),
            })
        })
    }
}

/// The body of `PATCH /v2/admin/tenants/{id}`.
#[derive(Clone, Debug, Default, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct UpdateTenant {
    /// The tenant's name.
    #[schema(nullable = false, min_length = 1, max_length = 255)]
    pub name: Option<String>,
}

impl FromBody for UpdateTenant {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let name = ObjectReader::body(body, &mut problems).map(|mut r| r.optional("name", &NAME));
        problems.finish(|| Some(UpdateTenant { name: name?.ok()? }))
    }
}

/// Filters of the tenant list.
#[derive(Clone, Debug, Default)]
pub struct TenantFilter {
    /// Only the tenants of this partner.
    pub partner_id: Option<PartnerId>,
}

impl FromQuery for TenantFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let partner_id = QueryReader::new(params, &mut problems).optional("partnerId", &ID);
        problems.finish(|| {
            Some(TenantFilter {
                partner_id: partner_id.map(PartnerId),
            })
        })
    }
}

/// Sorting and search of the tenant list.
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
            name: "partnerId",
            column: "partner_id",
        },
    ],
    search_columns: &["name"],
    search_index: None,
};

impl crate::list::ListFilter for TenantFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[FilterDoc {
        name: "partnerId",
        description: "Only the tenants of this partner.",
        kind: FilterKind::Id,
    }];
}
