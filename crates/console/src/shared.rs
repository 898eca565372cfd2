//! What every console handler shares: kept apart from the router (the crate's root), which
//! names every page, so the pages and the visit can hold it without importing the router.

use std::sync::Arc;

use futures::future::BoxFuture;
use switchboard_domain::Principal;

use crate::inprocess::InProcess;
use crate::refresh;
use crate::session::Keys;

/// Who an access token stands for — the principal every request of theirs is checked
/// against — asked as the API's own handlers ask it; `None` for a token the API no longer
/// takes, `Err` (its message) when it could not be told.
pub type PrincipalOf =
    Arc<dyn Fn(String) -> BoxFuture<'static, Result<Option<Principal>, String>> + Send + Sync>;

/// What every console handler shares.
#[derive(Clone)]
pub(crate) struct Console {
    /// The API, called in process.
    pub api: InProcess,
    /// Who an access token stands for, as the API's own handlers ask it.
    pub principal_of: PrincipalOf,
    /// The session and form keys.
    pub keys: Arc<Keys>,
    /// The service's public URL (`SWITCHBOARD_PUBLIC_URL`).
    pub public_url: Arc<str>,
    /// The proxies whose forwarding headers are believed (`SWITCHBOARD_TRUSTED_PROXIES`).
    pub trusted_proxies: Arc<[ipnet::IpNet]>,
    /// The access-token refreshes, one per refresh token in the deployment.
    pub refreshes: Arc<refresh::Refreshes>,
}
