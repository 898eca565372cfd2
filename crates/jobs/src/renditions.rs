//! The backfill of telephony renditions: media files stored before renditions were made
//! (before migration 0020, or Ogg Opus before opusdec decoded it) get theirs in the
//! background. A sweep, in every `serve` process (on the retention sweep's tick), queues
//! `media.rendition` jobs for files still owed one, a few at a time (one per file however
//! many sweep: a unique index), and each finished job queues the next; the job queue's
//! worker, under its lease, makes the rendition with the code uploads use and records it,
//! or records why the audio cannot have one — that file is not tried again.
//!
//! Uploads come first: a process converts one old file at a time (its audio read only
//! once it is its turn), in one of the slots uploads share, waiting briefly for it — a
//! busy slot sends the job back to the queue for later — and the few jobs queued at once
//! never hold the job worker's places that deletions and announcements need.

use std::time::Duration;

use switchboard_db::media_files::{self, Rendition};
use switchboard_domain::ids::MediaFileId;
use switchboard_storage::StorageError;
use switchboard_storage::audio::telephony::{self, TelephonyError};
use tokio::sync::Semaphore;

use crate::Jobs;
use crate::queue::{self, Work};
use crate::worker::seconds_up;

/// Rendition jobs pending at once, all processes together (a sweep tops them up to it).
const IN_QUEUE: u64 = 2;

/// Old files converted at once in this process.
static ONE_AT_A_TIME: Semaphore = Semaphore::const_new(1);

/// How long a backfill waits for one of the conversion slots uploads share, before it
/// is tried again later.
const SLOT_WAIT: Duration = Duration::from_secs(2);

/// Queues the renditions old media files are owed, a few at a time (the retention loop's
/// sweep and each finished job call it); the queue wakes the job worker when it did.
pub(crate) async fn sweep(jobs: &Jobs) {
    top_up(jobs, IN_QUEUE).await;
}

/// Tops the pending rendition jobs up to `at_most`.
async fn top_up(jobs: &Jobs, at_most: u64) {
    let now = chrono::Utc::now().timestamp();
    match media_files::queue_missing_renditions(jobs.db(), now, at_most).await {
        Ok(0) => {}
        Ok(queued) => tracing::debug!(queued, "telephony renditions queued for old media files"),
        Err(error) => tracing::warn!(%error, "queuing the owed telephony renditions failed"),
    }
}

/// What failed, and why, as the job's error.
fn failed(what: &str, error: impl std::fmt::Display) -> String {
    format!("{what}: {error}")
}

/// The rendition job of a media file: done when the rendition is recorded, the reason it
/// cannot be made is recorded, or the file no longer needs one; an error (the storage or
/// the decoder unavailable) is retried by the job queue.
impl Work for Rendition {
    async fn run(self, jobs: &Jobs) -> Result<(), String> {
        let made = make_one(jobs, self.media_file_id).await;
        if made.is_ok() {
            // The next owed file, without waiting for the sweep's tick (this job, not yet
            // completed, is still counted as pending).
            top_up(jobs, IN_QUEUE + 1).await;
        }
        made
    }
}

/// A rendition job's work, in this process's one backfill place.
async fn make_one(jobs: &Jobs, id: MediaFileId) -> Result<(), String> {
    let _turn = ONE_AT_A_TIME
        .acquire()
        .await
        .map_err(|e| failed("waiting for its turn", e))?;
    let db = jobs.db();
    let Some(owed) = media_files::owed_rendition(db, id)
        .await
        .map_err(|e| failed("reading the media file", e))?
    else {
        return Ok(());
    };
    let read = match jobs.storage().get(&owed.object_key, None).await {
        Ok(object) => object.into_bytes().await,
        Err(error) => Err(error),
    };
    let made = match read {
        Ok(bytes) => telephony::make(bytes.to_vec(), Some(SLOT_WAIT)).await,
        // Its audio is gone: nothing to convert, whatever the retries.
        Err(StorageError::NotFound) => Err(TelephonyError::Refused(
            "its audio is missing from storage".into(),
        )),
        Err(error) => return Err(failed("reading its audio", error)),
    };
    let rendition = match made {
        Ok(rendition) => rendition,
        Err(TelephonyError::Refused(reason)) => {
            // The file's own fault: said in its answer, not retried.
            tracing::warn!(media_file = id.get(), %reason, "an old media file cannot have a telephony rendition");
            return media_files::record_rendition_error(db, id, &reason)
                .await
                .map_err(|e| failed("recording why it has no rendition", e));
        }
        // Uploads hold the slots: later.
        Err(TelephonyError::Busy) => return Err(TelephonyError::Busy.to_string()),
        Err(error) => {
            // opusdec missing or cut short, or a failed task: the server's, retried later.
            tracing::error!(media_file = id.get(), %error, "a telephony rendition could not be made");
            return Err(error.to_string());
        }
    };
    // Beside the original, named as an upload's: `<key stem>.telephony.wav`.
    let stem = owed
        .object_key
        .rsplit_once('.')
        .map_or(owed.object_key.as_str(), |(stem, _)| stem);
    let key = format!("{stem}.telephony.wav");
    // Its deletion pledged before it is stored, due once this job's lease is over: an
    // object never recorded (a crash, the file deleted meanwhile) does not stay behind.
    let now = chrono::Utc::now().timestamp();
    let due = now.saturating_add(seconds_up(queue::LEASE) + 10);
    let pledge = switchboard_db::jobs::pledge_object_deletion(db, &key, due)
        .await
        .map_err(|e| failed("pledging its rendition's deletion", e))?;
    let stored = jobs
        .storage()
        .put(&key, rendition.bytes.into(), "audio/wav")
        .await
        .map_err(|e| failed("storing its rendition", e));
    let recorded = match stored {
        Ok(()) => media_files::record_rendition(db, id, &key, pledge)
            .await
            .map_err(|e| failed("recording its rendition", e)),
        Err(error) => Err(error),
    };
    if !matches!(recorded, Ok(true)) {
        // Not kept: the object goes now, not when its pledge falls due.
        if let Err(error) = switchboard_db::jobs::hasten(db, &[pledge]).await {
            tracing::warn!(%error, "could not hasten the deletion of an unkept rendition");
        }
    }
    recorded.map(|_| ())
}
