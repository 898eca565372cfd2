//! Faxes sent from the tenant's fax lines: the document checked (a PDF that parses, or a
//! TIFF) and stored, the fax queued for the engine attempt by attempt; a failed fax
//! retried by hand.

use bytes::Bytes;
use switchboard_db::faxes::{self, FaxRow, NewFax};
use switchboard_domain::ids::{FaxId, TenantId};
use switchboard_domain::{Location, Principal};
use switchboard_storage::StorageError;
use switchboard_storage::documents::FaxDocument;

use crate::{Error, Result, Services, tenancy, uploads};

/// A fax to send, its fields checked for shape.
#[derive(Debug)]
pub struct FaxToSend {
    /// The document's bytes.
    pub document: Vec<u8>,
    /// The recipient.
    pub to: String,
    /// The sending number, as the sender wrote it.
    pub from: String,
    /// The tenant a platform or partner admin names; others send as their own.
    pub tenant_id: Option<TenantId>,
}

/// Sends `fax` for `caller`: from a fax-enabled number of the tenant (written any way
/// the tenant's country reads as that number), the document stored; answers the new
/// fax's id. Nothing stays stored when the fax is refused or cannot be recorded.
pub async fn send_fax(
    services: &impl Services,
    caller: &Principal,
    fax: FaxToSend,
) -> Result<FaxId> {
    let tenant = tenancy::tenant_for_write(services, caller, fax.tenant_id).await?;
    let spellings = tenancy::number_spellings(services, tenant, &fax.from).await?;
    // The line as the tenant stores it, however the sender wrote it.
    let Some(from) = faxes::fax_line(services.db(), tenant, &spellings).await? else {
        let message = "must be a fax-enabled phone number of the tenant";
        return Err(Error::invalid(Location::Body, "from", message));
    };
    let stored = store_document(services, tenant, Bytes::from(fax.document)).await?;
    let pledge = stored.pledge;
    let new = NewFax {
        tenant,
        from,
        to: fax.to,
        pages: stored.pages.unwrap_or(0),
        document_key: stored.key,
        document_type: stored.content_type,
        document_bytes: stored.bytes,
    };
    let now = chrono::Utc::now().timestamp();
    match faxes::create(services.db(), &new, pledge, now).await {
        Ok(id) => Ok(id),
        Err(error) => {
            uploads::abandon_objects(services, &[pledge]).await;
            Err(error.into())
        }
    }
}

/// A fax document checked and stored, its deletion pledged until a fax records it.
#[derive(Debug)]
pub struct StoredDocument {
    /// Where it is stored.
    pub key: String,
    /// Its content type.
    pub content_type: &'static str,
    /// Its size in bytes.
    pub bytes: i64,
    /// The pledged deletion of the object, cancelled by the transaction that records it.
    pub pledge: i64,
    /// A PDF's pages; `None` for a TIFF (not counted).
    pub pages: Option<i64>,
}

/// Checks what a fax document is — a PDF must parse within the parsing bounds and hold a
/// page, a TIFF is known by its magic; anything else is refused as unsupported and
/// nothing is stored — and stores it under a new key of `tenant`, its deletion pledged
/// first (so a record never written leaves nothing behind).
pub async fn store_document(
    services: &impl Services,
    tenant: TenantId,
    bytes: Bytes,
) -> Result<StoredDocument> {
    let parsed = {
        let bytes = bytes.clone();
        tokio::task::spawn_blocking(move || switchboard_storage::documents::fax_document(&bytes))
            .await
            .map_err(Error::internal)?
    };
    let kind = parsed.map_err(Error::Unsupported)?;
    let key = format!(
        "tenants/{}/faxes/{}.{}",
        tenant.get(),
        uuid::Uuid::now_v7().simple(),
        kind.extension()
    );
    let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    let pledge = uploads::pledge_object(services, &key).await?;
    if let Err(error) = services
        .storage()
        .put(&key, bytes, kind.content_type())
        .await
    {
        uploads::abandon_objects(services, &[pledge]).await;
        return Err(error.into());
    }
    Ok(StoredDocument {
        key,
        content_type: kind.content_type(),
        bytes: size,
        pledge,
        pages: match kind {
            FaxDocument::Pdf { pages } => Some(pages),
            FaxDocument::Tiff => None,
        },
    })
}

/// Queues a failed fax again as a new attempt of the same fax: a conflict unless it is
/// failed, gone when its document is.
pub async fn retry_fax(services: &impl Services, fax: &FaxRow) -> Result<()> {
    let id = fax.id;
    if fax.status != "failed" {
        return Err(Error::Conflict(format!(
            "fax {id} is {}: only a failed fax is retried",
            if fax.status.is_empty() {
                "not one sent here"
            } else {
                fax.status.as_str()
            }
        )));
    }
    let gone = match &fax.document_key {
        None => true,
        Some(key) => matches!(
            services.storage().get(key, None).await,
            Err(StorageError::NotFound)
        ),
    };
    if gone {
        return Err(Error::Gone(format!(
            "the document of fax {id} is gone: send the fax again"
        )));
    }
    Ok(faxes::retry(services.db(), fax, chrono::Utc::now().timestamp()).await?)
}
