//! The application layer's [`switchboard_app::Services`] for the API's state: its stores
//! and settings, and password hashing ([`crate::auth::password`], which owns the hashing
//! threads) lent to the use cases, its refusals converted in one
//! place (`crate::error`).

use std::time::Duration;

use switchboard_db::Db;
use switchboard_storage::Storage;

use crate::state::AppState;

impl switchboard_app::Services for AppState {
    fn db(&self) -> &Db {
        &self.db
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn sealer(&self) -> &switchboard_db::seal::Sealer {
        &self.sealer
    }

    fn speech(&self) -> &switchboard_speech::Speech {
        &self.speech
    }

    fn upload_timeout(&self) -> Duration {
        self.settings.upload_timeout
    }

    fn mms_url_ttl(&self) -> Duration {
        self.settings.mms_url_ttl
    }

    fn wake_campaigns(&self) {
        self.jobs.wake_campaigns();
    }

    async fn hash_password(&self, password: String) -> switchboard_app::Result<String> {
        Ok(self.passwords.hash(password).await?)
    }
}
