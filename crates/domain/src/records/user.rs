//! User accounts: who logs in, with which role, in which tenant, and the personal settings
//! the spec's User record carries.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::{YES_NO, YesNo};
use crate::access::Role;
use crate::declare::{Body, Filter, Listed, OptionalRef};
use crate::ids::{BranchId, ExtensionId, PartnerId, TenantId, UserId};
use crate::list::BranchedFilter;
use crate::validation::{
    Email, FLAG, ID, Int, KnownPermission, ListOf, Raw, Rule, TimeZone, dial, int, list_of, text,
};

/// Shortest accepted password (NIST SP 800-63B asks at least 8; we ask 12).
pub const PASSWORD_MIN: usize = 12;
/// Longest accepted password; argon2 takes any length, but unbounded input is a DoS lever.
pub const PASSWORD_MAX: usize = 128;
/// The password rule: 12 to 128 characters, and not a common or trivially guessed one.
pub const PASSWORD: Password = Password;

/// Passwords of 12 characters or more that appear near the top of breached-password lists
/// (shorter ones are refused by length already). Compared case-insensitively.
const COMMON_PASSWORDS: &[&str] = &[
    "123456789012",
    "1234567890123",
    "12345678901234",
    "123456789123",
    "1234567891011",
    "111111111111",
    "000000000000",
    "123123123123",
    "qwertyuiopas",
    "qwerty123456",
    "qwertyuiop123",
    "1q2w3e4r5t6y",
    "1qaz2wsx3edc",
    "q1w2e3r4t5y6",
    "zaq12wsxcde3",
    "passwordpassword",
    "password1234",
    "password12345",
    "password123456",
    "password123!",
    "p@ssw0rd1234",
    "passw0rd1234",
    "iloveyou1234",
    "iloveyou12345",
    "welcome12345",
    "welcome123456",
    "letmein12345",
    "administrator",
    "administrator1",
    "changeme1234",
    "football1234",
    "baseball1234",
    "superman1234",
    "sunshine1234",
    "princess1234",
    "abcdefghijkl",
    "abcdefghijklmnop",
    "abcd1234abcd",
    "asdfghjklasd",
    "asdfasdfasdf",
    "qwerasdfzxcv",
    "1234qwerasdf",
    "monkey123456",
    "dragon123456",
    "master123456",
    "trustno1trustno1",
    "whatever1234",
    "starwars1234",
    "computer1234",
    "internet1234",
    "correcthorsebatterystaple",
    "thequickbrownfox",
    "myspace12345",
    "michael12345",
    "jennifer1234",
    "1234567890qwerty",
    "qwerty1234567890",
    "987654321098",
    "098765432109",
];

/// The password rule (see [`PASSWORD`]).
#[derive(Clone, Copy, Debug)]
pub struct Password;

impl Rule for Password {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let password = text(PASSWORD_MIN, PASSWORD_MAX).check(raw)?;
        let lower = password.to_lowercase();
        let distinct = {
            let mut chars: Vec<char> = lower.chars().collect();
            chars.sort_unstable();
            chars.dedup();
            chars.len()
        };
        if COMMON_PASSWORDS.contains(&lower.as_str()) || distinct < 4 {
            return Err("is too common or too easy to guess; choose another".into());
        }
        Ok(password)
    }
    fn schema(&self) -> utoipa::openapi::schema::Schema {
        text(PASSWORD_MIN, PASSWORD_MAX).schema()
    }
    fn example(&self) -> Value {
        Value::String("Tr0ub4dor-and-staples".into())
    }
}

/// A user, as the spec's User record. Ids that do not apply (a platform admin's tenant,
/// a user without extension) are 0; strings that do not apply are empty.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[list(sort(id, email, user_role, tenant_id, title), filter = UserFilter, table = "u", search("email", "title"))]
pub struct User {
    /// The user's id.
    pub id: UserId,
    /// The role number: 1 platform admin, 2 partner admin, 3 tenant admin, 4 branch admin, 5 user.
    #[list(column = "role")]
    pub user_role: i64,
    /// The tenant, 0 for platform and partner admins.
    pub tenant_id: OptionalRef<TenantId>,
    /// The partner, 0 for platform admins.
    pub partner_id: OptionalRef<PartnerId>,
    /// The user's own extension, 0 when none.
    pub ext_id: OptionalRef<ExtensionId>,
    /// The user's branch, 0 when none.
    pub branch_id: OptionalRef<BranchId>,
    /// Login e-mail address.
    pub email: String,
    /// Job title.
    pub title: String,
    /// IANA time zone of the user.
    pub timezone: String,
    /// Path of the avatar image.
    pub avatar_path: String,
    /// Path of the avatar thumbnail.
    pub avatar_thumbnail_path: String,
    /// Path of the cover photo.
    pub cover_photo: String,
    /// Name of the user's extension.
    pub ext_name: String,
    /// Number of the user's extension.
    pub ext_num: String,
    /// Caller id number presented on outbound calls.
    pub caller_id_number: String,
    /// Name of the user's branch.
    pub branch_name: String,
    /// SIP peer name of the user's softphone.
    pub peer_name: String,
    /// SIP secret of the user's softphone; only ever shown to the user itself.
    pub peer_secret: String,
    /// Always empty: one-time codes are never returned.
    pub otp: String,
    /// Multi-factor mode (`app`, `sms`, `email`), empty when off.
    pub mfa_mode: String,
    /// Phone number for SMS codes.
    pub mfa_phone_number: String,
    /// Always empty: TOTP secrets are never returned.
    pub mfa_app_secret: String,
    /// Do-not-disturb (`yes`/`no`).
    pub dnd: String,
    /// Whether outbound calls are recorded (`yes`/`no`).
    pub outbound_record: String,
    /// 1 when the web client uses the dark theme.
    pub dark_mode: i64,
    /// 1 when the mobile client uses the dark theme.
    pub mobile_dark_mode: i64,
    /// 1 when multi-factor login is on.
    pub mfa_enabled: i64,
    /// 1 when the SMS factor is verified.
    pub mfa_sms_verified: i64,
    /// 1 when the authenticator-app factor is verified.
    pub mfa_app_verified: i64,
    /// 1 when the e-mail factor is verified.
    pub mfa_email_verified: i64,
    /// 1 to notify of calls.
    pub enable_call_notifications: i64,
    /// 1 to notify of chats.
    pub enable_chat_notifications: i64,
    /// 1 to notify of every new message.
    pub enable_all_new_message_notifications: i64,
    /// 1 to notify of direct messages.
    pub enable_direct_message_notifications: i64,
    /// 1 to notify of texts.
    pub enable_text_notifications: i64,
    /// 1 to notify after calls.
    pub enable_post_call_notifications: i64,
    /// 1 to notify of texts on mobile.
    pub enable_mobile_text_notifications: i64,
    /// 1 to notify of calls on mobile.
    pub enable_mobile_call_notifications: i64,
    /// 1 to notify of chats on mobile.
    pub enable_mobile_chat_notifications: i64,
    /// 1 to drive busy lights.
    pub enable_busy_lights: i64,
    /// 1 when a Google calendar is linked.
    pub is_google_calendar_authorized: i64,
    /// 1 when an Outlook calendar is linked.
    pub is_outlook_calendar_authorized: i64,
    /// 1 when meetings are enabled.
    pub enable_meetings: i64,
    /// 1 when call transcription is enabled.
    pub enable_transcription: i64,
    /// 1 when the account is disabled (it cannot log in, its tokens stop working).
    pub disabled: i64,
    /// The user's effective permissions (`resource:action`).
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    pub permissions: Vec<String>,
    /// Extra permissions granted beyond the role's, as stored (a JSON array).
    #[serde(skip)]
    pub extra_permissions: String,
}

impl User {
    /// The user's role.
    pub fn role(&self) -> Option<Role> {
        Role::from_number(self.user_role)
    }

    /// The extra permissions as a list.
    pub fn extra_permission_list(&self) -> Vec<String> {
        serde_json::from_str(&self.extra_permissions).unwrap_or_default()
    }
}

/// The personal settings of a user, writable on create and patch; fields not sent
/// stay unchanged.
// Each sent one is written into the column of its name (docs/decisions.md, "Declared
// once").
#[derive(Clone, Debug, Default, Body)]
#[body(changes)]
pub struct UserSettings {
    /// Job title.
    #[field(rule = text(0, 255), column)]
    pub title: Option<String>,
    /// IANA time zone.
    #[field(rule = TimeZone, column)]
    pub timezone: Option<String>,
    /// Path of the avatar image.
    #[field(rule = text(0, 1024), column)]
    pub avatar_path: Option<String>,
    /// Path of the avatar thumbnail.
    #[field(rule = text(0, 1024), column)]
    pub avatar_thumbnail_path: Option<String>,
    /// Path of the cover photo.
    #[field(rule = text(0, 1024), column)]
    pub cover_photo: Option<String>,
    /// Caller id number presented on outbound calls.
    #[field(rule = dial(0, 32), column)]
    pub caller_id_number: Option<String>,
    /// SIP peer name of the softphone.
    #[field(rule = text(0, 255), column)]
    pub peer_name: Option<String>,
    /// SIP secret of the softphone.
    #[field(rule = text(0, 255), column)]
    pub peer_secret: Option<String>,
    /// Do-not-disturb.
    #[field(rule = YES_NO, column)]
    pub dnd: Option<YesNo>,
    /// Whether outbound calls are recorded.
    #[field(rule = YES_NO, column)]
    pub outbound_record: Option<YesNo>,
    /// Dark theme on the web client.
    #[field(rule = FLAG, column)]
    pub dark_mode: Option<i64>,
    /// Dark theme on mobile.
    #[field(rule = FLAG, column)]
    pub mobile_dark_mode: Option<i64>,
    /// Call notifications.
    #[field(rule = FLAG, column)]
    pub enable_call_notifications: Option<i64>,
    /// Chat notifications.
    #[field(rule = FLAG, column)]
    pub enable_chat_notifications: Option<i64>,
    /// Notifications of every new message.
    #[field(rule = FLAG, column)]
    pub enable_all_new_message_notifications: Option<i64>,
    /// Direct-message notifications.
    #[field(rule = FLAG, column)]
    pub enable_direct_message_notifications: Option<i64>,
    /// Text notifications.
    #[field(rule = FLAG, column)]
    pub enable_text_notifications: Option<i64>,
    /// Post-call notifications.
    #[field(rule = FLAG, column)]
    pub enable_post_call_notifications: Option<i64>,
    /// Text notifications on mobile.
    #[field(rule = FLAG, column)]
    pub enable_mobile_text_notifications: Option<i64>,
    /// Call notifications on mobile.
    #[field(rule = FLAG, column)]
    pub enable_mobile_call_notifications: Option<i64>,
    /// Chat notifications on mobile.
    #[field(rule = FLAG, column)]
    pub enable_mobile_chat_notifications: Option<i64>,
    /// Busy lights.
    #[field(rule = FLAG, column)]
    pub enable_busy_lights: Option<i64>,
    /// Meetings.
    #[field(rule = FLAG, column)]
    pub enable_meetings: Option<i64>,
    /// Call transcription.
    #[field(rule = FLAG, column)]
    pub enable_transcription: Option<i64>,
}

/// A role number, 1 (platform admin) to 5 (user).
const ROLE: Int = int(1, 5);

/// The account fields of a user body (create and patch), beside its [`UserSettings`].
#[derive(Clone, Debug, Default, Body)]
pub struct UserAccount {
    /// Login e-mail address, unique (case-insensitively) across the platform.
    #[field(rule = Email)]
    pub email: Option<String>,
    /// The password: 12 to 128 characters, not a common one; stored only as an argon2id hash.
    #[field(rule = PASSWORD)]
    pub password: Option<String>,
    /// Role number, 1 (platform admin) to 5 (user); no caller grants a role above its own.
    #[field(rule = ROLE)]
    pub user_role: Option<i64>,
    /// The tenant (roles 3 to 5); tenant-scoped callers may omit it on create.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// The partner (role 2); taken from the tenant for roles 3 to 5.
    #[field(rule = ID)]
    pub partner_id: Option<PartnerId>,
    /// The user's branch, of its tenant; `null` (or 0, as an answer gives it) for none.
    #[field(rule = ID, zero_none)]
    pub branch_id: Option<Option<BranchId>>,
    /// The user's own extension, of its tenant; `null` (or 0, as an answer gives it) for
    /// none.
    #[field(rule = ID, zero_none)]
    pub ext_id: Option<Option<ExtensionId>>,
    /// Permissions granted beyond the role's defaults.
    #[field(rule = PERMISSIONS)]
    pub permissions: Option<Vec<String>>,
    /// 1 to disable the account (its sessions end at once), 0 to enable it.
    #[field(rule = FLAG)]
    pub disabled: Option<i64>,
}

/// Permission names granted beyond a role's.
const PERMISSIONS: ListOf<KnownPermission> = list_of(KnownPermission, 0, 100);

/// The body of `POST /v2/admin/users/`: `email`, `password` and `userRole` are required.
#[derive(Clone, Debug, Body)]
#[body(require(email, password, userRole))]
pub struct CreateUser {
    /// Account fields; email, password and role are present.
    #[field(flatten)]
    pub account: UserAccount,
    /// Personal settings.
    #[field(flatten)]
    pub settings: UserSettings,
}

/// The body of `PATCH /v2/admin/users/{id}`.
#[derive(Clone, Debug, Body)]
pub struct UpdateUser {
    /// Account fields to change.
    #[field(flatten)]
    pub account: UserAccount,
    /// Settings to change.
    #[field(flatten)]
    pub settings: UserSettings,
}

/// Filters of the user list.
#[derive(Clone, Debug, Default, Filter)]
pub struct UserFilter {
    /// The tenant and branch.
    #[field(flatten)]
    pub place: BranchedFilter,
    /// Only the users of this role.
    #[field(rule = ROLE)]
    pub user_role: Option<i64>,
}

/// Which user a login or token names, and what the store knows of its credentials.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
pub struct Credentials {
    /// The user.
    pub id: UserId,
    /// The argon2id PHC string.
    pub password_hash: String,
}

impl User {
    /// The principal this account acts as: its role, its scope and its effective
    /// permissions. `None` when the account's placement does not fit its role (a tenant
    /// admin without a tenant), which no token may then act as.
    pub fn principal(&self) -> Option<crate::access::Principal> {
        use crate::access::{Principal, Scope, effective_permissions};
        let role = self.role()?;
        let tenant = self.tenant_id.get();
        let scope = match role {
            Role::PlatformAdmin => Scope::Platform,
            Role::PartnerAdmin => Scope::Partner(self.partner_id.get()?),
            Role::TenantAdmin => Scope::Tenant(tenant?),
            Role::BranchAdmin => Scope::Branch(tenant?, self.branch_id.get()?),
            Role::User => Scope::User(tenant?, self.id, self.ext_id.get()),
        };
        Some(Principal {
            user_id: self.id,
            role,
            scope,
            permissions: effective_permissions(role, &self.extra_permission_list()),
        })
    }

    /// Prepares the record to be shown to `viewer`: effective permissions filled in, and
    /// the SIP secret blanked unless the viewer is the user itself (interface §4).
    pub fn shown_to(mut self, viewer: UserId) -> User {
        if let Some(role) = self.role() {
            self.permissions =
                crate::access::effective_permissions(role, &self.extra_permission_list())
                    .into_iter()
                    .map(|p| p.name().to_owned())
                    .collect();
        }
        if viewer != self.id {
            self.peer_secret.clear();
        }
        self
    }
}
