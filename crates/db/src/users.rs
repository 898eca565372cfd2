//! User accounts: credentials for login, the spec's User record with its resolved
//! extension and branch names, and account management within the caller's scope.

use sea_query::{Expr, ExprTrait, Func, Query, SelectStatement, TableRef};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::declare::OptionalRef;
use switchboard_domain::ids::{BranchId, ExtensionId, PartnerId, TenantId, UserId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::user::{Credentials, User, UserFilter, UserSettings};

use crate::backend::{Db, Tx};
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::list::{self, Listing};

/// Columns read as they are stored.
const PLAIN: &[&str] = &[
    "id",
    "email",
    "title",
    "timezone",
    "avatar_path",
    "avatar_thumbnail_path",
    "cover_photo",
    "caller_id_number",
    "peer_name",
    "peer_secret",
    "mfa_mode",
    "mfa_phone_number",
    "dnd",
    "outbound_record",
    "dark_mode",
    "mobile_dark_mode",
    "mfa_enabled",
    "mfa_sms_verified",
    "mfa_app_verified",
    "mfa_email_verified",
    "enable_call_notifications",
    "enable_chat_notifications",
    "enable_all_new_message_notifications",
    "enable_direct_message_notifications",
    "enable_text_notifications",
    "enable_post_call_notifications",
    "enable_mobile_text_notifications",
    "enable_mobile_call_notifications",
    "enable_mobile_chat_notifications",
    "enable_busy_lights",
    "is_google_calendar_authorized",
    "is_outlook_calendar_authorized",
    "enable_meetings",
    "enable_transcription",
    "extra_permissions",
    "disabled",
    "tenant_id",
    "partner_id",
    "ext_id",
    "branch_id",
];

fn empty_if_null(table: &'static str, column: &'static str) -> Expr {
    Func::coalesce([Expr::col((table, column)), Expr::val("")]).into()
}

/// The User record, with the extension and branch names resolved, unconfined.
fn select_all() -> SelectStatement {
    let mut select = Query::select();
    select.from_as("users", "u");
    for column in PLAIN {
        select.column(("u", *column));
    }
    select
        .expr_as(Expr::col(("u", "role")), "user_role")
        .expr_as(empty_if_null("e", "name"), "ext_name")
        .expr_as(empty_if_null("e", "number"), "ext_num")
        .expr_as(empty_if_null("b", "name"), "branch_name")
        // One-time codes and TOTP secrets are never read back (interface §4).
        .expr_as(Expr::val(""), "otp")
        .expr_as(Expr::val(""), "mfa_app_secret")
        .left_join(
            TableRef::from("extensions").alias("e"),
            Expr::col(("e", "id")).equals(("u", "ext_id")),
        )
        .left_join(
            TableRef::from("branches").alias("b"),
            Expr::col(("b", "id")).equals(("u", "branch_id")),
        );
    select
}

/// The User records the caller reaches.
fn select(scope: &Scope) -> SelectStatement {
    let mut select = select_all();
    match *scope {
        Scope::Platform => {}
        Scope::Partner(partner) => {
            select.and_where(Expr::col(("u", "partner_id")).eq(partner.get()));
        }
        Scope::Tenant(tenant) => {
            select.and_where(Expr::col(("u", "tenant_id")).eq(tenant.get()));
        }
        Scope::Branch(tenant, branch) => {
            select
                .and_where(Expr::col(("u", "tenant_id")).eq(tenant.get()))
                .and_where(Expr::col(("u", "branch_id")).eq(branch.get()));
        }
        Scope::User(_, user, _) => {
            select.and_where(Expr::col(("u", "id")).eq(user.get()));
        }
    }
    select
}

/// The credentials of the account with this e-mail address (compared case-insensitively).
#[boxed]
pub async fn credentials_by_email(db: &Db, email: &str) -> Result<Option<Credentials>> {
    let select = Query::select()
        .columns(["id", "password_hash"])
        .from("users")
        .and_where(Expr::col("email_key").eq(email.to_lowercase()))
        .take();
    db.conn().fetch_optional(&select).await
}

/// The user `id`, whatever the scope: for turning a verified token into a principal.
#[boxed]
pub async fn find(db: &Db, id: UserId) -> Result<Option<User>> {
    let mut select = select_all();
    select.and_where(Expr::col(("u", "id")).eq(id.get()));
    db.conn().fetch_optional(&select).await
}

/// Lists the users the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &UserFilter,
    query: &ListQuery,
) -> Result<Listing<User>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.place.tenant.tenant_id {
        select.and_where(Expr::col(("u", "tenant_id")).eq(tenant.get()));
    }
    if let Some(branch) = filter.place.branch_id {
        select.and_where(Expr::col(("u", "branch_id")).eq(branch.get()));
    }
    if let Some(role) = filter.user_role {
        select.and_where(Expr::col(("u", "role")).eq(role));
    }
    list::run(db, select, User::SPEC, query).await
}

/// One user.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: UserId) -> Result<User> {
    crud::get(db, select(scope), "u.id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it): as shown to someone else (another's peer secret is never shown).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<User>> {
    let user: Option<User> = crud::find_on(tx, select(&Scope::Platform), "u.id", id).await?;
    Ok(user.map(|user| user.shown_to(UserId(0))))
}

/// What to store for a user: `None` leaves a field unchanged, `Some(None)` clears it.
#[derive(Clone, Debug, Default)]
pub struct UserWrite {
    /// Login e-mail address.
    pub email: Option<String>,
    /// argon2id PHC string of the new password.
    pub password_hash: Option<String>,
    /// Role number.
    pub role: Option<i64>,
    /// Partner.
    pub partner_id: Option<Option<PartnerId>>,
    /// Tenant.
    pub tenant_id: Option<Option<TenantId>>,
    /// Branch.
    pub branch_id: Option<Option<BranchId>>,
    /// Own extension.
    pub ext_id: Option<Option<ExtensionId>>,
    /// Permissions beyond the role's.
    pub extra_permissions: Option<Vec<String>>,
    /// Disabled flag.
    pub disabled: Option<i64>,
    /// Personal settings.
    pub settings: UserSettings,
}

impl UserWrite {
    /// Whether the write changes what a desk phone's file renders of the user: its SIP
    /// account or the extension the account registers as.
    fn changes_sip_account(&self) -> bool {
        self.settings.peer_name.is_some()
            || self.settings.peer_secret.is_some()
            || self.ext_id.is_some()
    }

    fn changes(self) -> Changes {
        let mut changes: Changes = Vec::new();
        if let Some(email) = self.email {
            changes.push(("email_key", email.to_lowercase().into()));
            changes.push(("email", email.into()));
        }
        if let Some(hash) = self.password_hash {
            changes.push(("password_hash", hash.into()));
        }
        if let Some(role) = self.role {
            changes.push(("role", role.into()));
        }
        if let Some(v) = self.partner_id {
            changes.push(("partner_id", v.map(PartnerId::get).into()));
        }
        if let Some(v) = self.tenant_id {
            changes.push(("tenant_id", v.map(TenantId::get).into()));
        }
        if let Some(v) = self.branch_id {
            changes.push(("branch_id", v.map(BranchId::get).into()));
        }
        if let Some(v) = self.ext_id {
            changes.push(("ext_id", v.map(ExtensionId::get).into()));
        }
        if let Some(permissions) = self.extra_permissions {
            let json = serde_json::to_string(&permissions).unwrap_or_else(|_| "[]".into());
            changes.push(("extra_permissions", json.into()));
        }
        if let Some(disabled) = self.disabled {
            changes.push(("disabled", disabled.into()));
        }
        changes.extend(crate::changes::of(&self.settings));
        changes
    }
}

/// Creates a user; `write` carries e-mail, password hash and role.
#[boxed]
pub async fn create(db: &Db, write: UserWrite) -> Result<User> {
    let extension = write.ext_id.flatten();
    let mut tx = db.begin().await?;
    let id = crud::insert_in(&mut tx, "users", write.changes()).await?;
    if let Some(extension) = extension {
        crate::devices::sip_account_changed(&mut tx, &[extension]).await?;
    }
    tx.commit().await?;
    get(db, &Scope::Platform, UserId(id)).await
}

/// Changes a user and, when `end_sessions` names a reason, ends every session of the
/// account in the same transaction; answers the user and how many sessions ended.
#[boxed]
pub async fn update_ending_sessions(
    db: &Db,
    scope: &Scope,
    id: UserId,
    write: UserWrite,
    end_sessions: Option<&str>,
    now: i64,
) -> Result<(User, u64)> {
    let mut visible = select(scope);
    visible.and_where(Expr::col(("u", "id")).eq(id.get()));
    let mut tx = db.begin().await?;
    let before = tx.fetch_one::<User>(&visible).await?;
    let sip = write.changes_sip_account();
    crud::update_in(&mut tx, "users", id.get(), write.changes()).await?;
    let revoked = match end_sessions {
        Some(reason) => revoke_all_in(&mut tx, id, reason, now).await?,
        None => 0,
    };
    let user: User = tx.fetch_one(&visible).await?;
    if sip {
        let extensions: Vec<ExtensionId> = [before.ext_id, user.ext_id]
            .into_iter()
            .filter_map(OptionalRef::get)
            .collect();
        crate::devices::sip_account_changed(&mut tx, &extensions).await?;
    }
    tx.commit().await?;
    Ok((user, revoked))
}

/// Deletes a user.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: UserId) -> Result<User> {
    let mut visible = select(scope);
    visible.and_where(Expr::col(("u", "id")).eq(id.get()));
    let mut tx = db.begin().await?;
    let user: User = tx.fetch_one(&visible).await?;
    if crud::delete_in(&mut tx, "users", id.get()).await? == 0 {
        // A concurrent delete got there first (PostgreSQL reads without locking).
        return Err(crate::error::Error::NotFound);
    }
    // The phones of its extension fall back to the next user's SIP account.
    let extension: Vec<ExtensionId> = user.ext_id.get().into_iter().collect();
    crate::devices::sip_account_changed(&mut tx, &extension).await?;
    tx.commit().await?;
    Ok(user)
}

/// How many accounts exist.
#[boxed]
pub async fn count(db: &Db) -> Result<i64> {
    let select = Query::select()
        .expr(Expr::cust("COUNT(*)"))
        .from("users")
        .take();
    db.conn().scalar(&select).await
}

/// Revokes every open session of `user` inside a transaction that also changes what made
/// them invalid (a new password, a disabled account), so neither happens without the other.
#[boxed]
pub async fn revoke_all_in(
    tx: &mut crate::Tx,
    user: UserId,
    reason: &str,
    now: i64,
) -> Result<u64> {
    let update = Query::update()
        .table("sessions")
        .values([
            ("revoked_at", now.into()),
            ("revoked_reason", reason.into()),
        ])
        .and_where(Expr::col("user_id").eq(user.get()))
        .and_where(Expr::col("revoked_at").is_null())
        .take();
    tx.execute(&update).await
}

/// The account of session `session` of `user` while the session is open at `now` (not
/// revoked, not expired) and the account enabled, with the session's end: one query
/// for the account and the session (the request path's check of a verified token).
#[boxed]
pub async fn of_open_session(
    db: &Db,
    session: &str,
    user: UserId,
    now: i64,
) -> Result<Option<(User, i64)>> {
    #[derive(switchboard_domain::declare::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        user: User,
        session_expires_at: i64,
    }
    let mut select = select_all();
    select
        .expr_as(Expr::col(("s", "expires_at")), "session_expires_at")
        .inner_join(
            TableRef::from("sessions").alias("s"),
            Expr::col(("s", "user_id")).equals(("u", "id")),
        )
        .and_where(Expr::col(("u", "id")).eq(user.get()))
        .and_where(Expr::col(("u", "disabled")).eq(0i64))
        .and_where(Expr::col(("s", "id")).eq(session))
        .and_where(Expr::col(("s", "revoked_at")).is_null())
        .and_where(Expr::col(("s", "expires_at")).gt(now));
    let row = db.conn().fetch_optional::<Row>(&select).await?;
    Ok(row.map(|row| (row.user, row.session_expires_at)))
}
