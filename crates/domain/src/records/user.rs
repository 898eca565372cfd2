//! User accounts: who logs in, with which role, in which tenant, and the personal settings
//! the spec's User record carries.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AllOfBuilder, Schema};
use utoipa::{PartialSchema, ToSchema};

use crate::access::Role;
use crate::ids::{BranchId, ExtensionId, PartnerId, TenantId, UserId};
use crate::list::{FilterDoc, FilterKind, ListSpec, SortField};
use crate::validation::{
    Email, FLAG, FromBody, FromQuery, ID, ObjectReader, OneOf, Problems, QueryReader, Raw, Rule,
    TimeZone, dial, int, text,
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
}

/// A user, as the spec's User record. Ids that do not apply (a platform admin's tenant,
/// a user without extension) are 0; strings that do not apply are empty.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct User {
    /// The user's id.
    pub id: i64,
    /// The role number: 1 platform admin, 2 partner admin, 3 tenant admin, 4 branch admin, 5 user.
    pub user_role: i64,
    /// The tenant, 0 for platform and partner admins.
    pub tenant_id: i64,
    /// The partner, 0 for platform admins.
    pub partner_id: i64,
    /// The user's own extension, 0 when none.
    pub ext_id: i64,
    /// The user's branch, 0 when none.
    pub branch_id: i64,
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
    #[schema(ignore)]
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

/// A settings value to store: the column it goes to is named beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingValue {
    /// An integer flag.
    Int(i64),
    /// A string.
    Text(String),
}

macro_rules! user_settings {
    ($( $(#[$attr:meta])* $field:ident : $ty:ty = $json:literal => $column:literal, $rule:expr, $into:expr; )*) => {
        /// The personal settings of a user, writable on create and patch; fields not sent
        /// stay unchanged.
        #[derive(Clone, Debug, Default, ToSchema)]
        #[schema(rename_all = "camelCase")]
        pub struct UserSettings {
            $( $(#[$attr])* #[schema(nullable = false)] pub $field: Option<$ty>, )*
        }

        impl UserSettings {
            fn read(r: &mut ObjectReader<'_>) -> Option<UserSettings> {
                let mut ok = true;
                $( let $field = r.optional($json, &$rule); ok &= $field.is_ok(); )*
                ok.then(|| UserSettings { $( $field: $field.ok().flatten(), )* })
            }

            /// The columns to store and their values, for the fields that were sent.
            pub fn columns(&self) -> Vec<(&'static str, SettingValue)> {
                let mut out = Vec::new();
                $( if let Some(v) = &self.$field { out.push(($column, ($into)(v.clone()))); } )*
                out
            }
        }
    };
}

user_settings! {
    /// Job title.
    #[schema(max_length = 255)]
    title: String = "title" => "title", text(0, 255), SettingValue::Text;
    /// IANA time zone.
    timezone: String = "timezone" => "timezone", TimeZone, SettingValue::Text;
    /// Path of the avatar image.
    #[schema(max_length = 1024)]
    avatar_path: String = "avatarPath" => "avatar_path", text(0, 1024), SettingValue::Text;
    /// Path of the avatar thumbnail.
    #[schema(max_length = 1024)]
    avatar_thumbnail_path: String = "avatarThumbnailPath" => "avatar_thumbnail_path", text(0, 1024), SettingValue::Text;
    /// Path of the cover photo.
    #[schema(max_length = 1024)]
    cover_photo: String = "coverPhoto" => "cover_photo", text(0, 1024), SettingValue::Text;
    /// Caller id number presented on outbound calls.
    #[schema(max_length = 32, pattern = "^[0-9*#+]*$")]
    caller_id_number: String = "callerIdNumber" => "caller_id_number", dial(0, 32), SettingValue::Text;
    /// SIP peer name of the softphone.
    #[schema(max_length = 255)]
    peer_name: String = "peerName" => "peer_name", text(0, 255), SettingValue::Text;
    /// SIP secret of the softphone.
    #[schema(max_length = 255)]
    peer_secret: String = "peerSecret" => "peer_secret", text(0, 255), SettingValue::Text;
    /// Do-not-disturb.
    #[schema(pattern = "^(yes|no)$")]
    dnd: String = "dnd" => "dnd", OneOf(&["yes", "no"]), SettingValue::Text;
    /// Whether outbound calls are recorded.
    #[schema(pattern = "^(yes|no)$")]
    outbound_record: String = "outboundRecord" => "outbound_record", OneOf(&["yes", "no"]), SettingValue::Text;
    /// Dark theme on the web client.
    #[schema(minimum = 0, maximum = 1)]
    dark_mode: i64 = "darkMode" => "dark_mode", FLAG, SettingValue::Int;
    /// Dark theme on mobile.
    #[schema(minimum = 0, maximum = 1)]
    mobile_dark_mode: i64 = "mobileDarkMode" => "mobile_dark_mode", FLAG, SettingValue::Int;
    /// Call notifications.
    #[schema(minimum = 0, maximum = 1)]
    enable_call_notifications: i64 = "enableCallNotifications" => "enable_call_notifications", FLAG, SettingValue::Int;
    /// Chat notifications.
    #[schema(minimum = 0, maximum = 1)]
    enable_chat_notifications: i64 = "enableChatNotifications" => "enable_chat_notifications", FLAG, SettingValue::Int;
    /// Notifications of every new message.
    #[schema(minimum = 0, maximum = 1)]
    enable_all_new_message_notifications: i64 = "enableAllNewMessageNotifications" => "enable_all_new_message_notifications", FLAG, SettingValue::Int;
    /// Direct-message notifications.
    #[schema(minimum = 0, maximum = 1)]
    enable_direct_message_notifications: i64 = "enableDirectMessageNotifications" => "enable_direct_message_notifications", FLAG, SettingValue::Int;
    /// Text notifications.
    #[schema(minimum = 0, maximum = 1)]
    enable_text_notifications: i64 = "enableTextNotifications" => "enable_text_notifications", FLAG, SettingValue::Int;
    /// Post-call notifications.
    #[schema(minimum = 0, maximum = 1)]
    enable_post_call_notifications: i64 = "enablePostCallNotifications" => "enable_post_call_notifications", FLAG, SettingValue::Int;
    /// Text notifications on mobile.
    #[schema(minimum = 0, maximum = 1)]
    enable_mobile_text_notifications: i64 = "enableMobileTextNotifications" => "enable_mobile_text_notifications", FLAG, SettingValue::Int;
    /// Call notifications on mobile.
    #[schema(minimum = 0, maximum = 1)]
    enable_mobile_call_notifications: i64 = "enableMobileCallNotifications" => "enable_mobile_call_notifications", FLAG, SettingValue::Int;
    /// Chat notifications on mobile.
    #[schema(minimum = 0, maximum = 1)]
    enable_mobile_chat_notifications: i64 = "enableMobileChatNotifications" => "enable_mobile_chat_notifications", FLAG, SettingValue::Int;
    /// Busy lights.
    #[schema(minimum = 0, maximum = 1)]
    enable_busy_lights: i64 = "enableBusyLights" => "enable_busy_lights", FLAG, SettingValue::Int;
    /// Meetings.
    #[schema(minimum = 0, maximum = 1)]
    enable_meetings: i64 = "enableMeetings" => "enable_meetings", FLAG, SettingValue::Int;
    /// Call transcription.
    #[schema(minimum = 0, maximum = 1)]
    enable_transcription: i64 = "enableTranscription" => "enable_transcription", FLAG, SettingValue::Int;
}

/// The account fields of a user body (create and patch), beside its [`UserSettings`].
#[derive(Clone, Debug, Default, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct UserAccount {
    /// Login e-mail address, unique (case-insensitively) across the platform.
    #[schema(
        min_length = 3,
        max_length = 254,
        pattern = "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$"
    )]
    #[schema(nullable = false)]
    pub email: Option<String>,
    /// The password: 12 to 128 characters, not a common one; stored only as an argon2id hash.
    #[schema(nullable = false, min_length = 12, max_length = 128)]
    pub password: Option<String>,
    /// Role number, 1 (platform admin) to 5 (user); no caller grants a role above its own.
    #[schema(nullable = false, minimum = 1, maximum = 5)]
    pub user_role: Option<i64>,
    /// The tenant (roles 3 to 5); tenant-scoped callers may omit it on create.
    #[schema(nullable = false, minimum = 1)]
    pub tenant_id: Option<TenantId>,
    /// The partner (role 2); taken from the tenant for roles 3 to 5.
    #[schema(nullable = false, minimum = 1)]
    pub partner_id: Option<PartnerId>,
    /// The user's branch, of its tenant; `null` for none.
    #[schema(minimum = 1)]
    pub branch_id: Option<Option<BranchId>>,
    /// The user's own extension, of its tenant; `null` for none.
    #[schema(minimum = 1)]
    pub ext_id: Option<Option<ExtensionId>>,
    /// Permissions granted beyond the role's defaults.
    #[schema(nullable = false)]
    pub permissions: Option<Vec<String>>,
    /// 1 to disable the account (its sessions end at once), 0 to enable it.
    #[schema(nullable = false, minimum = 0, maximum = 1)]
    pub disabled: Option<i64>,
}

/// The body of `POST /v2/admin/users/`: `email`, `password` and `userRole` are required.
#[derive(Clone, Debug)]
pub struct CreateUser {
    /// Account fields; email, password and role are present.
    pub account: UserAccount,
    /// Personal settings.
    pub settings: UserSettings,
}

/// The body of `PATCH /v2/admin/users/{id}`.
#[derive(Clone, Debug)]
pub struct UpdateUser {
    /// Account fields to change.
    pub account: UserAccount,
    /// Settings to change.
    pub settings: UserSettings,
}

fn read_account(r: &mut ObjectReader<'_>, create: bool) -> Option<UserAccount> {
    let email = r.required_if(create, "email", &Email);
    let password = r.required_if(create, "password", &PASSWORD);
    let user_role = r.required_if(create, "userRole", &int(1, 5));
    let tenant_id = r.optional("tenantId", &ID);
    let partner_id = r.optional("partnerId", &ID);
    let branch_id = r.nullable("branchId", &ID);
    let ext_id = r.nullable("extId", &ID);
    let permissions = r.strings("permissions", &crate::validation::KnownPermission);
    let disabled = r.optional("disabled", &FLAG);
    Some(UserAccount {
        email: email.ok()?,
        password: password.ok()?,
        user_role: user_role.ok()?,
        tenant_id: tenant_id.ok()?.map(TenantId),
        partner_id: partner_id.ok()?.map(PartnerId),
        branch_id: branch_id.ok()?.map(|b| b.map(BranchId)),
        ext_id: ext_id.ok()?.map(|e| e.map(ExtensionId)),
        permissions: permissions.ok()?,
        disabled: disabled.ok()?,
    })
}

fn read_user(body: &Value, create: bool) -> Result<(UserAccount, UserSettings), Problems> {
    let mut problems = Problems::new();
    let parts = ObjectReader::body(body, &mut problems).map(|mut r| {
        let account = read_account(&mut r, create);
        let settings = UserSettings::read(&mut r);
        (account, settings)
    });
    problems.finish(|| {
        let (account, settings) = parts?;
        Some((account?, settings?))
    })
}

impl FromBody for CreateUser {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        read_user(body, true).map(|(account, settings)| CreateUser { account, settings })
    }
}

impl FromBody for UpdateUser {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        read_user(body, false).map(|(account, settings)| UpdateUser { account, settings })
    }
}

fn all_of(title: &str, required: &[&str]) -> RefOr<Schema> {
    let mut account = match UserAccount::schema() {
        RefOr::T(Schema::Object(object)) => object,
        other => return other,
    };
    account.required = required.iter().map(|s| s.to_string()).collect();
    AllOfBuilder::new()
        .title(Some(title))
        .item(Schema::Object(account))
        .item(UserSettings::schema())
        .into()
}

impl PartialSchema for CreateUser {
    fn schema() -> RefOr<Schema> {
        all_of("CreateUser", &["email", "password", "userRole"])
    }
}
impl ToSchema for CreateUser {}

impl PartialSchema for UpdateUser {
    fn schema() -> RefOr<Schema> {
        all_of("UpdateUser", &[])
    }
}
impl ToSchema for UpdateUser {}

/// Filters of the user list.
#[derive(Clone, Debug, Default)]
pub struct UserFilter {
    /// Only the users of this tenant.
    pub tenant_id: Option<TenantId>,
    /// Only the users of this branch.
    pub branch_id: Option<BranchId>,
    /// Only the users of this role.
    pub user_role: Option<i64>,
}

impl FromQuery for UserFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mut q = QueryReader::new(params, &mut problems);
        let tenant_id = q.optional("tenantId", &ID).map(TenantId);
        let branch_id = q.optional("branchId", &ID).map(BranchId);
        let user_role = q.optional("userRole", &int(1, 5));
        problems.finish(|| {
            Some(UserFilter {
                tenant_id,
                branch_id,
                user_role,
            })
        })
    }
}

/// Sorting and search of the user list.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "u.id",
        },
        SortField {
            name: "email",
            column: "u.email",
        },
        SortField {
            name: "userRole",
            column: "u.role",
        },
        SortField {
            name: "tenantId",
            column: "u.tenant_id",
        },
        SortField {
            name: "title",
            column: "u.title",
        },
    ],
    search_columns: &["u.email", "u.title"],
    search_index: None,
};

/// Which user a login or token names, and what the store knows of its credentials.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Credentials {
    /// The user.
    pub id: UserId,
    /// The argon2id PHC string.
    pub password_hash: String,
}

impl crate::list::ListFilter for UserFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[
        FilterDoc {
            name: "tenantId",
            description: "Only the users of this tenant.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "branchId",
            description: "Only the users of this branch.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "userRole",
            description: "Only the users of this role.",
            kind: FilterKind::Int(1, 5),
        },
    ];
}

impl User {
    /// The principal this account acts as: its role, its scope and its effective
    /// permissions. `None` when the account's placement does not fit its role (a tenant
    /// admin without a tenant), which no token may then act as.
    pub fn principal(&self) -> Option<crate::access::Principal> {
        use crate::access::{Principal, Scope, effective_permissions};
        let role = self.role()?;
        let positive = |n: i64| (n > 0).then_some(n);
        let tenant = positive(self.tenant_id).map(TenantId);
        let scope = match role {
            Role::PlatformAdmin => Scope::Platform,
            Role::PartnerAdmin => Scope::Partner(PartnerId(positive(self.partner_id)?)),
            Role::TenantAdmin => Scope::Tenant(tenant?),
            Role::BranchAdmin => Scope::Branch(tenant?, BranchId(positive(self.branch_id)?)),
            Role::User => Scope::User(
                tenant?,
                UserId(self.id),
                positive(self.ext_id).map(ExtensionId),
            ),
        };
        Some(Principal {
            user_id: UserId(self.id),
            role,
            scope,
            permissions: effective_permissions(role, &self.extra_permission_list()),
        })
    }

    /// Prepares the record to be shown to `viewer`: effective permissions filled in, and
    /// the SIP secret blanked unless the viewer is the user itself (CONTRACT §4).
    pub fn shown_to(mut self, viewer: UserId) -> User {
        if let Some(role) = self.role() {
            self.permissions =
                crate::access::effective_permissions(role, &self.extra_permission_list())
                    .into_iter()
                    .map(|p| p.name().to_owned())
                    .collect();
        }
        if viewer.get() != self.id {
            self.peer_secret.clear();
        }
        self
    }
}
