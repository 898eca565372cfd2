//! Announcing a change to every phone of a tenant (its time zone changed), a batch of
//! phones per job: each batch queues the next in its own transaction.

use switchboard_db::devices::{self, Reprovision};

use crate::Jobs;
use crate::queue::Work;

impl Work for Reprovision {
    async fn run(self, jobs: &Jobs) -> Result<(), String> {
        devices::reprovision_batch(jobs.db(), &self)
            .await
            .map_err(|e| format!("the phones could not be announced: {e}"))
    }
}
