//! The one way stored audio becomes its telephony rendition, for an upload and for the
//! background backfill of files stored before renditions were made: the format found from
//! the bytes, Ogg Opus decoded by opusdec first, then decoded, mixed and resampled
//! ([`super::rendition::telephony_wav`]) on the blocking pool, a few at a time per process.

use std::time::Duration;

use tokio::sync::Semaphore;

use super::decoder::{self, DecoderError};
use super::rendition::{self, Rendition};
use super::{AudioFormat, is_opus, sniff};

/// Renditions made at once in this process: each may decode up to
/// `rendition::MAX_SAMPLES` (256 MiB of samples), so the blocking pool's many threads
/// must not all hold one. Uploads and the backfill share them.
static SLOTS: Semaphore = Semaphore::const_new(2);

/// Why no rendition was made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TelephonyError {
    /// Every slot stayed taken for the whole wait.
    #[error("other audio is being converted for telephony")]
    Busy,
    /// A decoder program cannot run here (opusdec not installed): the server's lack, not
    /// the file's fault.
    #[error("{0}")]
    Missing(DecoderError),
    /// The audio cannot be converted; the text says why, fit for the uploader.
    #[error("{0}")]
    Refused(String),
    /// The decoder could not finish for the server's reasons (its time limit on a
    /// loaded machine, a pipe error): worth trying again later.
    #[error("{0}")]
    Interrupted(String),
    /// The conversion's task failed (a panic): the server's fault.
    #[error("the conversion failed: {0}")]
    Failed(String),
}

/// Makes the 8 kHz 16-bit mono WAV rendition of `bytes` (WAV, MP3, Ogg Vorbis or Opus),
/// waiting at most `wait` for a slot (`None`: as long as it takes).
pub async fn make(bytes: Vec<u8>, wait: Option<Duration>) -> Result<Rendition, TelephonyError> {
    let format = sniff(&bytes).ok_or_else(|| {
        TelephonyError::Refused("it is not WAV, MP3 or OGG (Vorbis or Opus) audio".into())
    })?;
    // Held until the rendition is made (inside the blocking task): a caller that goes
    // away does not free the slot while its decode still runs.
    let permit = match wait {
        Some(wait) => tokio::time::timeout(wait, SLOTS.acquire())
            .await
            .map_err(|_| TelephonyError::Busy)?,
        None => SLOTS.acquire().await,
    }
    .map_err(|e| TelephonyError::Failed(e.to_string()))?;
    // Ogg Opus, which symphonia cannot decode, is decoded by opusdec first (to an 8 kHz
    // WAV the same path finishes).
    let source = if format == AudioFormat::Ogg && is_opus(&bytes) {
        decoder::opus_to_wav(bytes.into())
            .await
            .map_err(|error| match error {
                DecoderError::Missing { .. } => TelephonyError::Missing(error),
                DecoderError::Failed(text) => TelephonyError::Refused(text),
                DecoderError::Interrupted(text) => TelephonyError::Interrupted(text),
            })?
    } else {
        bytes
    };
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        rendition::telephony_wav(&source)
    })
    .await
    .map_err(|e| TelephonyError::Failed(e.to_string()))?
    .map_err(|e| TelephonyError::Refused(e.to_string()))
}
