//! What the audit trail shows of each table — the record as the API answers it, read by
//! the table's own module — and the database opened with it. It names every module
//! that presents a record, so it stands above them all; the trail (`crate::audit`) and
//! the transaction that carries its entries stand below them and reach the presenters
//! through the [`AuditHooks`] each transaction is given.

use crate::audit::{object, objects};
use crate::backend::{AuditHooks, ConnectOptions, Db};
use crate::error::Result;

/// A presenter of one row: the module's `present`, as a snapshot.
macro_rules! one {
    ($present:path) => {
        |tx, id| Box::pin(async move { object(serde_json::to_value($present(tx, id).await?)) })
    };
}

/// A presenter of rows just bulk-inserted: the module's, as snapshots.
macro_rules! many {
    ($present:path) => {
        |tx, ids| Box::pin(async move { objects($present(tx, ids).await?) })
    };
}

/// The audit trail's part of every transaction: how its entries are written at commit
/// and how each audited table's records are read as the API answers them (a table not
/// listed keeps its columns).
pub(crate) static AUDIT: AuditHooks = AuditHooks {
    flush: |tx| Box::pin(crate::audit::flush(tx)),
    present: &[
        ("announcements", one!(crate::announcements::present)),
        ("branches", one!(crate::branches::present)),
        ("business_hours", one!(crate::business_hours::present)),
        ("button_layouts", one!(crate::button_layouts::present)),
        ("call_campaigns", one!(crate::call_campaigns::present)),
        ("call_outcomes", one!(crate::call_outcomes::present)),
        ("calls", one!(crate::calls::present)),
        (
            "campaign_records",
            one!(crate::call_campaigns::present_record),
        ),
        ("conduits", one!(crate::conduits::present)),
        ("custom_voices", one!(crate::custom_voices::present)),
        ("devices", one!(crate::devices::present)),
        ("extensions", one!(crate::extensions::present)),
        ("faxes", one!(crate::faxes::present)),
        ("holidays", one!(crate::business_hours::present_holiday)),
        ("ivrs", one!(crate::ivrs::present)),
        ("media_files", one!(crate::media_files::present)),
        ("mms_media", one!(crate::mms_media::present)),
        ("music_on_hold", one!(crate::music_on_hold::present)),
        ("opt_outs", one!(crate::opt_outs::present)),
        ("paging_groups", one!(crate::paging_groups::present)),
        ("partners", one!(crate::partners::present)),
        ("pharmacy_agents", one!(crate::pharmacy_agents::present)),
        ("phone_numbers", one!(crate::phone_numbers::present)),
        ("queues", one!(crate::queues::present)),
        ("tenants", one!(crate::tenants::present)),
        ("users", one!(crate::users::present)),
        ("voicemail_messages", one!(crate::voicemail::present)),
        ("webhooks", one!(crate::webhooks::present)),
    ],
    present_many: &[
        ("opt_outs", many!(crate::opt_outs::present_many)),
        (
            "campaign_records",
            many!(crate::call_campaigns::present_records),
        ),
    ],
};

impl Db {
    /// Opens a pool on `url`: `sqlite://…` (created if missing, WAL, busy timeout,
    /// foreign keys on) or `postgres://…`.
    pub async fn connect(options: &ConnectOptions) -> Result<Db> {
        Db::connect_with(options, &AUDIT).await
    }

    /// The SQLite file at `path` opened immutable, as [`Db::sqlite_schema_version`] opens
    /// it, for reading only: a restore reads the backup's sealed values with it before
    /// anything is copied.
    pub async fn open_sqlite_at_rest(path: &std::path::Path) -> Result<Db> {
        Db::open_sqlite_at_rest_with(path, &AUDIT).await
    }
}
