//! `switchboard import …`: Asterisk's own files — the `app_voicemail` spool and
//! `cdr_csv`'s Master.csv with MixMonitor recordings — recorded through the same code as
//! the ingest API ([`switchboard_app::engine`]). Every file is read and checked, and
//! every recording transcoded, before the first row is written; the rows then go in one
//! transaction, so a malformed file imports nothing. Records already present are left
//! alone, so importing twice changes nothing.

use std::path::Path;

use anyhow::{Context, bail};
use bytes::Bytes;
use serde::Serialize;
use switchboard_api::AppState;
use switchboard_app::engine::{self, MessageAudio};
use switchboard_asterisk::cdr::{self, CdrRow, Direction};
use switchboard_asterisk::recordings::RecordingIndex;
use switchboard_asterisk::voicemail::{self, AudioFormat, SpoolMessage};
use switchboard_db::{calls, tenants};
use switchboard_domain::Scope;
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::call::{CallPhase, CallReport};
use switchboard_domain::records::voicemail::NewVoicemail;

/// What an import did, printed as one line of JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// Records found in the files.
    pub read: usize,
    /// Records new to the database.
    pub imported: usize,
    /// Records already there (left alone).
    pub unchanged: usize,
    /// Recordings attached to calls (CDR imports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recordings: Option<usize>,
}

async fn check_tenant(state: &AppState, tenant: TenantId) -> anyhow::Result<()> {
    if !tenants::in_scope(&state.db, &Scope::Platform, tenant).await? {
        bail!("there is no tenant {}", tenant.get());
    }
    Ok(())
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn new_voicemail(tenant: TenantId, message: &SpoolMessage) -> NewVoicemail {
    NewVoicemail {
        tenant,
        mailbox_context: message.context.clone(),
        mailbox_user: message.mailbox.clone(),
        msg_id: message.msg_id.clone(),
        message_number: i64::from(message.message_number),
        dir: message.folder.as_str().to_owned(),
        caller_id: message.caller_id.clone(),
        date: message.orig_date.clone(),
        date_unix: message.orig_time,
        duration: message.duration,
        ext_num: message.exten.clone(),
        transcript: String::new(),
        audio: None,
        original_audio: None,
        // Resolved when recorded: the extension numbered as the mailbox at import.
        extension: None,
    }
}

/// The content type and key extension a spool audio format is stored with: both WAV
/// forms as WAV (wav49 is GSM inside a WAV container), raw GSM as itself.
fn stored_as(format: AudioFormat) -> (&'static str, &'static str) {
    match format {
        AudioFormat::Wav | AudioFormat::Wav49 => ("audio/wav", "wav"),
        AudioFormat::Gsm => ("audio/x-gsm", "gsm"),
    }
}

/// Imports the `app_voicemail` spool at `dir` into `tenant`.
pub async fn asterisk_voicemail(
    state: &AppState,
    dir: &Path,
    tenant: TenantId,
) -> anyhow::Result<ImportReport> {
    check_tenant(state, tenant).await?;
    let messages = voicemail::read_spool(dir).map_err(anyhow::Error::msg)?;
    let mut report = ImportReport {
        read: messages.len(),
        ..ImportReport::default()
    };
    let mut new = Vec::new();
    for message in &messages {
        let mut record = new_voicemail(tenant, message);
        let known = switchboard_db::voicemail::exists(
            &state.db,
            tenant,
            &record.mailbox_context,
            &record.mailbox_user,
            &record.msg_id,
        )
        .await?;
        if known {
            report.unchanged += 1;
            continue;
        }
        if let Some(audio) = &message.audio {
            let bytes = tokio::fs::read(&audio.path)
                .await
                .with_context(|| format!("reading {}", audio.path.display()))?;
            let (content_type, extension) = stored_as(audio.format);
            let audio = MessageAudio {
                bytes: Bytes::from(bytes),
                content_type,
                extension,
            };
            engine::store_voicemail_audio(&state.storage, &mut record, audio)
                .await
                .with_context(|| format!("storing the audio of {}", message.source.display()))?;
        }
        new.push(record);
    }
    let stored: Vec<String> = new
        .iter()
        .flat_map(|record| [&record.audio, &record.original_audio])
        .flatten()
        .map(|(key, _)| key.clone())
        .collect();
    let written = async {
        let mut tx = state.db.begin().await?;
        for record in new {
            if switchboard_db::voicemail::record(&mut tx, record, now())
                .await?
                .new
            {
                report.imported += 1;
            } else {
                report.unchanged += 1;
            }
        }
        tx.commit().await
    };
    if let Err(error) = written.await {
        forget(state, &stored).await;
        return Err(error.into());
    }
    Ok(report)
}

/// Deletes the objects an import stored before its transaction failed: no record refers
/// to them (their keys are unique to the upload), and a rerun stores its own.
async fn forget(state: &AppState, keys: &[String]) {
    for key in keys {
        if let Err(error) = state.storage.delete(key).await {
            tracing::warn!(%error, key, "could not delete the audio of a failed import");
        }
    }
}

fn direction(row: &CdrRow) -> &'static str {
    match row.direction() {
        Direction::Inbound => "inbound",
        Direction::Outbound => "outbound",
        Direction::Internal => "internal",
    }
}

/// A CDR row as a report of a finished call.
fn call_report(tenant: TenantId, row: &CdrRow) -> CallReport {
    CallReport {
        tenant,
        unique_id: row.unique_id.clone(),
        phase: CallPhase::Ended,
        direction: direction(row).to_owned(),
        caller_id_num: row.caller_id_num.clone().unwrap_or_else(|| row.src.clone()),
        caller_id_name: row.caller_id_name.clone().unwrap_or_default(),
        dialed_num: row.dst.clone(),
        start: row.start,
        answer: row.answer,
        end: Some(row.end),
        duration: row.duration,
        billsec: row.billsec,
        disposition: row.disposition.as_str().to_owned(),
        channel: row.channel.clone(),
        dst_channel: row.dst_channel.clone(),
        last_app: row.last_app.clone(),
        account_code: row.account_code.clone(),
        userfield: row.userfield.clone(),
        // A CDR names no extension ids: the channels and the number dialled identify
        // the parties, resolved at import.
        caller_extension: None,
        callee_extension: None,
        queue: None,
        transfers: Vec::new(),
    }
}

/// Imports the `cdr_csv` file `file` (times in `timezone`) into `tenant`, attaching the
/// recordings under `recordings` whose file names hold a call's uniqueid, as MP3.
pub async fn asterisk_cdr(
    state: &AppState,
    file: &Path,
    tenant: TenantId,
    recordings: Option<&Path>,
    timezone: chrono_tz::Tz,
) -> anyhow::Result<ImportReport> {
    check_tenant(state, tenant).await?;
    let rows = cdr::read_cdr_file(file, timezone).map_err(anyhow::Error::msg)?;
    let index = match recordings {
        Some(dir) => Some(RecordingIndex::scan(dir).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let mut report = ImportReport {
        read: rows.len(),
        recordings: index.as_ref().map(|_| 0),
        ..ImportReport::default()
    };
    // Transcode and store every recording a call still lacks before writing a row.
    let mut prepared = Vec::with_capacity(rows.len());
    for row in &rows {
        let call = call_report(tenant, row);
        let known = calls::find(&state.db, tenant, &call.unique_id).await?;
        let wants_recording = known.as_ref().is_none_or(|c| c.recording_key.is_none());
        let file = index.as_ref().and_then(|i| i.find(&call.unique_id));
        let recording = match file {
            Some(path) if wants_recording => {
                let bytes = tokio::fs::read(path)
                    .await
                    .with_context(|| format!("reading {}", path.display()))?;
                let recording = engine::recording_to_mp3(Bytes::from(bytes))
                    .await
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                let size = i64::try_from(recording.mp3.len()).unwrap_or(i64::MAX);
                let key =
                    engine::store_recording(&state.storage, tenant, &call.unique_id, recording.mp3)
                        .await
                        .with_context(|| format!("storing {}", path.display()))?;
                Some(engine::StoredRecording {
                    key,
                    bytes: size,
                    seconds: recording.seconds,
                })
            }
            _ => None,
        };
        prepared.push((call, recording));
    }
    let written = async {
        let mut tx = state.db.begin().await?;
        for (call, recording) in &prepared {
            let outcome = engine::record_call(&mut tx, call, recording.as_ref(), now()).await?;
            if outcome.call.is_some() {
                report.imported += 1;
            } else {
                report.unchanged += 1;
            }
            if outcome.recording_attached
                && let Some(count) = report.recordings.as_mut()
            {
                *count += 1;
            }
        }
        tx.commit().await
    };
    if let Err(error) = written.await {
        let stored: Vec<String> = prepared
            .iter()
            .filter_map(|(_, recording)| recording.as_ref().map(|r| r.key.clone()))
            .collect();
        forget(state, &stored).await;
        return Err(error.into());
    }
    Ok(report)
}
