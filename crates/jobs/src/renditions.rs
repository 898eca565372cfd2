//! The backfill of telephony renditions: media files stored before renditions were made
//! (before migration 0020, or Ogg Opus before opusdec decoded it) get theirs in the
//! background. A sweep, in every `serve` process (on the retention sweep's tick), queues a
//! `media.rendition` job per file still owed one (one per file however many sweep: a
//! unique index); the job queue's worker, under its lease, makes the rendition with the
//! code uploads use and records it, or records why the audio cannot have one — that file
//! is not tried again.

use switchboard_db::media_files;
use switchboard_storage::StorageError;
use switchboard_storage::audio::telephony::{self, TelephonyError};

use crate::Jobs;
use crate::worker::seconds_up;

/// Files queued per sweep batch.
const BATCH: u64 = 100;

/// Queues the renditions old media files are owed (the retention loop's sweep calls it)
/// and wakes the job worker when it did.
pub(crate) async fn sweep(jobs: &Jobs) {
    loop {
        let now = chrono::Utc::now().timestamp();
        match media_files::queue_missing_renditions(jobs.db(), now, BATCH).await {
            Ok(0) => break,
            Ok(queued) => {
                tracing::info!(queued, "telephony renditions queued for old media files");
                jobs.inner.wake_jobs.notify_one();
                if queued < BATCH {
                    break;
                }
            }
            Err(error) => {
                tracing::warn!(%error, "queuing the owed telephony renditions failed");
                break;
            }
        }
    }
}

/// What failed, and why, as the job's error.
fn failed(what: &str, error: impl std::fmt::Display) -> String {
    format!("{what}: {error}")
}

/// The `media.rendition` job of media file `id`: done when the rendition is recorded, the
/// reason it cannot be made is recorded, or the file no longer needs one; an error (the
/// storage or the decoder unavailable) is retried by the job queue.
pub(crate) async fn make(jobs: &Jobs, id: i64) -> Result<(), String> {
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
        Ok(bytes) => telephony::make(bytes.to_vec(), None).await,
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
            tracing::warn!(media_file = id, %reason, "an old media file cannot have a telephony rendition");
            return media_files::record_rendition_error(db, id, &reason)
                .await
                .map_err(|e| failed("recording why it has no rendition", e));
        }
        Err(error) => {
            // opusdec missing, or a failed task: the server's, retried later.
            tracing::error!(media_file = id, %error, "a telephony rendition could not be made");
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
    let due = now.saturating_add(seconds_up(crate::objects::LEASE) + 10);
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
        jobs.inner.wake_jobs.notify_one();
    }
    recorded.map(|_| ())
}
