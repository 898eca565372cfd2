//! What the use cases run against. The API's `AppState` is one (`switchboard_api`
//! implements this trait for it), so the routes, the command line and the demo seeder
//! hand the use cases the same stores and settings.

use std::future::Future;
use std::time::Duration;

use switchboard_db::Db;
use switchboard_domain::ids::{BranchId, TenantId};
use switchboard_domain::{Principal, Problems};
use switchboard_storage::Storage;

use crate::Result;

/// The stores, settings and borrowed rules a use case needs.
///
/// Two rules stay in the HTTP crate for now and are borrowed through here: where a written
/// record lands (`switchboard_api::tenancy`, a security file with a mutation record, to
/// move here with that record refreshed) and password hashing (`switchboard_api::auth`,
/// which owns the hashing threads). Their refusals come back as [`crate::Error::Answered`].
pub trait Services: Send + Sync {
    /// The database.
    fn db(&self) -> &Db;

    /// Object storage for audio and media.
    fn storage(&self) -> &Storage;

    /// Longest an upload may take: an upload's objects are pledged for deletion this long
    /// (and a little more) after they are stored, unless their record keeps them.
    fn upload_timeout(&self) -> Duration;

    /// Wakes this process's campaign scheduler at once, so the due records of a campaign
    /// that starts running or gains records are queued without waiting a tick.
    fn wake_campaigns(&self);

    /// The stored hash of `password`.
    fn hash_password(&self, password: String) -> impl Future<Output = Result<String>> + Send;

    /// The tenant a new record of `caller` belongs to, from the `tenantId` it names (if
    /// any): its own, one in its scope, or a refusal.
    fn tenant_for_write(
        &self,
        caller: &Principal,
        requested: Option<TenantId>,
    ) -> impl Future<Output = Result<TenantId>> + Send;

    /// The branch of a new or changed branch-bearing record of `caller` in `tenant`: a
    /// branch admin's own, otherwise the one named, which must be of the tenant (a
    /// problem of `body/branchId` added to `problems` otherwise).
    fn branch_for_write(
        &self,
        caller: &Principal,
        tenant: TenantId,
        requested: Option<BranchId>,
        problems: &mut Problems,
    ) -> impl Future<Output = Result<Option<BranchId>>> + Send;
}
