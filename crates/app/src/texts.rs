//! Texts sent from the tenant's SMS-enabled lines, with media the tenant uploaded: the
//! sender's line and media checked, the text recorded `queued` and queued for the engine.

use switchboard_db::{mms_media, texts};
use switchboard_domain::ids::{MmsMediaId, TextMessageId};
use switchboard_domain::records::traffic::SendText;
use switchboard_domain::{Location, Principal, Problems};

use crate::{Error, Result, Services, tenancy};

/// Sends `text` for `caller` from one of the tenant's SMS-enabled numbers whose texts
/// reach an extension the caller reaches (written any way the tenant's country reads as
/// that number), with the tenant's uploaded media; answers the new text's id. Every
/// broken rule is answered at once.
pub async fn send_text(
    services: &impl Services,
    caller: &Principal,
    text: SendText,
) -> Result<TextMessageId> {
    let tenant = tenancy::tenant_for_write(services, caller, text.tenant_id).await?;
    let mut problems = Problems::new();
    if text.body.trim().is_empty() && text.media_ids.is_empty() {
        problems.add(
            Location::Body,
            "body",
            "is required when no mediaIds are sent",
        );
    }
    let spellings = tenancy::number_spellings(services, tenant, &text.from).await?;
    let line = texts::sms_line(services.db(), &caller.scope, tenant, &spellings).await?;
    if line.is_none() {
        problems.add(
            Location::Body,
            "from",
            "must be an SMS-enabled phone number of the tenant whose texts reach an extension \
             you reach (your own, as a user; your branch's, as a branch admin)",
        );
    }
    let mut media_keys = Vec::new();
    for (i, id) in text.media_ids.iter().enumerate() {
        match mms_media::get(services.db(), &caller.scope, MmsMediaId(*id)).await {
            Ok(file) if file.tenant_id == tenant => media_keys.push(file.object_key),
            Ok(_) | Err(switchboard_db::Error::NotFound) => problems.add(
                Location::Body,
                &format!("mediaIds/{i}"),
                "must name an upload of the tenant",
            ),
            Err(error) => return Err(error.into()),
        }
    }
    Error::answer(problems)?;
    let from = line.ok_or_else(|| Error::internal("a checked line went missing"))?;
    let sms = texts::OutgoingSms {
        tenant,
        // The line as the tenant stores it, however the sender wrote it.
        from,
        to: text.to,
        body: text.body,
        media_urls: sign_media(services, &media_keys).await?,
        media_keys,
    };
    let mut tx = services.db().begin().await?;
    let id = texts::queue_sms(&mut tx, &sms, chrono::Utc::now().timestamp()).await?;
    tx.commit().await?;
    Ok(id)
}

/// Links to the MMS media stored at `keys`, signed now for as long as MMS links last
/// (carriers fetch the media when the text goes out).
pub async fn sign_media(services: &impl Services, keys: &[String]) -> Result<Vec<String>> {
    let mut urls = Vec::with_capacity(keys.len());
    for key in keys {
        let url = services
            .storage()
            .download_url(key, services.mms_url_ttl())
            .await?;
        urls.push(url);
    }
    Ok(urls)
}
