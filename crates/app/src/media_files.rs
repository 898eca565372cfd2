//! Media files: uploaded audio, checked and measured from its bytes, stored with its
//! telephony rendition under a generated key.

use switchboard_db::media_files::{self, MediaFileRow, NewMediaFile};
use switchboard_domain::Location;
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::media_file::MediaFileFields;
use switchboard_storage::audio;
use switchboard_storage::audio::telephony::{self, TelephonyError};

use crate::{Error, Result, Services, uploads};

/// The longest an upload waits for a rendition slot before it is refused as busy.
const RENDITION_WAIT: std::time::Duration = std::time::Duration::from_secs(15);

/// What a new media file is called and says, beside its audio.
#[derive(Debug, Default)]
pub struct Described {
    /// Its name.
    pub name: String,
    /// The speech voice of its text, if any.
    pub voice_id: Option<String>,
    /// Its name, language and texts as the record keeps them.
    pub fields: MediaFileFields,
}

/// Creates a media file of `tenant` from the audio `bytes`, described by `described`:
/// the audio is stored ([`store_audio`]) and recorded, and its objects go again when the
/// record cannot be written.
pub async fn create_media_file(
    services: &impl Services,
    tenant: TenantId,
    bytes: Vec<u8>,
    described: Described,
) -> Result<MediaFileRow> {
    let (stored, pledges) = store_audio(services, tenant, bytes).await?;
    let new = NewMediaFile {
        name: described.name,
        voice_id: described.voice_id,
        fields: described.fields,
        ..stored
    };
    match media_files::create(services.db(), tenant, new, &pledges).await {
        Ok(row) => Ok(row),
        Err(error) => {
            // No orphaned audio: the row was not written, so the objects go too.
            uploads::abandon_objects(services, &pledges).await;
            Err(error.into())
        }
    }
}

/// Audio checked, measured and stored with its telephony rendition, ready to be recorded
/// (the name, voice and texts are the caller's to fill in), with the pledged deletions of
/// its objects that recording it must keep (`media_files::create`).
pub async fn store_audio(
    services: &impl Services,
    tenant: TenantId,
    bytes: Vec<u8>,
) -> Result<(NewMediaFile, Vec<i64>)> {
    let format = audio::sniff(&bytes).ok_or_else(|| {
        Error::Unsupported("the file is not WAV, MP3 or OGG (Vorbis or Opus) audio".into())
    })?;
    let duration = audio::duration_seconds(format, &bytes).ok_or_else(|| {
        let message = format!("is not a readable {} file", format.extension());
        Error::invalid(Location::Body, "file", message)
    })?;
    // Made once, here, so the telephony engine never meets a file it cannot play; audio
    // that cannot be decoded is refused and nothing is stored. The slot is waited for a
    // bounded time only: long conversions (a tenant uploading hour-long files) must not
    // queue every other tenant's upload, each holding its body, behind them without end.
    let made = telephony::make(bytes.clone(), Some(RENDITION_WAIT))
        .await
        .map_err(|error| match error {
            TelephonyError::Busy => Error::Unavailable {
                message: "the server is converting other audio for telephony; retry shortly"
                    .into(),
                retry_after: RENDITION_WAIT.as_secs(),
            },
            // No decoder here is the service's fault, not the file's.
            TelephonyError::Missing(error) => {
                tracing::error!(%error, "an Ogg Opus upload cannot be decoded");
                Error::Unavailable {
                    message: "Ogg Opus audio cannot be converted for telephony on this server now"
                        .into(),
                    retry_after: 60,
                }
            }
            TelephonyError::Refused(reason) => Error::Unsupported(format!(
                "the {} file cannot be converted for telephony: {reason}",
                format.extension()
            )),
            TelephonyError::Interrupted(reason) => {
                tracing::warn!(%reason, "converting an upload for telephony was interrupted");
                Error::Unavailable {
                    message:
                        "the server could not finish converting the audio for telephony; retry shortly"
                            .into(),
                    retry_after: RENDITION_WAIT.as_secs(),
                }
            }
            TelephonyError::Failed(reason) => Error::internal(reason),
        })?;
    let rendition = Some(made);
    let stem = format!("tenants/{}/media/{}", tenant.get(), uuid::Uuid::now_v7());
    let key = format!("{stem}.{}", format.extension());
    let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    // Each object's deletion is pledged before it is stored: a request dropped before the
    // record is written leaves no object behind (the record's transaction keeps them).
    let mut pledges = Vec::new();
    let rendition_key = rendition.as_ref().map(|_| format!("{stem}.telephony.wav"));
    let objects = std::iter::once((key.clone(), bytes, format.content_type())).chain(
        rendition
            .zip(rendition_key.clone())
            .map(|(rendition, key)| (key, rendition.bytes, "audio/wav")),
    );
    for (object_key, object, content_type) in objects {
        match uploads::pledge_object(services, &object_key).await {
            Ok(pledge) => pledges.push(pledge),
            Err(error) => {
                // The objects already stored go now, not when their pledges fall due.
                uploads::abandon_objects(services, &pledges).await;
                return Err(error);
            }
        }
        if let Err(error) = services
            .storage()
            .put(&object_key, object.into(), content_type)
            .await
        {
            uploads::abandon_objects(services, &pledges).await;
            return Err(error.into());
        }
    }
    let new = NewMediaFile {
        name: String::new(),
        object_key: key,
        content_type: format.content_type().to_owned(),
        size_bytes: size,
        duration_seconds: duration,
        voice_id: None,
        rendition_key,
        fields: MediaFileFields::default(),
    };
    Ok((new, pledges))
}
