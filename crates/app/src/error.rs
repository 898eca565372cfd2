//! The use cases' one error type. It names what went wrong in the domain's words; the
//! API turns it into the contract's Error body in one place (`switchboard_api::error`),
//! the command line into a message.

use switchboard_domain::{Location, Problems};

/// Results of use cases.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a use case did not do what it was asked.
#[derive(Debug)]
pub enum Error {
    /// Values break rules: every one found.
    Invalid(Problems),
    /// The caller's role, permissions or scope refuse.
    Forbidden(String),
    /// The request contradicts the state of things (deleting one's own account).
    Conflict(String),
    /// What the request needs is gone for good (a failed fax's document).
    Gone(String),
    /// The content is of a kind the use case does not take (audio that is not audio).
    Unsupported(String),
    /// The service cannot do it now; worth retrying after `retry_after` seconds.
    Unavailable {
        /// What is unavailable, for the caller.
        message: String,
        /// Seconds to wait before retrying.
        retry_after: u64,
    },
    /// The database refused or failed.
    Db(switchboard_db::Error),
    /// The object storage refused or failed.
    Storage(switchboard_storage::StorageError),
    /// A fault of the service, never of the request; the cause is for the log only.
    Internal(String),
}

impl Error {
    /// A fault of the service with `cause` for the log.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Error::Internal(cause.to_string())
    }

    /// One broken rule: `path` at `location` and why.
    pub fn invalid(location: Location, path: &str, message: impl std::fmt::Display) -> Self {
        let mut problems = Problems::new();
        problems.add(location, path, message);
        Error::Invalid(problems)
    }

    /// The 403 of a `field` (`tenantId`, `branchId`, `partnerId`) naming something outside
    /// the caller's scope: the one wording of that refusal.
    pub fn outside_scope(field: &str) -> Self {
        Error::Forbidden(format!("{field} is outside your scope"))
    }

    /// Every broken rule in `problems`, or `Ok` when there is none: for a use case with
    /// nothing else to report beside them.
    pub fn answer(problems: Problems) -> Result<()> {
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Invalid(problems))
        }
    }
}

impl From<Problems> for Error {
    fn from(problems: Problems) -> Self {
        Error::Invalid(problems)
    }
}

impl From<switchboard_db::Error> for Error {
    fn from(error: switchboard_db::Error) -> Self {
        Error::Db(error)
    }
}

impl From<switchboard_storage::StorageError> for Error {
    fn from(error: switchboard_storage::StorageError) -> Self {
        Error::Storage(error)
    }
}
