//! One module per resource; each handler declares the permission it needs in its
//! `Caller<…>` argument and passes the caller's scope to every query.

pub mod announcements;
pub mod audit_log;
pub mod authentication;
pub mod branches;
pub mod business_hours;
pub mod button_layouts;
pub mod call_campaigns;
pub mod call_outcomes;
pub mod call_recordings;
pub mod calls;
pub mod conduits;
pub mod custom_voices;
pub mod devices;
pub mod engine_jobs;
pub mod extensions;
pub mod faxes;
pub mod ingest;
pub mod ivrs;
pub mod me;
pub mod media_files;
pub mod messaging;
pub mod music_on_hold;
pub mod objects;
pub mod operations;
pub mod opt_outs;
pub mod paging_groups;
pub mod partners;
pub mod pharmacy_agents;
pub mod phone_numbers;
pub mod provisioning;
pub mod reporting;
pub mod tenants;
pub mod text_to_speech;
pub mod texts;
pub mod users;
pub mod voicemail;
pub mod webhook_deliveries;
pub mod webhooks;

pub mod destinations;
pub mod queues;
