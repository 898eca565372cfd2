//! Who the caller is and what it may reach: roles, permissions and the tenant scope.
//!
//! The HTTP layer turns a token into a [`Principal`] once; every query that reads
//! tenant data takes the principal's [`Scope`] as a parameter (interface §3).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::ids::{BranchId, ExtensionId, PartnerId, TenantId, UserId};
use crate::validation::{Location, Placement, Problems};

/// The five roles of interface §3, numbered as the spec's `userRole`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// Operates the platform: every partner and tenant.
    PlatformAdmin = 1,
    /// Manages the tenants of one partner.
    PartnerAdmin = 2,
    /// Manages one tenant.
    TenantAdmin = 3,
    /// Manages one branch of a tenant.
    BranchAdmin = 4,
    /// An end user: its own extension, mailbox and calls.
    User = 5,
}

impl Role {
    /// Every role, most powerful first.
    pub const ALL: [Role; 5] = [
        Role::PlatformAdmin,
        Role::PartnerAdmin,
        Role::TenantAdmin,
        Role::BranchAdmin,
        Role::User,
    ];

    /// The spec's integer `userRole`.
    pub fn number(self) -> i64 {
        self as i64
    }

    /// The role for a `userRole` integer.
    pub fn from_number(n: i64) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.number() == n)
    }

    /// The CLI name (`tenant-admin`, …).
    pub fn name(self) -> &'static str {
        match self {
            Role::PlatformAdmin => "platform-admin",
            Role::PartnerAdmin => "partner-admin",
            Role::TenantAdmin => "tenant-admin",
            Role::BranchAdmin => "branch-admin",
            Role::User => "user",
        }
    }

    /// The role for a CLI name.
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Whether a caller of this role may create or change an account of `other`'s role:
    /// nobody hands out more power than they hold.
    pub fn may_manage(self, other: Role) -> bool {
        self <= other && self <= Role::BranchAdmin
    }

    /// The permissions the role grants by default.
    pub fn default_permissions(self) -> &'static [Permission] {
        use Permission::*;
        match self {
            Role::PlatformAdmin => Permission::ALL,
            Role::PartnerAdmin => &[
                PartnersRead,
                PhoneNumbersRead,
                PhoneNumbersWrite,
                PhoneNumbersProvision,
                TenantsRead,
                TenantsWrite,
                BranchesRead,
                BranchesWrite,
                UsersRead,
                UsersWrite,
                ExtensionsRead,
                ExtensionsWrite,
                IvrsRead,
                IvrsWrite,
                PagingGroupsRead,
                PagingGroupsWrite,
                QueuesRead,
                QueuesWrite,
                PharmacyRead,
                PharmacyWrite,
                RefillRequestsRead,
                BusinessHoursRead,
                BusinessHoursWrite,
                AnnouncementsRead,
                AnnouncementsWrite,
                MediaFilesRead,
                MediaFilesWrite,
                MessagingSend,
                MessagingRead,
                FaxesRead,
                FaxesWrite,
                WebhooksRead,
                WebhooksWrite,
                AuditLogRead,
                VoicemailRead,
                VoicemailWrite,
                CallRecordingsRead,
                CallRecordingsWrite,
                DevicesRead,
                DevicesWrite,
                ConduitsRead,
                ConduitsWrite,
                MusicOnHoldRead,
                MusicOnHoldWrite,
                CampaignsRead,
                CampaignsWrite,
            ],
            Role::TenantAdmin => &[
                TenantsRead,
                PhoneNumbersRead,
                PhoneNumbersWrite,
                BranchesRead,
                BranchesWrite,
                UsersRead,
                UsersWrite,
                ExtensionsRead,
                ExtensionsWrite,
                IvrsRead,
                IvrsWrite,
                PagingGroupsRead,
                PagingGroupsWrite,
                QueuesRead,
                QueuesWrite,
                PharmacyRead,
                PharmacyWrite,
                RefillRequestsRead,
                BusinessHoursRead,
                BusinessHoursWrite,
                AnnouncementsRead,
                AnnouncementsWrite,
                MediaFilesRead,
                MediaFilesWrite,
                MessagingSend,
                MessagingRead,
                FaxesRead,
                FaxesWrite,
                WebhooksRead,
                WebhooksWrite,
                AuditLogRead,
                VoicemailRead,
                VoicemailWrite,
                CallRecordingsRead,
                CallRecordingsWrite,
                DevicesRead,
                DevicesWrite,
                ConduitsRead,
                MusicOnHoldRead,
                MusicOnHoldWrite,
                CampaignsRead,
                CampaignsWrite,
            ],
            // Branch admins run their branch's call handling; tenant-wide routing (IVRs,
            // paging groups) they may read but not change.
            Role::BranchAdmin => &[
                TenantsRead,
                PhoneNumbersRead,
                BranchesRead,
                UsersRead,
                UsersWrite,
                ExtensionsRead,
                ExtensionsWrite,
                IvrsRead,
                PagingGroupsRead,
                QueuesRead,
                PharmacyRead,
                BusinessHoursRead,
                BusinessHoursWrite,
                AnnouncementsRead,
                AnnouncementsWrite,
                MediaFilesRead,
                MediaFilesWrite,
                MessagingSend,
                VoicemailRead,
                VoicemailWrite,
                CallRecordingsRead,
                DevicesRead,
                DevicesWrite,
                MusicOnHoldRead,
            ],
            // A user reaches its own mailbox and calls only (the scope sees to that).
            Role::User => &[
                TenantsRead,
                BranchesRead,
                ExtensionsRead,
                UsersRead,
                MessagingSend,
                VoicemailRead,
                VoicemailWrite,
                CallRecordingsRead,
            ],
        }
    }
}

macro_rules! permissions {
    ($($(#[$doc:meta])* $variant:ident = $name:literal),* $(,)?) => {
        /// A `resource:action` permission string (interface §3).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Permission {
            $($(#[$doc])* $variant,)*
        }

        impl Permission {
            /// Every permission the service knows.
            pub const ALL: &'static [Permission] = &[$(Permission::$variant,)*];

            /// The wire name, as listed in the login answer.
            pub fn name(self) -> &'static str {
                match self {
                    $(Permission::$variant => $name,)*
                }
            }

            /// The permission of a wire name.
            pub fn from_name(name: &str) -> Option<Permission> {
                match name {
                    $($name => Some(Permission::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

permissions! {
    /// Read partners.
    PartnersRead = "partners:read",
    /// Create, change and delete partners.
    PartnersWrite = "partners:write",
    /// Read tenants.
    TenantsRead = "tenants:read",
    /// Create, change and delete tenants.
    TenantsWrite = "tenants:write",
    /// Read branches.
    BranchesRead = "branches:read",
    /// Create, change and delete branches.
    BranchesWrite = "branches:write",
    /// Read user accounts.
    UsersRead = "users:read",
    /// Create, change and delete user accounts.
    UsersWrite = "users:write",
    /// Read extensions.
    ExtensionsRead = "extensions:read",
    /// Create, change and delete extensions.
    ExtensionsWrite = "extensions:write",
    /// Read IVRs.
    IvrsRead = "ivrs:read",
    /// Create, change and delete IVRs.
    IvrsWrite = "ivrs:write",
    /// Read paging groups.
    PagingGroupsRead = "paging-groups:read",
    /// Create, change and delete paging groups.
    PagingGroupsWrite = "paging-groups:write",
    /// Read business hours and their open-now status.
    BusinessHoursRead = "business-hours:read",
    /// Create, change and delete business hours and holidays.
    BusinessHoursWrite = "business-hours:write",
    /// Read announcements.
    AnnouncementsRead = "announcements:read",
    /// Create, change and delete announcements.
    AnnouncementsWrite = "announcements:write",
    /// Read media files and fetch their audio.
    MediaFilesRead = "media-files:read",
    /// Upload, change and delete media files.
    MediaFilesWrite = "media-files:write",
    /// Read phone numbers.
    PhoneNumbersRead = "phone-numbers:read",
    /// Change the settings of phone numbers.
    PhoneNumbersWrite = "phone-numbers:write",
    /// Provision (create) and release (delete) phone numbers.
    PhoneNumbersProvision = "phone-numbers:provision",
    /// Read webhooks.
    WebhooksRead = "webhooks:read",
    /// Create, change, rotate and delete webhooks.
    WebhooksWrite = "webhooks:write",
    /// Send messages (and upload their media).
    MessagingSend = "messaging:send",
    /// Read the tenant's text messages.
    MessagingRead = "messaging:read",
    /// Read faxes and fetch their documents.
    FaxesRead = "faxes:read",
    /// Send, retry and delete faxes, and set the fax retry policy.
    FaxesWrite = "faxes:write",
    /// Read the audit log.
    AuditLogRead = "audit-log:read",
    /// Read voicemail messages and fetch their audio.
    VoicemailRead = "voicemail:read",
    /// File, mark and delete voicemail messages.
    VoicemailWrite = "voicemail:write",
    /// Read call recordings and fetch their audio.
    CallRecordingsRead = "call-recordings:read",
    /// Delete call recordings.
    CallRecordingsWrite = "call-recordings:write",
    /// Push calls and voicemail messages from the telephony engine.
    IngestWrite = "ingest:write",
    /// Read desk phones, their button layouts and the device-model catalogue.
    DevicesRead = "devices:read",
    /// Create, change and delete desk phones and button layouts; rotate provisioning
    /// credentials.
    DevicesWrite = "devices:write",
    /// Read call queues.
    QueuesRead = "queues:read",
    /// Create, change and delete call queues.
    QueuesWrite = "queues:write",
    /// Read a tenant's conduits (trunks, carrier connections, integrations).
    ConduitsRead = "conduits:read",
    /// Create, change and delete conduits and their sealed credentials.
    ConduitsWrite = "conduits:write",
    /// Read pharmacy agents.
    PharmacyRead = "pharmacy:read",
    /// Read the refill requests pharmacy agents took (callers' numbers and prescription
    /// numbers: health data, so tenant-wide admins only, never a branch admin).
    RefillRequestsRead = "refill-requests:read",
    /// Create, change and delete pharmacy agents.
    PharmacyWrite = "pharmacy:write",
    /// Read music on hold and its playlists.
    MusicOnHoldRead = "music-on-hold:read",
    /// Create, change and delete music on hold (tenant-wide, like paging groups).
    MusicOnHoldWrite = "music-on-hold:write",
    /// Read call campaigns, their records, opt-out lists and call outcomes; export records.
    CampaignsRead = "campaigns:read",
    /// Create, change and delete call campaigns, their records, opt-out entries and call
    /// outcomes; import records and opt-outs.
    CampaignsWrite = "campaigns:write",
}

/// Which tenants' records a caller reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every tenant.
    Platform,
    /// The tenants of one partner.
    Partner(PartnerId),
    /// One tenant.
    Tenant(TenantId),
    /// One tenant, and within it the records of one branch.
    Branch(TenantId, BranchId),
    /// One tenant, and within it only the user's own records.
    User(TenantId, UserId, Option<ExtensionId>),
}

impl Scope {
    /// The keys this caller must send in a body of `placement` (see [`Placement`]): the
    /// tenant when it spans several, the branch when it has none of its own.
    pub fn must_send(&self, placement: Placement) -> impl Iterator<Item = &'static str> {
        let tenant = (placement.tenant && self.own_tenant().is_none()).then_some("tenantId");
        let branch = (placement.branch && self.own_branch().is_none()).then_some("branchId");
        tenant.into_iter().chain(branch)
    }

    /// Adds `'body/KEY' is required` for each key this caller must send in a body of
    /// `placement` that `body` lacks (absent or null) and that no other problem already
    /// names.
    pub fn check_placement(&self, placement: Placement, body: &Value, problems: &mut Problems) {
        for key in self.must_send(placement) {
            let sent = body.get(key).is_some_and(|v| !v.is_null());
            if !sent && !problems.names(Location::Body, key) {
                problems.add(Location::Body, key, "is required");
            }
        }
    }

    /// The single tenant a tenant-bound caller is confined to; `None` for platform and
    /// partner admins, who span several.
    pub fn own_tenant(&self) -> Option<TenantId> {
        match *self {
            Scope::Platform | Scope::Partner(_) => None,
            Scope::Tenant(t) | Scope::Branch(t, _) | Scope::User(t, _, _) => Some(t),
        }
    }

    /// The branch a branch admin is confined to.
    pub fn own_branch(&self) -> Option<BranchId> {
        match *self {
            Scope::Branch(_, b) => Some(b),
            _ => None,
        }
    }
}

/// The authenticated caller: who, with which role, reaching what, allowed to do what.
#[derive(Clone, Debug)]
pub struct Principal {
    /// The caller's user id.
    pub user_id: UserId,
    /// The caller's role.
    pub role: Role,
    /// What the caller reaches.
    pub scope: Scope,
    /// Effective permissions: the role's defaults plus any granted to the user.
    pub permissions: BTreeSet<Permission>,
}

impl Principal {
    /// Whether the caller holds `permission`.
    pub fn can(&self, permission: Permission) -> bool {
        self.permissions.contains(&permission)
    }
}

/// The effective permissions of a role with extra grants, as wire names in a stable order.
pub fn effective_permissions(role: Role, extra: &[String]) -> BTreeSet<Permission> {
    role.default_permissions()
        .iter()
        .copied()
        .chain(extra.iter().filter_map(|p| Permission::from_name(p)))
        .collect()
}

impl Principal {
    /// The telephony engine, authenticated by the configured service token: it may push
    /// records for any tenant and do nothing else.
    pub fn engine() -> Principal {
        Principal {
            user_id: UserId(0),
            role: Role::PlatformAdmin,
            scope: Scope::Platform,
            permissions: [Permission::IngestWrite].into_iter().collect(),
        }
    }

    /// The operator at the command line: a platform admin that is no account.
    pub fn operator() -> Principal {
        Principal {
            user_id: UserId(0),
            role: Role::PlatformAdmin,
            scope: Scope::Platform,
            permissions: Permission::ALL.iter().copied().collect(),
        }
    }
}
