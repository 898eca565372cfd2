//! Switchboard's object storage: media and MMS files in a local folder or an S3 bucket, signed download
//! URLs for them, and inspection of uploaded audio (format and playing time).

pub mod audio;
pub mod documents;
pub mod kinds;
pub mod signing;
mod store;
pub mod tls;

pub use store::{
    CONTENT_TYPE_DIR, DEFAULT_TIMEOUT, ObjectRange, Storage, StorageError, StoredObject,
};
