//! The application layer's [`switchboard_app::Services`] for the API's state: its stores
//! and settings, and the rules the API still keeps — where a written record lands
//! ([`crate::tenancy`]) and password hashing ([`crate::auth::password`]) — lent to the
//! use cases, their refusals carried back as made.

use std::time::Duration;

use switchboard_db::Db;
use switchboard_domain::ids::{BranchId, TenantId};
use switchboard_domain::{Principal, Problems};
use switchboard_storage::Storage;

use crate::error::ApiError;
use crate::state::AppState;
use crate::tenancy;

impl switchboard_app::Services for AppState {
    fn db(&self) -> &Db {
        &self.db
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn upload_timeout(&self) -> Duration {
        self.settings.upload_timeout
    }

    fn wake_campaigns(&self) {
        self.jobs.wake_campaigns();
    }

    async fn hash_password(&self, password: String) -> switchboard_app::Result<String> {
        self.passwords
            .hash(password)
            .await
            .map_err(|error| ApiError::from(error).into())
    }

    async fn tenant_for_write(
        &self,
        caller: &Principal,
        requested: Option<TenantId>,
    ) -> switchboard_app::Result<TenantId> {
        Ok(tenancy::tenant_for_write(self, caller, requested).await?)
    }

    async fn branch_for_write(
        &self,
        caller: &Principal,
        tenant: TenantId,
        requested: Option<BranchId>,
        problems: &mut Problems,
    ) -> switchboard_app::Result<Option<BranchId>> {
        Ok(tenancy::branch_for_write(self, caller, tenant, requested, problems).await?)
    }
}
