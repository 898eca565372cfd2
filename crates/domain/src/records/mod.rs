//! The records of the catalogue: what each answers, what creating and changing it takes,
//! and how its list may be filtered and sorted.

pub mod announcement;
pub mod audit;
pub mod branch;
pub mod business_hour;
pub mod button_layout;
pub mod call;
pub mod call_campaign;
pub mod call_outcome;
pub mod conduit;
pub mod custom_voice;
pub mod destination;
pub mod device;
pub mod device_model;
pub mod engine_job;
pub mod extension;
pub mod fax;
pub mod ivr;
pub mod media_file;
pub mod mms_media;
pub mod music_on_hold;
pub mod opt_out;
pub mod paging_group;
pub mod partner;
pub mod pharmacy_agent;
pub mod phone_number;
pub mod queue;
pub mod report;
pub mod speech;
pub mod tenant;
pub mod traffic;
pub mod user;
pub mod voicemail;
pub mod webhook;
pub mod webhook_delivery;

use crate::validation::{Among, Text, among, text};

/// A display name: 1 to 255 characters.
pub const NAME: Text = text(1, 255);

crate::closed_set! {
    /// A yes/no string flag, as the spec writes some settings.
    pub enum YesNo {
        /// On.
        Yes = "yes",
        /// Off.
        No = "no",
    }
}

/// A yes/no string flag, as read.
pub const YES_NO: Among<YesNo> = among();
