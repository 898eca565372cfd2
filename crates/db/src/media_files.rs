//! Media files: their rows (the audio itself lives in object storage under `object_key`)
//! and what uses them.

use sea_query::{Expr, ExprTrait, OnConflict, Order, Query, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{MediaFileId, TenantId};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::media_file::{LanguageText, MediaFile, MediaFileFields};
use switchboard_domain::serde::{Deserialize, Serialize};

use crate::backend::{Db, Tx};
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::jobs::JobKind;
use crate::list::{self, Listing};
use crate::scope;
use crate::wakeups::Worker;

/// A media file as stored.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct MediaFileRow {
    /// Id.
    pub id: MediaFileId,
    /// Tenant.
    pub tenant_id: TenantId,
    /// Display name.
    pub name: String,
    /// Where the audio is in object storage.
    pub object_key: String,
    /// MIME type decided from the bytes.
    pub content_type: String,
    /// Size in bytes.
    pub size_bytes: i64,
    /// Playing time in seconds.
    pub duration_seconds: f64,
    /// Language tag.
    pub language: Option<String>,
    /// Spoken text.
    pub text: Option<String>,
    /// Spoken text per language, as JSON.
    pub multilingual_text: Option<String>,
    /// The voice that rendered it; `None` for recorded audio.
    pub voice_id: Option<String>,
    /// Its 8 kHz mono WAV telephony rendition; `None` for files stored before renditions
    /// (and Ogg Opus files stored before opusdec decoded them) until the backfill makes
    /// one.
    pub rendition_key: Option<String>,
    /// Why it has no rendition: its audio could not be converted when the backfill tried.
    pub rendition_error: Option<String>,
}

impl MediaFileRow {
    /// The per-language texts.
    pub fn multilingual(&self) -> Option<Vec<LanguageText>> {
        self.multilingual_text
            .as_deref()
            .and_then(|json| serde_json::from_str(json).ok())
    }

    /// The media file as the API answers it, with the links to its audio (`url`,
    /// `rendition_url`, signed until `url_expires_at`) that the caller made.
    pub fn into_media_file(
        self,
        url: String,
        rendition_url: Option<String>,
        url_expires_at: String,
    ) -> MediaFile {
        MediaFile {
            id: self.id,
            tenant_id: self.tenant_id,
            multilingual_text: self.multilingual(),
            name: self.name,
            content_type: self.content_type,
            size: self.size_bytes,
            duration: (self.duration_seconds * 1000.0).round() / 1000.0,
            language: self.language,
            text: self.text,
            voice_id: self.voice_id,
            rendition_url,
            rendition_error: self.rendition_error,
            url,
            url_expires_at,
        }
    }
}

/// What a new media file stores.
#[derive(Clone, Debug)]
pub struct NewMediaFile {
    /// Display name.
    pub name: String,
    /// Object key of the stored audio.
    pub object_key: String,
    /// MIME type.
    pub content_type: String,
    /// Size in bytes.
    pub size_bytes: i64,
    /// Playing time in seconds.
    pub duration_seconds: f64,
    /// The voice that rendered it; `None` for recorded audio.
    pub voice_id: Option<String>,
    /// Its telephony rendition's object key.
    pub rendition_key: Option<String>,
    /// Texts.
    pub fields: MediaFileFields,
}

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns([
            "id",
            "tenant_id",
            "name",
            "object_key",
            "content_type",
            "size_bytes",
            "duration_seconds",
            "language",
            "text",
            "multilingual_text",
            "voice_id",
            "rendition_key",
            "rendition_error",
        ])
        .from("media_files")
        .cond_where(scope::tenants(scope, Expr::col("tenant_id")))
        .take()
}

/// Lists the media files the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &TenantFilter,
    query: &ListQuery,
) -> Result<Listing<MediaFileRow>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col("tenant_id").eq(tenant.get()));
    }
    list::run(db, select, <MediaFile as Listed>::SPEC, query).await
}

/// One media file.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: MediaFileId) -> Result<MediaFileRow> {
    crud::get(db, select(scope), "id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it), without links: they are signed for one reader and expire.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<MediaFile>> {
    let row: Option<MediaFileRow> = crud::find_on(tx, select(&Scope::Platform), "id", id).await?;
    Ok(row.map(|row| row.into_media_file(String::new(), None, String::new())))
}

fn text_changes(fields: MediaFileFields, changes: &mut Changes) {
    if let Some(name) = fields.name {
        changes.push(("name", name.into()));
    }
    if let Some(language) = fields.language {
        changes.push(("language", language.into()));
    }
    if let Some(text) = fields.text {
        changes.push(("text", text.into()));
    }
    if let Some(multi) = fields.multilingual_text {
        let json = multi.map(|list| serde_json::to_string(&list).unwrap_or_else(|_| "[]".into()));
        changes.push(("multilingual_text", json.into()));
    }
}

/// Records a media file of `tenant` whose audio is already stored.
#[boxed]
pub async fn create(
    db: &Db,
    tenant: TenantId,
    new: NewMediaFile,
    pledges: &[i64],
) -> Result<MediaFileRow> {
    let mut changes: Changes = vec![
        ("tenant_id", tenant.get().into()),
        ("object_key", new.object_key.into()),
        ("content_type", new.content_type.into()),
        ("size_bytes", new.size_bytes.into()),
        ("duration_seconds", new.duration_seconds.into()),
        ("voice_id", new.voice_id.into()),
        ("rendition_key", new.rendition_key.into()),
    ];
    text_changes(new.fields, &mut changes);
    let mut tx = db.begin().await?;
    let id = crud::insert_in(&mut tx, "media_files", changes).await?;
    for &pledge in pledges {
        crate::jobs::keep_object(&mut tx, pledge).await?;
    }
    tx.commit().await?;
    get(db, &Scope::Platform, MediaFileId(id)).await
}

/// Changes a media file's name and texts.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: MediaFileId,
    fields: MediaFileFields,
) -> Result<MediaFileRow> {
    let mut changes: Changes = Vec::new();
    text_changes(fields, &mut changes);
    crud::update(db, select(scope), "id", "media_files", id.get(), changes).await
}

/// Deletes a media file's row unless something uses it (409 naming the users); the
/// caller removes the stored audio after.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: MediaFileId) -> Result<MediaFileRow> {
    crud::delete_owning(
        db,
        select(scope),
        "id",
        "media_files",
        id.get(),
        |row: &MediaFileRow| {
            std::iter::once(row.object_key.as_str())
                .chain(row.rendition_key.as_deref())
                .collect()
        },
    )
    .await
}

/// The job that makes the telephony rendition of a media file stored without one:
/// `{"mediaFileId": …}`, at most one per file (a unique index on its kind and payload
/// text, migration 0034: the payload is written exactly so, by serde and by the SQL of
/// [`queue_missing_renditions`] alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "switchboard_domain::serde", rename_all = "camelCase")]
pub struct Rendition {
    /// The media file owed a rendition.
    pub media_file_id: MediaFileId,
}

impl JobKind for Rendition {
    const KIND: &'static str = "media.rendition";
}

/// Tops the pending [`Rendition`] jobs up to `at_most`, each due at `now`, for media
/// files without a rendition, without a recorded reason for lacking one and without such
/// a job already (a failed one, given up, included: an operator clears it to try again);
/// answers how many were queued. The backfill is kept to a few jobs at a time so it never
/// fills the job queue's workers ahead of the deletions and announcements behind it;
/// each finished job tops it up again. Reads first, so a sweep with nothing owed takes
/// one read of the partial index of files without a rendition and no write lock; the
/// inserts of processes sweeping at once meet the unique index and do nothing.
#[boxed]
pub async fn queue_missing_renditions(db: &Db, now: i64, at_most: u64) -> Result<u64> {
    // `{"mediaFileId":N}`, as serde writes a `Rendition` (a test holds the two alike).
    let payload = Expr::cust(r#"'{"mediaFileId":' || media_files.id || '}'"#);
    let queued = Query::select()
        .expr(Expr::val(1))
        .from("jobs")
        .and_where(Expr::col(("jobs", "kind")).eq(Rendition::KIND))
        .and_where(Expr::col(("jobs", "payload")).eq(payload))
        .take();
    let owed = Query::select()
        .column(("media_files", "id"))
        .from("media_files")
        .and_where(Expr::col(("media_files", "rendition_key")).is_null())
        .and_where(Expr::col(("media_files", "rendition_error")).is_null())
        .and_where(Expr::exists(queued).not())
        .order_by(("media_files", "id"), Order::Asc)
        .limit(at_most)
        .take();
    let ids: Vec<(MediaFileId,)> = db.conn().fetch_all(&owed).await?;
    if ids.is_empty() {
        // The backfill is done: the one read of the partial index, and nothing else.
        return Ok(0);
    }
    let pending = Query::select()
        .expr(Expr::col("id").count())
        .from("jobs")
        .and_where(Expr::col("kind").eq(Rendition::KIND))
        .and_where(Expr::col("state").eq("pending"))
        .take();
    let pending = u64::try_from(db.conn().scalar::<i64>(&pending).await?).unwrap_or(0);
    let room = usize::try_from(at_most.saturating_sub(pending)).unwrap_or(usize::MAX);
    let mut count = 0;
    for (id,) in ids.into_iter().take(room) {
        let insert = Query::insert()
            .into_table("jobs")
            .columns(["kind", "payload", "run_at", "created_at"])
            .values_panic([
                Rendition::KIND.into(),
                Rendition { media_file_id: id }.to_payload()?.into(),
                now.into(),
                now.into(),
            ])
            .on_conflict(
                OnConflict::column("payload")
                    .target_and_where(Expr::cust("kind = 'media.rendition'"))
                    .do_nothing()
                    .to_owned(),
            )
            .take();
        count += db.conn().execute(&insert).await?;
    }
    if count > 0 {
        db.wakeups().ring(Worker::Jobs);
    }
    Ok(count)
}

/// What the backfill needs of a media file still owed a rendition: its audio's key.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct Owed {
    /// Where its audio is in object storage.
    pub object_key: String,
}

/// Media file `id` if it still has no rendition nor a recorded reason for lacking one
/// (`None`: deleted, or done meanwhile).
#[boxed]
pub async fn owed_rendition(db: &Db, id: MediaFileId) -> Result<Option<Owed>> {
    let select = Query::select()
        .column("object_key")
        .from("media_files")
        .and_where(Expr::col("id").eq(id.get()))
        .and_where(Expr::col("rendition_key").is_null())
        .and_where(Expr::col("rendition_error").is_null())
        .take();
    db.conn().fetch_optional(&select).await
}

/// Records `key` as media file `id`'s rendition and keeps its object (cancels `pledge`,
/// its pledged deletion), in one transaction; `false` (nothing recorded, the pledge left
/// to delete the object) when the file is gone or got a rendition meanwhile.
#[boxed]
pub async fn record_rendition(db: &Db, id: MediaFileId, key: &str, pledge: i64) -> Result<bool> {
    let update = Query::update()
        .table("media_files")
        .value("rendition_key", key)
        .and_where(Expr::col("id").eq(id.get()))
        .and_where(Expr::col("rendition_key").is_null())
        .take();
    let mut tx = db.begin().await?;
    if tx.execute(&update).await? == 0 {
        return Ok(false);
    }
    crate::jobs::keep_object(&mut tx, pledge).await?;
    tx.commit().await?;
    Ok(true)
}

/// Records why media file `id`'s audio cannot have a rendition, so it is not tried again.
#[boxed]
pub async fn record_rendition_error(db: &Db, id: MediaFileId, reason: &str) -> Result<()> {
    let update = Query::update()
        .table("media_files")
        .value("rendition_error", reason)
        .and_where(Expr::col("id").eq(id.get()))
        .and_where(Expr::col("rendition_key").is_null())
        .take();
    db.conn().execute(&update).await?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_rendition_payload_is_the_text_the_sweep_writes_and_its_unique_index_compares() {
        let job = Rendition {
            media_file_id: MediaFileId(42),
        };
        assert_eq!(job.to_payload().unwrap(), r#"{"mediaFileId":42}"#);
        assert_eq!(
            Rendition::from_payload(r#"{"mediaFileId":42}"#).unwrap(),
            job
        );
    }
}
