//! A newtype per record id, so a tenant id cannot be passed where a branch id belongs.

use serde::{Deserialize, Serialize};

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "sqlx", derive(switchboard_declare::SqlNewtype))]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl $name {
            /// The raw integer, for binding into queries and URLs.
            pub fn get(self) -> i64 {
                self.0
            }
        }

        impl From<i64> for $name {
            fn from(id: i64) -> Self {
                Self(id)
            }
        }

        impl From<$name> for i64 {
            fn from(id: $name) -> i64 {
                id.0
            }
        }

        impl $crate::stored::ToColumn for $name {
            fn to_column(&self) -> $crate::stored::ColumnValue {
                $crate::stored::ColumnValue::Int(Some(self.0))
            }
            fn null() -> $crate::stored::ColumnValue {
                $crate::stored::ColumnValue::Int(None)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::Integer)
                    .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                        utoipa::openapi::KnownFormat::Int64,
                    )))
                    .minimum(Some(1.0))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}
    )*};
}

ids! {
    /// Identifies a partner (a reseller owning tenants).
    PartnerId,
    /// Identifies a tenant (one customer business).
    TenantId,
    /// Identifies a branch (a site of a tenant).
    BranchId,
    /// Identifies a user account.
    UserId,
    /// Identifies an extension (a dialable endpoint inside a tenant).
    ExtensionId,
    /// Identifies an IVR.
    IvrId,
    /// Identifies a paging group.
    PagingGroupId,
    /// Identifies a media file.
    MediaFileId,
    /// Identifies a business-hours record.
    BusinessHourId,
    /// Identifies a holiday of a business-hours record.
    HolidayId,
    /// Identifies an announcement.
    AnnouncementId,
    /// Identifies a desk phone.
    DeviceId,
    /// Identifies a button layout of desk phones.
    ButtonLayoutId,
    /// Identifies a tenant's custom text-to-speech voice.
    CustomVoiceId,
    /// Identifies a call queue.
    QueueId,
    /// Identifies a conduit (a tenant's SIP trunk, carrier connection or integration).
    ConduitId,
    /// Identifies a pharmacy agent (a pharmacy tenant's refill line).
    PharmacyAgentId,
    /// Identifies a music-on-hold playlist.
    MusicOnHoldId,
    /// Identifies a call campaign.
    CallCampaignId,
    /// Identifies a record (a number to call) of a call campaign.
    CampaignRecordId,
    /// Identifies an entry of an opt-out (do-not-call) list.
    OptOutId,
    /// Identifies a tenant's call outcome (disposition).
    CallOutcomeId,
    /// Identifies a phone number provisioned to a tenant.
    PhoneNumberId,
    /// Identifies a webhook (a URL a tenant's events are delivered to).
    WebhookId,
    /// Identifies one delivery attempt of an event to a webhook.
    DeliveryId,
    /// Identifies a voicemail message.
    VoicemailMessageId,
    /// Identifies a fax, sent or received.
    FaxId,
    /// Identifies a text message (SMS or MMS), sent or received.
    TextMessageId,
    /// Identifies an uploaded MMS media file.
    MmsMediaId,
    /// Identifies an entry of the audit trail.
    AuditEntryId,
    /// Identifies an event of a tenant (what webhooks deliver).
    EventId,
    /// Identifies a job of the engine's work queue (a fax, a text or a campaign call).
    EngineJobId,
    /// Identifies a call as stored (the API names a call by its engine's unique id).
    CallId,
    /// Identifies a refill request a pharmacy agent took.
    RefillRequestId,
}
