//! Deleting an object from storage once its record is gone: queued in the deleting
//! transaction, so an object is never lost track of when storage is briefly unavailable.

use switchboard_db::jobs::DeleteObject;

use crate::Jobs;
use crate::queue::Work;

impl Work for DeleteObject {
    async fn run(self, jobs: &Jobs) -> Result<(), String> {
        // Deleting an object that is already gone succeeds: a retry is harmless.
        jobs.storage()
            .delete(&self.key)
            .await
            .map_err(|e| format!("storage refused the delete: {e}"))
    }
}
