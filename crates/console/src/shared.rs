//! What every console handler shares: kept apart from the router (the crate's root), which
//! names every page, so the pages and the visit can hold it without importing the router.

use std::sync::Arc;

use switchboard_api::{AppState, Settings};

use crate::inprocess::InProcess;
use crate::refresh;
use crate::session::Keys;

/// What every console handler shares.
#[derive(Clone)]
pub(crate) struct Console {
    /// The API, called in process.
    pub api: InProcess,
    /// The API's state: where the console asks who a token stands for
    /// ([`switchboard_api::auth::caller::account_of`]), as the API's handlers do.
    pub state: AppState,
    /// The session and form keys.
    pub keys: Arc<Keys>,
    /// The service's settings (trusted proxies, the public URL).
    pub settings: Arc<Settings>,
    /// The access-token refreshes, one per refresh token in the deployment.
    pub refreshes: Arc<refresh::Refreshes>,
}
