//! Recording what the telephony engine produces — voicemail messages, calls and their
//! recordings — the one way, shared by the ingest API (`/v2/ingest/…`) and the Asterisk
//! importers: audio first to object storage under a key derived from the record's
//! identity (so a repeat overwrites rather than duplicates), then the record with its
//! event in one transaction.

use bytes::Bytes;
use sha2::{Digest, Sha256};
use switchboard_db::Tx;
use switchboard_db::calls::{self, CallRow};
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::call::CallReport;
use switchboard_domain::records::voicemail::NewVoicemail;
use switchboard_storage::{Storage, StorageError};

/// A short, key-safe digest of an identity made of parts that may hold any character.
fn digest(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hex::encode(&hasher.finalize()[..16])
}

/// A new object key of a voicemail message's audio: named after the message, and unique
/// to this upload, so that concurrent pushes of one message never write over each other
/// (the one whose record is kept keeps its audio; the others' audio is deleted by a job
/// queued in the transaction that refused them).
pub fn voicemail_key(message: &NewVoicemail, extension: &str) -> String {
    format!(
        "tenants/{}/voicemail/{}-{}.{extension}",
        message.tenant.get(),
        digest(&[
            &message.mailbox_context,
            &message.mailbox_user,
            &message.msg_id
        ]),
        uuid::Uuid::now_v7().simple()
    )
}

/// A new object key of a call's recording, named after the call and unique to this
/// upload (see [`voicemail_key`]).
pub fn recording_key(tenant: TenantId, unique_id: &str) -> String {
    format!(
        "tenants/{}/recordings/{}-{}.mp3",
        tenant.get(),
        digest(&[unique_id]),
        uuid::Uuid::now_v7().simple()
    )
}

/// Audio to store with a voicemail message: its bytes, content type and file extension.
#[derive(Clone, Debug)]
pub struct MessageAudio {
    /// The audio.
    pub bytes: Bytes,
    /// Its content type (`audio/wav`, `audio/x-gsm`, …).
    pub content_type: &'static str,
    /// The extension its key ends in.
    pub extension: &'static str,
}

/// Stores a message's audio and notes its key and measured length in `message`.
pub async fn store_voicemail_audio(
    storage: &Storage,
    message: &mut NewVoicemail,
    audio: MessageAudio,
) -> Result<(), StorageError> {
    // The message lasts as long as its audio plays; the engine's figure stays only for
    // audio that cannot be measured.
    if let Some(seconds) = switchboard_storage::audio::whole_seconds(&audio.bytes) {
        message.duration = seconds;
    }
    let key = voicemail_key(message, audio.extension);
    storage.put(&key, audio.bytes, audio.content_type).await?;
    message.audio = Some((key, audio.content_type.to_owned()));
    Ok(())
}

/// Stores a call's recording (already MP3), answering its key.
pub async fn store_recording(
    storage: &Storage,
    tenant: TenantId,
    unique_id: &str,
    mp3: Bytes,
) -> Result<String, StorageError> {
    let key = recording_key(tenant, unique_id);
    storage.put(&key, mp3, "audio/mpeg").await?;
    Ok(key)
}

/// What recording a call report did.
#[derive(Clone, Debug)]
pub struct CallOutcome {
    /// The call as it now is, when the report moved it forward.
    pub call: Option<CallRow>,
    /// Whether a recording was attached.
    pub recording_attached: bool,
}

impl CallOutcome {
    /// Whether the report changed anything.
    pub fn recorded(&self) -> bool {
        self.call.is_some() || self.recording_attached
    }
}

/// A recording to store: its MP3 and how long it plays.
#[derive(Clone, Debug)]
pub struct Recording {
    /// The MP3.
    pub mp3: Bytes,
    /// Its measured length in whole seconds (rounded, at least 1).
    pub seconds: i64,
}

/// A recording as MP3 with its measured length: PCM WAV (Asterisk's MixMonitor default)
/// is transcoded, MP3 kept as sent; anything else is refused, naming what was found.
/// Encoding is CPU work, so it runs off the async workers.
pub async fn recording_to_mp3(bytes: Bytes) -> Result<Recording, String> {
    let encoded =
        tokio::task::spawn_blocking(move || switchboard_asterisk::transcode::to_mp3(&bytes))
            .await
            .map_err(|e| format!("the transcoder failed: {e}"))?;
    encoded
        .map(|mp3| Recording {
            // At most a day of audio, so the cast cannot saturate.
            seconds: mp3.duration_seconds.round().clamp(1.0, 86_400.0) as i64,
            mp3: Bytes::from(mp3.bytes),
        })
        .map_err(|e| e.to_string())
}

/// A stored recording to attach: its key, size in bytes and measured length in seconds.
#[derive(Clone, Debug)]
pub struct StoredRecording {
    /// Its storage key.
    pub key: String,
    /// Its size in bytes.
    pub bytes: i64,
    /// How long it plays, in whole seconds.
    pub seconds: i64,
}

/// Records a call report in `tx` and, when given, attaches its recording (already
/// stored), whose measured length becomes the call's talk time.
pub async fn record_call(
    tx: &mut Tx,
    report: &CallReport,
    recording: Option<&StoredRecording>,
    now: i64,
) -> switchboard_db::Result<CallOutcome> {
    let call = calls::record(tx, report, now).await?;
    let recording_attached = match recording {
        Some(r) => {
            calls::attach_recording(
                tx,
                report.tenant,
                &report.unique_id,
                (r.key.as_str(), r.bytes, r.seconds),
                now,
            )
            .await?
        }
        None => false,
    };
    Ok(CallOutcome {
        call,
        recording_attached,
    })
}
