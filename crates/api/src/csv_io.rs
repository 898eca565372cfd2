//! CSV in and out of the HTTP layer: a CSV body (whole, or the `file` part of a
//! multipart form) read into one JSON object per row, and a CSV answer streamed with
//! flat memory, its fields guarded against spreadsheet formulas. The imports and exports
//! of call campaigns' records and of opt-out lists use them.

use axum::body::{Body, Bytes};
use axum::extract::multipart::Multipart;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Map, Value};
use switchboard_domain::{Location, Problems};

use crate::error::{ApiError, ApiResult};
use crate::routes::media_files::{multipart_error, read_limited};

/// Reads a CSV body into one JSON object per data row, keyed by the header row's names
/// (trimmed); at most `max` rows. Reading rows as the JSON bodies they stand for lets one
/// reader judge both forms. A header row without one of the `required` columns is one
/// 400 for the file, not the same error on each of its rows.
pub fn csv_rows(bytes: &[u8], max: usize, required: &[&str]) -> ApiResult<Vec<Value>> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| ApiError::bad_request(format!("the CSV header row cannot be read: {e}")))?
        .iter()
        .map(str::to_owned)
        .collect();
    let mut problems = Problems::new();
    for column in required {
        if !headers.iter().any(|name| name == column) {
            problems.add(
                Location::Body,
                "",
                format!(
                    "must be a CSV whose header row names a {column} column (it names: {})",
                    headers.join(", ")
                ),
            );
        }
    }
    if !problems.is_empty() {
        return Err(ApiError::validation(problems));
    }
    let mut rows = Vec::new();
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(|e| {
            ApiError::bad_request(format!("CSV row {} cannot be read: {e}", index + 1))
        })?;
        if rows.len() == max {
            return Err(ApiError::invalid(
                Location::Body,
                "",
                &format!("must hold at most {max} rows"),
            ));
        }
        let mut object = Map::new();
        for (name, value) in headers.iter().zip(record.iter()) {
            if !name.is_empty() && !value.is_empty() {
                object.insert(name.clone(), Value::String(value.to_owned()));
            }
        }
        rows.push(Value::Object(object));
    }
    if rows.is_empty() {
        return Err(ApiError::invalid(
            Location::Body,
            "",
            "must hold at least 1 row after the header",
        ));
    }
    Ok(rows)
}

/// The CSV of a multipart import: exactly one part, named `file`, read within `limit`
/// bytes; a missing `file`, a second one and any other part are each a 400 naming it.
pub async fn csv_part(mut multipart: Multipart, limit: usize) -> ApiResult<Vec<u8>> {
    let mut file = None;
    let mut problems = Problems::new();
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or_default().to_owned();
        if name != "file" {
            problems.add(
                Location::Body,
                &name,
                "is not a part of an import: send only the CSV, as the part named file",
            );
        } else if file.is_some() {
            problems.add(
                Location::Body,
                "file",
                "must be sent once: one CSV per import",
            );
        } else {
            file = Some(read_limited(field, limit).await?);
        }
    }
    if file.is_none() {
        problems.add(Location::Body, "file", "is required");
    }
    match file {
        Some(file) if problems.is_empty() => Ok(file),
        _ => Err(ApiError::validation(problems)),
    }
}

/// Bytes gathered before a chunk of an export is sent.
const CHUNK: usize = 64 * 1024;

/// One CSV field: quoted when it holds a separator (`,`, or the `;` and tab spreadsheets of
/// some locales split on, so no piece of it becomes a cell of its own), a quote or a line
/// break; a text that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab,
/// carriage return first) gets a leading `'` when `free_text` (names; numbers are E.164
/// and start with `+`).
pub fn csv_field(out: &mut Vec<u8>, value: &str, free_text: bool) {
    let guarded;
    let value = if free_text && value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        guarded = format!("'{value}");
        guarded.as_str()
    } else {
        value
    };
    if value.contains([',', ';', '\t', '"', '\n', '\r']) {
        out.push(b'"');
        out.extend_from_slice(value.replace('"', "\"\"").as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(value.as_bytes());
    }
}

/// A CSV response streamed from `rows`, each written by `write` after `header`.
pub fn csv_response<T: Send + 'static>(
    filename: &str,
    header: &'static str,
    rows: futures::stream::BoxStream<'static, switchboard_db::Result<T>>,
    write: fn(&mut Vec<u8>, &T),
) -> Response {
    let body = async_stream::try_stream! {
        let mut rows = rows;
        let mut buffer = Vec::with_capacity(CHUNK + 1024);
        buffer.extend_from_slice(header.as_bytes());
        buffer.extend_from_slice(b"\r\n");
        while let Some(row) = rows.next().await {
            let row = row.map_err(|e| {
                tracing::error!(error = %e, "export stream failed; aborting the response");
                std::io::Error::other("export stream failed")
            })?;
            write(&mut buffer, &row);
            buffer.extend_from_slice(b"\r\n");
            if buffer.len() >= CHUNK {
                yield Bytes::from(std::mem::replace(&mut buffer, Vec::with_capacity(CHUNK + 1024)));
            }
        }
        yield Bytes::from(buffer);
    };
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{filename}\""),
            ),
        ],
        Body::from_stream::<_>(body.map(|r: Result<Bytes, std::io::Error>| r)),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::csv_field;

    fn field(value: &str) -> String {
        let mut out = Vec::new();
        csv_field(&mut out, value, true);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn no_piece_of_a_field_becomes_a_formula_cell() {
        assert_eq!(field("Ada"), "Ada");
        assert_eq!(field("=1+1"), "'=1+1");
        // Split on `;` (or tab) by a spreadsheet, the second piece would be a formula.
        assert_eq!(
            field("x;=HYPERLINK(\"http://evil\")"),
            "\"x;=HYPERLINK(\"\"http://evil\"\")\""
        );
        assert_eq!(field("x\t=1"), "\"x\t=1\"");
    }
}
