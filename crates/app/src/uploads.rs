//! The objects of an upload, kept only when their record is written: each object's
//! deletion is pledged before it is stored, and the record's transaction keeps the
//! pledges (a request dropped half-way leaves no object behind).

use crate::{Result, Services};

/// Pledges the deletion of the object an upload is about to store at `key`, before it is
/// stored (see [`switchboard_db::jobs::pledge_object_deletion`]): due once the upload could
/// no longer be recorded (its timeout, and ten seconds for clocks that differ), so an
/// object whose record is never written is deleted, whatever happened to the request.
pub async fn pledge_object(services: &impl Services, key: &str) -> Result<i64> {
    let grace = services.upload_timeout().as_secs().saturating_add(10);
    let run_at = chrono::Utc::now()
        .timestamp()
        .saturating_add(i64::try_from(grace).unwrap_or(i64::MAX));
    Ok(switchboard_db::jobs::pledge_object_deletion(services.db(), key, run_at).await?)
}

/// Gives up the objects of an upload that is not kept (refused, or failed half-way):
/// their pledged deletions are made due now and the worker woken.
pub async fn abandon_objects(services: &impl Services, pledges: &[i64]) {
    if let Err(error) = switchboard_db::jobs::hasten(services.db(), pledges).await {
        // The pledges stay due at their own time: the objects still go, later.
        tracing::warn!(%error, "could not hasten the deletion of a refused upload's files");
    }
}
