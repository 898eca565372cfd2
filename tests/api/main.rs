//! Black-box tests of the running service over HTTP. Every test runs twice: on a fresh
//! SQLite database and on a fresh PostgreSQL database. The harness is crates/testing's
//! (`harness = false`): a test registers itself with `on_both_backends!` or
//! `switchboard_testing::tests!` — a plain `#[test]`/`#[tokio::test]` here would never run
//! (CI refuses one) — and a test whose service is unreachable is reported ignored, with one
//! line saying so, unless its `SWITCHBOARD_TEST_REQUIRE_…=1` (CI) makes it fail.

#![allow(missing_docs, clippy::unwrap_used)]

mod binary;
mod documents;
mod engine;
mod fixture;
mod receiver;
mod support;

mod announcements;
mod atomic_writes;
mod audit_trail;
mod authentication;
mod background_jobs;
mod business_hours;
mod button_layouts;
mod call_campaigns;
mod call_flows;
mod call_recordings;
mod calls;
mod conduits;
mod consistency;
mod console;
mod console_announcements;
mod console_flow;
mod console_hours;
mod console_ivrs;
mod console_media;
mod console_navigation;
mod console_numbers;
mod console_outbound;
mod console_people;
mod console_phones;
mod data_folder;
mod data_moves;
mod delivery_safety;
mod demo;
mod devices;
mod dial_plan;
mod durations;
mod engine_jobs;
mod engine_token;
mod errors;
mod identity;
mod importers;
mod lists;
mod lockout;
mod logs;
mod media_files;
mod messaging;
mod mms_media;
mod monitoring;
mod music_on_hold;
mod observability;
mod openapi;
mod operations;
mod outbound;
mod outbound_work;
mod paging_groups;
mod password_reset;
mod pharmacy_agents;
mod phone_numbers;
mod playable_voicemail;
mod provisioning;
mod records;
mod refusals;
mod release_notes;
mod renditions;
mod reporting;
mod resilience;
mod s3;
mod scope;
mod sealing;
mod security;
mod session_cache;
mod settings;
mod signing_key;
mod statement_budget;
mod text_to_speech;
mod texts_and_faxes;
mod tour;
mod voicemail;
mod walkthrough;
mod webhook_delivery;
mod webhooks;

mod round_trip;
mod routing;

fn main() -> std::process::ExitCode {
    // The tests' own HTTP clients need the process's TLS provider too.
    switchboard_storage::tls::install_ring();
    switchboard_testing::main()
}
