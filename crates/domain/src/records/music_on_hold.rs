//! Music on hold: a tenant's named playlists of media files, played to callers on hold in
//! order or shuffled; one of them may be the tenant's default.

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use super::business_hour::BranchRef;
use super::destination::{DestType, Destination, DestinationInput, Destinations};
use crate::declare::{Body, Filter, Listed};
use crate::ids::{BranchId, MediaFileId, MusicOnHoldId, TenantId};
use crate::list::BranchedFilter;
use crate::validation::{Among, Bool, ID, Switch, among};

crate::closed_set! {
    /// How the playlist plays: in order from the first file, shuffled, or in order from a
    /// random file (so callers put on hold together do not all hear the same bar).
    pub enum PlayMode {
        /// In order from the first file.
        Sequential = "sequential",
        /// Shuffled.
        Random = "random",
        /// In order from a random file.
        RandomStart = "randomStart",
    }
}
/// How the playlist plays, as read.
pub const MODE: Among<PlayMode> = among();

/// The playlist: media files of the same tenant, in order, at least one.
pub const FILES: Destinations = Destinations {
    name: "MusicOnHoldFileBody",
    allowed: &[DestType::MediaFile],
    min: 1,
};

/// A music-on-hold playlist.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, mode, is_default, tenant_id), filter = MusicOnHoldFilter, table = "h", search("name"))]
pub struct MusicOnHold {
    /// Its id.
    pub id: MusicOnHoldId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// The branch it is for; null for the whole tenant.
    pub branch_id: Option<BranchId>,
    /// The branch, resolved; null for the whole tenant.
    pub branch: Option<BranchRef>,
    /// Its name.
    pub name: String,
    /// `sequential`, `random` or `randomStart`.
    #[schema(value_type = String)]
    pub mode: PlayMode,
    /// Whether it is the tenant's default (at most one is).
    pub is_default: bool,
    /// The media files it plays (`destType` `MEDIA_FILE`), by `order`.
    pub routing_destinations: Vec<Destination>,
}

/// The body of `POST /v2/admin/music-on-hold/`.
// `UpdateMusicOnHold`, the body of `PATCH`, is generated from it; a field with `column`
// is stored in that column (docs/decisions.md, "Declared once").
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant),
    update(
        name = UpdateMusicOnHold,
        doc = "The body of `PATCH /v2/admin/music-on-hold/{id}`: fields not sent stay unchanged; a\nsent `routingDestinations` replaces the playlist and must still hold a media file.",
        fixed(tenantId = "cannot be changed"),
    )
)]
pub struct CreateMusicOnHold {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// The branch, of the same tenant, or null for the whole tenant.
    #[field(rule = ID, nullable, column)]
    pub branch_id: Option<BranchId>,
    /// Its name.
    #[field(rule = NAME, column)]
    pub name: String,
    /// `sequential` (the default), `random` or `randomStart`.
    #[field(rule = MODE, default = PlayMode::Sequential, column)]
    pub mode: PlayMode,
    /// Whether it becomes the tenant's default (the previous default stops being one); in
    /// a change, `false` leaves the tenant without one if it was.
    #[field(rule = Bool, default = false, column, integer)]
    pub is_default: bool,
    /// The media files it plays, in order: at least one, each of the tenant (a change
    /// replaces the current ones).
    #[field(rule = FILES)]
    pub routing_destinations: Vec<DestinationInput>,
}

/// Filters of the music-on-hold list.
#[derive(Clone, Debug, Default, Filter)]
pub struct MusicOnHoldFilter {
    /// The tenant and branch.
    #[field(flatten)]
    pub place: BranchedFilter,
    /// 1 (or `true`) only the default, 0 (or `false`) the others.
    #[field(rule = Switch)]
    pub is_default: Option<bool>,
}

/// One file of a playlist as the engine plays it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlaylistEntry {
    /// Position in the playlist.
    pub order: i64,
    /// The media file's id.
    pub media_file_id: MediaFileId,
    /// Its name.
    pub name: String,
    /// The audio's type at `url`: `audio/wav` for the telephony rendition; the stored
    /// type for a file that has none (Ogg Opus).
    pub content_type: String,
    /// Its playing time in seconds.
    pub duration: f64,
    /// A signed link to the 8 kHz mono WAV telephony rendition (the original where there
    /// is none).
    pub url: String,
}

/// `GET /v2/admin/music-on-hold/{id}/playlist`: what the engine plays, in order.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Playlist {
    /// The music on hold's id.
    pub id: MusicOnHoldId,
    /// How to play it.
    #[schema(value_type = String)]
    pub mode: PlayMode,
    /// The files, in order.
    pub files: Vec<PlaylistEntry>,
    /// When the links expire (RFC 3339).
    pub url_expires_at: String,
}
