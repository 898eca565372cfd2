//! The [`Caller`] extractor: bearer token → verified user → [`Principal`] with its scope,
//! and the permission the handler declares in its signature checked before it runs.
//! Handlers never parse tokens or compare permissions themselves.

use std::marker::PhantomData;
use std::ops::Deref;

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use switchboard_domain::{Permission, Principal};

use crate::error::ApiError;
use crate::state::AppState;

/// A permission a handler requires, as a type: `Caller<ExtensionsWrite>`.
pub trait Requires: Send + Sync + 'static {
    /// The permission, or `None` when any authenticated caller will do.
    const PERMISSION: Option<Permission>;
}

/// Any authenticated caller.
pub struct Anyone;

impl Requires for Anyone {
    const PERMISSION: Option<Permission> = None;
}

macro_rules! requirements {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("Requires the `", stringify!($name), "` permission.")]
        pub struct $name;
        impl Requires for $name {
            const PERMISSION: Option<Permission> = Some(Permission::$name);
        }
    )*};
}

requirements! {
    PartnersRead, PartnersWrite, TenantsRead, TenantsWrite, BranchesRead, BranchesWrite,
    UsersRead, UsersWrite, ExtensionsRead, ExtensionsWrite, IvrsRead, IvrsWrite,
    PagingGroupsRead, PagingGroupsWrite, BusinessHoursRead, BusinessHoursWrite,
    AnnouncementsRead, AnnouncementsWrite, MediaFilesRead, MediaFilesWrite, AuditLogRead,
    MessagingSend, WebhooksRead, WebhooksWrite, PhoneNumbersRead, PhoneNumbersWrite,
    PhoneNumbersProvision, VoicemailRead, VoicemailWrite, CallRecordingsRead,
    CallRecordingsWrite, IngestWrite, DevicesRead, DevicesWrite,
    QueuesRead, QueuesWrite,
    ConduitsRead, ConduitsWrite,
    PharmacyRead, PharmacyWrite, RefillRequestsRead,
    MusicOnHoldRead, MusicOnHoldWrite,
    MessagingRead, FaxesRead, FaxesWrite,
    CampaignsRead, CampaignsWrite,
}

/// The authenticated caller, holding permission `P`.
pub struct Caller<P: Requires = Anyone> {
    principal: Principal,
    /// The session the caller's token belongs to.
    pub session: String,
    _permission: PhantomData<P>,
}

impl<P: Requires> Deref for Caller<P> {
    type Target = Principal;
    fn deref(&self) -> &Principal {
        &self.principal
    }
}

fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Whether `token` is the telephony engine's configured service token. Digests are
/// compared rather than the tokens, so the comparison's timing says nothing about how
/// much of a guess was right.
fn is_engine(state: &AppState, token: &str) -> bool {
    use sha2::{Digest, Sha256};
    state
        .settings
        .ingest_token
        .as_deref()
        .is_some_and(|expected| Sha256::digest(expected) == Sha256::digest(token))
}

/// The session and account a user's bearer `token` stands for now, checked exactly as
/// every request's is; `None` when the token is no longer good. The console asks it who
/// the signed-in person is, so what its pages offer follows the permissions the API
/// applies ([`Principal::can`]), never a copy of them.
pub async fn account_of(
    state: &AppState,
    token: &str,
) -> Result<Option<(String, switchboard_db::session_cache::Account)>, ApiError> {
    // The signature is checked the first time this process sees the token; its
    // expiry every time.
    let Some(verified) = state.verified_tokens.verify(&state.tokens, token) else {
        return Ok(None);
    };
    // The account and the session are checked on every request (in one query, or
    // from the session cache, which every change to them invalidates), so a deleted or
    // disabled user, a changed role, a logout or a password change take effect at once
    // rather than when the token expires.
    let now = crate::audit::now();
    let account =
        switchboard_db::sessions::account(&state.db, &verified.session, verified.user, now).await?;
    Ok(account.map(|account| (verified.session, account)))
}

impl<P: Requires> FromRequestParts<AppState> for Caller<P> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let token = bearer(parts)
            .ok_or_else(|| ApiError::unauthorized("a bearer access token is required"))?;
        let invalid = || ApiError::unauthorized("the access token is invalid or expired");
        if P::PERMISSION == Some(Permission::IngestWrite) && is_engine(state, token) {
            return Ok(Caller {
                principal: Principal::engine(),
                session: String::new(),
                _permission: PhantomData,
            });
        }
        let (session, account) = account_of(state, token).await?.ok_or_else(invalid)?;
        let principal = account.principal;
        // From here on, the request's writes are audited as this user's; reports pushed to
        // the ingest endpoints record what the engine saw, not an administrative change.
        if P::PERMISSION != Some(Permission::IngestWrite) {
            switchboard_db::audit::identify(principal.user_id, &account.email);
        }
        crate::admission::Identified::note(
            &parts.extensions,
            principal.user_id.get(),
            principal.scope.own_tenant().map(|t| t.get()),
        );
        if let Some(permission) = P::PERMISSION
            && !principal.can(permission)
        {
            return Err(ApiError::forbidden(format!(
                "this operation needs the {} permission",
                permission.name()
            )));
        }
        // Readers of the body that depend on who is asking find the caller here.
        parts.extensions.insert(principal.clone());
        Ok(Caller {
            principal,
            session,
            _permission: PhantomData,
        })
    }
}
