//! Switchboard's persistence: one code base of queries, built once with sea-query and
//! rendered for SQLite (the embedded default) or PostgreSQL (for scale).
//!
//! The only `match` on the backend lives in [`backend`]; every repository module below
//! builds statements and hands them to it. Every function that reads tenant data takes
//! the caller's [`Scope`](switchboard_domain::Scope) first ([`scope`]).

pub mod backend;
pub mod changes;
pub mod circuit;
pub mod crud;
pub mod custom_voices;
pub mod error;
pub mod lease;
pub mod list;
pub mod locks;
pub mod scope;
pub mod seal;
pub mod session_cache;
pub mod statements;
pub mod wakeups;

pub mod announcements;
pub mod audit;
pub mod backups;
pub mod branches;
pub mod business_hours;
pub mod button_layouts;
pub mod call_campaigns;
pub mod call_outcomes;
pub mod calls;
pub mod conduits;
pub mod console_refreshes;
pub mod deliveries;
pub mod destinations;
pub mod devices;
pub mod dial_plan;
pub mod engine_jobs;
pub mod events;
pub mod extensions;
pub mod faxes;
pub mod identity;
pub mod in_use;
pub mod ivrs;
pub mod jobs;
pub mod media_files;
pub mod mms_media;
pub mod music_on_hold;
pub mod opt_outs;
pub mod outbound;
pub mod owner;
pub mod paging_groups;
pub mod partners;
pub mod pharmacy_agents;
pub mod phone_numbers;
mod presented;
pub mod queues;
pub mod reports;
pub mod routing;
pub mod security;
pub mod sessions;
pub mod synthetic;
pub mod tenants;
#[cfg(test)]
mod test_database;
pub mod texts;
pub mod transfer;
pub mod users;
pub mod voicemail;
pub mod webhooks;

pub use backend::{Db, Reader, Record, Tx};
pub use error::{Error, Result};
