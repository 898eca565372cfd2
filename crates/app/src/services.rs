//! What the use cases run against. The API's `AppState` is one (`switchboard_api`
//! implements this trait for it), so the routes, the command line and the demo seeder
//! hand the use cases the same stores and settings.

use std::future::Future;
use std::time::Duration;

use switchboard_db::Db;
use switchboard_storage::Storage;

use crate::Result;

/// The stores, settings and the one borrowed rule a use case needs: password hashing
/// stays with `switchboard_api::auth`, which owns the hashing threads.
pub trait Services: Send + Sync {
    /// The database.
    fn db(&self) -> &Db;

    /// Object storage for audio and media.
    fn storage(&self) -> &Storage;

    /// Seals the secrets stored in the database (a device's Digest secrets, say), each
    /// bound to its row.
    fn sealer(&self) -> &switchboard_db::seal::Sealer;

    /// Text-to-speech: the engine and its voice catalogue.
    fn speech(&self) -> &switchboard_speech::Speech;

    /// Longest an upload may take: an upload's objects are pledged for deletion this long
    /// (and a little more) after they are stored, unless their record keeps them.
    fn upload_timeout(&self) -> Duration;

    /// How long links to MMS media last: carriers fetch the media when the text goes out,
    /// which may be long after it was sent here.
    fn mms_url_ttl(&self) -> Duration;

    /// Wakes this process's campaign scheduler at once, so the due records of a campaign
    /// that starts running or gains records are queued without waiting a tick.
    fn wake_campaigns(&self);

    /// The stored hash of `password`.
    fn hash_password(&self, password: String) -> impl Future<Output = Result<String>> + Send;
}
