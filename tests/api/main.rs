//! Black-box tests of the running service over HTTP. Every test runs twice: on a fresh
//! SQLite database and on a fresh PostgreSQL database (skipped when PostgreSQL is
//! unreachable, unless `SWITCHBOARD_TEST_REQUIRE_POSTGRES=1`, as CI sets).

#![allow(missing_docs, clippy::unwrap_used)]

mod fixture;
mod receiver;
mod support;

mod announcements;
mod authentication;
mod business_hours;
mod call_recordings;
mod calls;
mod demo;
mod engine_token;
mod errors;
mod identity;
mod importers;
mod lists;
mod lockout;
mod media_files;
mod messaging;
mod mms_media;
mod openapi;
mod operations;
mod paging_groups;
mod phone_numbers;
mod records;
mod s3;
mod scope;
mod security;
mod texts_and_faxes;
mod voicemail;
mod webhook_delivery;
mod webhooks;
