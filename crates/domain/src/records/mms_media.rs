//! MMS media uploads as records of their tenant: who uploaded what, when and how large,
//! with a fresh signed URL; listed, deleted, and removed by retention when they expire.

use serde::Serialize;
use utoipa::ToSchema;

use crate::declare::{Filter, Listed};
use crate::ids::{MmsMediaId, TenantId, UserId};
use crate::validation::ID;

/// An uploaded MMS media file.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, size, content_type, created_at, expires_at), filter = MmsMediaFilter, table = "m", id = "m.id",
       search("content_type", "uploaded_by", "object_key"))]
pub struct MmsMedia {
    /// The upload's id.
    pub id: MmsMediaId,
    /// The tenant whose quota it counts against.
    pub tenant_id: TenantId,
    /// The user who uploaded it.
    pub user_id: UserId,
    /// That user's e-mail address at the time of the upload.
    pub uploaded_by: String,
    /// The content type decided from its bytes.
    pub content_type: String,
    /// Its size in bytes.
    #[list(column = "bytes")]
    pub size: i64,
    /// Where it is stored (a generated key).
    pub object_key: String,
    /// A fresh signed URL of the file (valid as long as the upload's URLs are).
    pub url: String,
    /// When it was uploaded (ISO 8601, UTC).
    pub created_at: String,
    /// When retention removes it (ISO 8601, UTC).
    pub expires_at: String,
}

/// Filters of the MMS media list.
#[derive(Clone, Debug, Default, Filter)]
pub struct MmsMediaFilter {
    /// Only this tenant's uploads.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
}
