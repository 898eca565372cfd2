//! Pure readers of the files an Asterisk PBX leaves behind, for the `switchboard import asterisk-*`
//! commands: the app_voicemail spool ([`voicemail`]), cdr_csv's `Master.csv` ([`cdr`]), MixMonitor
//! recordings matched to calls ([`recordings`]), and WAV to MP3 conversion for storage ([`transcode`]).
//!
//! No database and no network here. Every reader validates its whole input before it answers, so a
//! caller that gets `Ok` can import everything and a caller that gets `Err` has imported nothing
//! (the error names the file and, where there is one, the line).

pub mod caller_id;
pub mod cdr;
mod error;
pub mod recordings;
pub mod transcode;
pub mod voicemail;

pub use error::ImportError;
