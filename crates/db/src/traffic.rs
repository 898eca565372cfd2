//! Text messages and faxes the engine reports: each recorded once, with its SMS_* or
//! FAX_* event in the same transaction.

use serde_json::json;
use switchboard_domain::records::traffic::{IngestFax, IngestSms, time_or_now};

use crate::backend::Tx;
use crate::crud::{self, Recorded};
use crate::error::Result;
use crate::events;

/// Records a text message unless its id was recorded before, emitting SMS_RECEIVED
/// (inbound) or SMS_SENT (outbound) for a new one.
pub async fn record_sms(tx: &mut Tx, sms: IngestSms, now: i64) -> Result<Recorded> {
    let media = serde_json::Value::from(sms.media_urls.clone()).to_string();
    let time = time_or_now(sms.time);
    let recorded = crud::insert_once(
        tx,
        "sms_messages",
        &["tenant_id", "message_id"],
        vec![
            ("tenant_id", sms.tenant.get().into()),
            ("message_id", sms.message_id.clone().into()),
            ("direction", sms.direction.clone().into()),
            ("from_number", sms.from.clone().into()),
            ("to_number", sms.to.clone().into()),
            ("body", sms.body.clone().into()),
            ("media_urls", media.into()),
            ("time", time.clone().into()),
            ("created_at", now.into()),
        ],
    )
    .await?;
    if recorded.new {
        let kind = if sms.direction == "inbound" {
            "SMS_RECEIVED"
        } else {
            "SMS_SENT"
        };
        let data = json!({
            "id": recorded.id,
            "messageId": sms.message_id,
            "direction": sms.direction,
            "from": sms.from,
            "to": sms.to,
            "body": sms.body,
            "mediaUrls": sms.media_urls,
            "time": time,
        });
        events::emit(tx, sms.tenant, kind, data, now).await?;
    }
    Ok(recorded)
}

/// Records a fax unless its id was recorded before, emitting FAX_RECEIVED (inbound) or
/// FAX_SENT (outbound) for a new one.
pub async fn record_fax(tx: &mut Tx, fax: IngestFax, now: i64) -> Result<Recorded> {
    let time = time_or_now(fax.time);
    let recorded = crud::insert_once(
        tx,
        "faxes",
        &["tenant_id", "fax_id"],
        vec![
            ("tenant_id", fax.tenant.get().into()),
            ("fax_id", fax.fax_id.clone().into()),
            ("direction", fax.direction.clone().into()),
            ("from_number", fax.from.clone().into()),
            ("to_number", fax.to.clone().into()),
            ("pages", fax.pages.into()),
            ("status", fax.status.clone().into()),
            ("time", time.clone().into()),
            ("created_at", now.into()),
        ],
    )
    .await?;
    if recorded.new {
        let kind = if fax.direction == "inbound" {
            "FAX_RECEIVED"
        } else {
            "FAX_SENT"
        };
        let data = json!({
            "id": recorded.id,
            "faxId": fax.fax_id,
            "direction": fax.direction,
            "from": fax.from,
            "to": fax.to,
            "pages": fax.pages,
            "status": fax.status,
            "time": time,
        });
        events::emit(tx, fax.tenant, kind, data, now).await?;
    }
    Ok(recorded)
}
