//! Files a browser posts (a campaign's or the opt-out list's CSV, a fax's document): the
//! multipart form read, sent on to the API as one, and the import's summary shown.

use axum::extract::multipart::{Multipart, MultipartRejection};
use serde_json::Value;

use super::{Fields, text};
use crate::visit::PageError;

/// A file of a browser's multipart form.
pub(crate) struct Upload {
    /// Its form field's name.
    pub name: String,
    /// The file's name as the browser gave it.
    pub file_name: String,
    /// Its content type as the browser gave it.
    pub content_type: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// A browser's multipart form: its text fields and its files (a file field left empty
/// is no file). A body that is no multipart form is refused before anything is read.
pub(crate) async fn read_multipart(
    form: Result<Multipart, MultipartRejection>,
) -> Result<(Fields, Vec<Upload>), PageError> {
    let mut form =
        form.map_err(|rejection| PageError::Refused(rejection.status(), rejection.body_text()))?;
    let mut fields = Fields::new();
    let mut uploads = Vec::new();
    let broken =
        |e: axum::extract::multipart::MultipartError| PageError::Refused(e.status(), e.body_text());
    while let Some(part) = form.next_field().await.map_err(broken)? {
        let name = part.name().unwrap_or_default().to_owned();
        match part.file_name().map(str::to_owned) {
            Some(file_name) => {
                let content_type = part
                    .content_type()
                    .unwrap_or("application/octet-stream")
                    .to_owned();
                let bytes = part.bytes().await.map_err(broken)?.to_vec();
                if !file_name.is_empty() || !bytes.is_empty() {
                    uploads.push(Upload {
                        name,
                        file_name,
                        content_type,
                        bytes,
                    });
                }
            }
            None => {
                let value = part.text().await.map_err(broken)?;
                fields.insert(name, value);
            }
        }
    }
    Ok((fields, uploads))
}

/// A `multipart/form-data` body of `texts` and `files` for the API: its content type
/// (with the boundary) and its bytes.
pub(crate) fn multipart_body(texts: &[(&str, &str)], files: &[&Upload]) -> (String, Vec<u8>) {
    let boundary = format!("switchboard-console-{:032x}", rand::random::<u128>());
    let mut body = Vec::new();
    // Names and file names are the console's own or a browser's: quotes and line
    // breaks, which would end the header, are left out.
    let clean = |text: &str| text.replace(['"', '\r', '\n'], "");
    for (name, value) in texts {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"\r\n\r\n",
                clean(name)
            )
            .as_bytes(),
        );
        body.extend_from_slice(value.as_bytes());
        body.extend_from_slice(b"\r\n");
    }
    for file in files {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"; filename=\"{}\"\r\nContent-Type: {}\r\n\r\n",
                clean(&file.name),
                clean(&file.file_name),
                clean(&file.content_type),
            )
            .as_bytes(),
        );
        body.extend_from_slice(&file.bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// A row of an import's answer that was not created.
pub(crate) struct RefusedRow {
    /// Its position in the file, from 1 (the first row after the header).
    pub row: i64,
    /// The number as the file holds it.
    pub input: String,
    /// `duplicate`, `opted-out` or `invalid`, in words.
    pub result: String,
    /// Why.
    pub reason: String,
}

/// An import's answer as the page shows it.
pub(crate) struct ImportView {
    /// Rows created.
    pub created: i64,
    /// Rows already held.
    pub duplicates: i64,
    /// Rows on an opt-out list.
    pub opted_out: i64,
    /// Rows refused for what they hold.
    pub invalid: i64,
    /// Every row not created, in the file's order.
    pub refused: Vec<RefusedRow>,
}

impl ImportView {
    /// The view of the API's import summary.
    pub fn of(summary: &Value) -> ImportView {
        let count = |name: &str| summary[name].as_i64().unwrap_or(0);
        let refused = summary["results"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter(|r| r["result"] != "created")
            .map(|r| {
                let result = text(&r["result"]);
                let reason = match (result.as_str(), r["reason"].as_str()) {
                    (_, Some(reason)) => reason.to_owned(),
                    ("duplicate", None) => match r["id"].as_i64() {
                        Some(id) => format!("already held (record {id})"),
                        None => "already held".to_owned(),
                    },
                    _ => String::new(),
                };
                RefusedRow {
                    row: r["row"].as_i64().unwrap_or(0),
                    input: text(&r["input"]),
                    result: match result.as_str() {
                        "duplicate" => "already held".to_owned(),
                        "opted-out" => "opted out".to_owned(),
                        "invalid" => "refused".to_owned(),
                        other => other.to_owned(),
                    },
                    reason,
                }
            })
            .collect();
        ImportView {
            created: count("created"),
            duplicates: count("duplicates"),
            opted_out: count("optedOut"),
            invalid: count("invalid"),
            refused,
        }
    }
}
