//! Switchboard's domain: the records, their ids, the rules a request must follow to
//! create or change them, who may see what, and how lists are asked for.
//!
//! Nothing here knows about HTTP or SQL; the `api` and `db` crates translate.

// The derives name `::switchboard_domain`, which this crate is to itself too.
extern crate self as switchboard_domain;

pub mod access;
pub mod declare;
pub mod ids;
pub mod list;
pub mod phone;
pub mod provisioning;
pub mod records;
pub mod routing;
pub mod schedule;
pub mod stored;
pub mod validation;

pub use access::{Permission, Principal, Role, Scope};
pub use validation::{Location, Problems};

/// Serde, for the crates below the API that declare serialised payloads (background
/// jobs) and take it from here rather than depending on it themselves: their derives say
/// `#[serde(crate = "switchboard_domain::serde")]`.
pub use serde;
