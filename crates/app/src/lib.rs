//! The application layer: one function per use case, between the stores (`db`, `storage`)
//! and its callers — the HTTP routes, the command line, the demo seeder. A use case takes
//! what it runs against ([`Services`]), the acting [`switchboard_domain::Principal`] and a
//! typed input; it checks scope and references, writes, and answers a domain [`Error`]
//! that each caller turns into its own answer (the API in one conversion, `ApiError`'s).
//!
//! A use case whose HTTP body has a first pass of its own (the API's `Checked` bodies,
//! where every broken rule of both passes is answered at once) comes in steps: `check_*`
//! adds the rules beyond the body's own fields to the caller's problems and answers what
//! the write needs; the write takes that. The one-call form (`create_*`) runs both, for
//! callers holding a typed body already. See docs/decisions.md, "The application layer".

pub mod announcements;
pub mod business_hours;
pub mod button_layouts;
pub mod call_campaigns;
pub mod calls;
pub mod conduits;
pub mod devices;
pub mod engine;
pub mod error;
pub mod extensions;
pub mod faxes;
pub mod ivrs;
pub mod media_files;
pub mod music_on_hold;
pub mod opt_outs;
pub mod paging_groups;
pub mod pharmacy_agents;
pub mod phone_numbers;
pub mod placement;
pub mod queues;
pub mod services;
pub mod tenancy;
pub mod tenants;
pub mod texts;
pub mod uploads;
pub mod users;
pub mod voices;

pub use error::{Error, Result};
pub use placement::{BranchMove, Placement};
pub use services::Services;
