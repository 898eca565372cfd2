//! Storage errors, converted from sqlx once, at this boundary.

use thiserror::Error;

/// What can go wrong in the store, in terms the API can answer.
#[derive(Debug, Error)]
pub enum Error {
    /// No record with that id in the caller's scope.
    #[error("not found")]
    NotFound,
    /// A unique value is already taken (the constraint says which).
    #[error("conflict: {0}")]
    Conflict(String),
    /// The record is still referenced by others and cannot go.
    #[error("in use: {0}")]
    InUse(String),
    /// The database failed; never shown to clients.
    #[error(transparent)]
    Database(sqlx::Error),
    /// A streamed record could not be turned into its answer (a URL could not be signed,
    /// say); the stream ends there.
    #[error("presenting a record failed: {0}")]
    Presenting(String),
    /// The database is known to be down (see [`crate::circuit`]); answered at once.
    #[error("the database is unavailable")]
    Unavailable,
    /// A statement got no answer within the statement timeout (a connection gone silent,
    /// or a wait on a lock that long): answered 503, the circuit left to the probe.
    #[error("the database did not answer in time")]
    TimedOut,
    /// Every pooled connection stayed busy for the acquire timeout: this statement is
    /// answered 503, but the circuit stays closed (saturation is not an outage).
    #[error("every database connection is busy")]
    Busy,
    /// Migrations failed.
    #[error(transparent)]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// The 409 of a number provisioned twice, however the second is written.
pub(crate) const PROVISIONED: &str = "this phone number is already provisioned";

/// Results of store operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<sqlx::Error> for Error {
    fn from(error: sqlx::Error) -> Self {
        match &error {
            sqlx::Error::RowNotFound => Error::NotFound,
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                Error::Conflict(unique_message(db.constraint(), db.message()))
            }
            sqlx::Error::Database(db) if db.is_foreign_key_violation() => {
                Error::InUse("the record is referenced by other records".into())
            }
            _ => Error::Database(error),
        }
    }
}

/// A client-safe message for a unique violation: named after the constraint (PostgreSQL)
/// or the columns SQLite reports, never the database's own text.
fn unique_message(constraint: Option<&str>, message: &str) -> String {
    let known = [
        (
            "extensions_number_unique",
            "extensions.number",
            "an extension with this number already exists in the tenant",
        ),
        (
            "users_email_unique",
            "users.email_key",
            "a user with this e-mail address already exists",
        ),
        (
            "paging_groups_number_unique",
            "paging_groups.number",
            "a paging group with this number already exists in the tenant",
        ),
        (
            "phone_numbers_number_unique",
            "phone_numbers.number",
            PROVISIONED,
        ),
        (
            // The number however written (a `+` or not): SQLite names an index on an
            // expression, not its columns.
            "phone_numbers_number_one_form",
            "phone_numbers_number_one_form",
            PROVISIONED,
        ),
        (
            "dial_plan_number_unique",
            "dial_plan.tenant_id",
            "the number is already taken in the tenant's dial plan",
        ),
        (
            // Platform-wide, and said without naming who has it: the owner may be
            // another tenant.
            "devices_mac_unique",
            "devices.mac",
            "a device with this MAC address is already registered",
        ),
        (
            "ivrs_number_unique",
            "ivrs.number",
            "an IVR with this number already exists in the tenant",
        ),
        (
            // Only a concurrent write can reach it: making a default un-sets the old one.
            "music_on_hold_one_default",
            "music_on_hold.tenant_id",
            "the tenant already has a default music on hold",
        ),
        (
            "call_outcomes_name_unique",
            "call_outcomes.tenant_id",
            "a call outcome with this name already exists in the tenant",
        ),
        (
            "campaign_records_number_unique",
            "campaign_records.campaign_id",
            "the campaign already holds this number",
        ),
    ];
    known
        .iter()
        .find(|(name, columns, _)| constraint == Some(*name) || message.contains(columns))
        .map(|(_, _, text)| (*text).to_owned())
        .unwrap_or_else(|| "a record with these values already exists".to_owned())
}
