//! Answers a list: one page as JSON, or (`paginated=0`) every record streamed from the
//! database to the client in chunks, so memory stays flat however long the list.

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use serde::Serialize;
use serde_json::{Map, Value};
use switchboard_db::list::Listing;

/// Bytes gathered before a chunk is sent.
const CHUNK: usize = 64 * 1024;

/// The response for `listing`, each record passed through `present` first.
pub fn respond<T, U>(listing: Listing<T>, present: impl Fn(T) -> U + Send + 'static) -> Response
where
    T: Send + 'static,
    U: Serialize + Send + 'static,
{
    respond_with(listing, present, Map::new())
}

/// Like [`respond`], with `extra` members added to the envelope (the voicemail list's
/// `stats`).
pub fn respond_with<T, U>(
    listing: Listing<T>,
    present: impl Fn(T) -> U + Send + 'static,
    extra: Map<String, Value>,
) -> Response
where
    T: Send + 'static,
    U: Serialize + Send + 'static,
{
    match listing {
        Listing::Page(page) => {
            let page = switchboard_domain::list::Page {
                records: page.records.into_iter().map(&present).collect::<Vec<_>>(),
                total_records: page.total_records,
                page: page.page,
                max_page: page.max_page,
            };
            if extra.is_empty() {
                return axum::Json(page).into_response();
            }
            match serde_json::to_value(page) {
                Ok(Value::Object(mut envelope)) => {
                    envelope.extend(extra);
                    axum::Json(envelope).into_response()
                }
                _ => crate::error::ApiError::internal("a page could not be serialised")
                    .into_response(),
            }
        }
        Listing::Stream(rows) => {
            let tail = extra
                .into_iter()
                .map(|(key, value)| format!(",{}:{value}", Value::String(key)))
                .collect::<String>();
            (
                [(header::CONTENT_TYPE, "application/json")],
                Body::from_stream(envelope(rows.map(move |row| row.map(&present)), tail)),
            )
                .into_response()
        }
    }
}

/// `{"records":[…],"totalRecords":N,"page":1,"maxPage":1}`, written as the rows arrive;
/// `tail` (`,"key":value…`) closes the envelope.
fn envelope<U: Serialize + Send + 'static>(
    rows: impl Stream<Item = switchboard_db::Result<U>> + Send + Unpin + 'static,
    tail: String,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    async_stream::try_stream! {
        let mut rows = rows;
        let mut buffer = Vec::with_capacity(CHUNK + 1024);
        buffer.extend_from_slice(b"{\"records\":[");
        let mut count: u64 = 0;
        while let Some(row) = rows.next().await {
            let row = row.map_err(|e| {
                tracing::error!(error = %e, "list stream failed; aborting the response");
                std::io::Error::other("list stream failed")
            })?;
            if count > 0 {
                buffer.push(b',');
            }
            serde_json::to_writer(&mut buffer, &row).map_err(std::io::Error::other)?;
            count += 1;
            if buffer.len() >= CHUNK {
                yield Bytes::from(std::mem::replace(&mut buffer, Vec::with_capacity(CHUNK + 1024)));
            }
        }
        buffer.extend_from_slice(format!("],\"totalRecords\":{count},\"page\":1,\"maxPage\":1{tail}}}").as_bytes());
        yield Bytes::from(buffer);
    }
}

/// Turns a listing of rows into a listing of answers through an asynchronous step (signing
/// URLs, say): the page all at once, the stream row by row as it is read.
pub async fn map_async<T, U, F, Fut>(
    listing: Listing<T>,
    present: F,
) -> Result<Listing<U>, crate::error::ApiError>
where
    T: Send + 'static,
    U: Send + 'static,
    F: Fn(T) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<U, crate::error::ApiError>> + Send + 'static,
{
    match listing {
        Listing::Page(page) => {
            let records =
                futures::future::try_join_all(page.records.into_iter().map(&present)).await?;
            Ok(Listing::Page(switchboard_domain::list::Page {
                records,
                total_records: page.total_records,
                page: page.page,
                max_page: page.max_page,
            }))
        }
        Listing::Stream(rows) => Ok(Listing::Stream(
            rows.then(move |row| {
                let presented = row.map(&present);
                async move {
                    match presented {
                        Ok(future) => future
                            .await
                            .map_err(|e| switchboard_db::Error::Presenting(format!("{e:?}"))),
                        Err(e) => Err(e),
                    }
                }
            })
            .boxed(),
        )),
    }
}
