//! The object store itself: a local folder or an S3 bucket behind one API, byte ranges, and download URLs.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt, TryStreamExt};
use object_store::aws::{AmazonS3, AmazonS3Builder, AmazonS3ConfigKey};
use object_store::buffered::BufWriter;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::signer::{Method, Signer};
use object_store::{
    Attribute, Attributes, GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutOptions,
    PutPayload,
};

use crate::signing::UrlSigner;

/// Folder (under a local store's root) holding each object's content type, mirroring the key layout.
/// Object keys may not have segments starting with '.', so it never collides with an object.
pub const CONTENT_TYPE_DIR: &str = ".content-type";

/// Longest object key accepted, in bytes (S3 allows 1024 including the prefix).
const MAX_KEY_LEN: usize = 900;

/// How long one call to the store may take unless configured (`SWITCHBOARD_STORAGE_TIMEOUT_SECONDS`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// A call carrying bytes gets one more second per this many of them: a large upload
/// needs its time on a slow link, a stalled store is found as soon as a small one.
const BYTES_PER_EXTRA_SECOND: u64 = 1024 * 1024;

/// The size of one part of a multipart upload ([`BufWriter`]'s default): the most a
/// streamed upload's write may wait to send.
const PART_BYTES: u64 = 10 * 1024 * 1024;

/// Why a storage operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// No object is stored under the key.
    #[error("object not found")]
    NotFound,
    /// The asked byte range lies outside the object (HTTP 416), of `size` bytes (which
    /// the answer's `Content-Range: bytes */size` tells the client).
    #[error("requested range not satisfiable")]
    RangeNotSatisfiable {
        /// The object's length in bytes.
        size: u64,
    },
    /// The storage URL or the rest of the storage configuration (signing key, S3 options) is unusable.
    #[error("invalid storage configuration: {0}")]
    InvalidUrl(String),
    /// The backend failed, or the caller passed an invalid key or content type.
    #[error("storage backend error: {0}")]
    Backend(String),
    /// The store did not answer within its timeout (a stalled S3, a hung mount): the
    /// operation was given up.
    #[error("the object store did not answer within {seconds} s")]
    TimedOut {
        /// The time it was given.
        seconds: u64,
    },
}

impl From<object_store::Error> for StorageError {
    fn from(error: object_store::Error) -> Self {
        match error {
            object_store::Error::NotFound { .. } => StorageError::NotFound,
            other => StorageError::Backend(other.to_string()),
        }
    }
}

/// A single byte range as asked by an HTTP `Range` header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectRange {
    /// `bytes=a-b`: from `a` to `b`, `b` inclusive.
    FromTo(u64, u64),
    /// `bytes=a-`: from `a` to the end.
    From(u64),
    /// `bytes=-n`: the last `n` bytes.
    Suffix(u64),
}

impl ObjectRange {
    /// Parses a single-range `Range` header value ("bytes=0-99"); None for anything else.
    pub fn parse_header(value: &str) -> Option<ObjectRange> {
        let (unit, spec) = value.trim().split_once('=')?;
        if !unit.trim().eq_ignore_ascii_case("bytes") {
            return None;
        }
        let (first, last) = spec.trim().split_once('-')?;
        match (parse_decimal(first), parse_decimal(last)) {
            (Some(a), Some(b)) if a <= b => Some(ObjectRange::FromTo(a, b)),
            (Some(a), None) if last.is_empty() => Some(ObjectRange::From(a)),
            (None, Some(n)) if first.is_empty() => Some(ObjectRange::Suffix(n)),
            _ => None,
        }
    }

    /// The bytes this range serves of an object of `size` bytes (HTTP semantics: an end past the object
    /// is clipped); None when unsatisfiable (starts at or past the end, empty suffix, empty object).
    pub fn resolve(self, size: u64) -> Option<Range<u64>> {
        match self {
            ObjectRange::FromTo(a, b) if a <= b && a < size => {
                Some(a..b.saturating_add(1).min(size))
            }
            ObjectRange::From(a) if a < size => Some(a..size),
            ObjectRange::Suffix(n) if n > 0 && size > 0 => Some(size.saturating_sub(n)..size),
            _ => None,
        }
    }
}

/// Parses a plain run of ASCII digits (no sign, no spaces).
fn parse_decimal(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// An object being read.
pub struct StoredObject {
    /// Size of the whole object in bytes.
    pub size: u64,
    /// The bytes of the object served by `body` (the whole object when no range was asked).
    pub range: Range<u64>,
    /// The content type given when the object was stored, when the backend kept it.
    pub content_type: Option<String>,
    /// The served bytes, in order.
    pub body: BoxStream<'static, Result<Bytes, StorageError>>,
}

impl StoredObject {
    /// Collects the whole body into memory (for small objects and tests).
    pub async fn into_bytes(self) -> Result<Bytes, StorageError> {
        let parts: Vec<Bytes> = self.body.try_collect().await?;
        Ok(parts.concat().into())
    }
}

impl fmt::Debug for StoredObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredObject")
            .field("size", &self.size)
            .field("range", &self.range)
            .field("content_type", &self.content_type)
            .finish_non_exhaustive()
    }
}

/// Object storage over a local folder (default) or an S3-compatible bucket.
///
/// Every call to the store is bounded ([`Storage::with_timeout`]): a store that stops
/// answering fails the operations that need it with [`StorageError::TimedOut`] instead
/// of holding them (and their requests) for the S3 client's minutes of retries.
#[derive(Clone)]
pub struct Storage {
    inner: Arc<Inner>,
    timeout: Duration,
}

struct Inner {
    backend: Backend,
    signer: UrlSigner,
    /// Base of local download URLs, without a trailing slash.
    public_url: String,
}

enum Backend {
    Local {
        store: Arc<LocalFileSystem>,
        root: PathBuf,
    },
    S3 {
        store: Arc<AmazonS3>,
        bucket: String,
        /// Prepended to every key, without slashes at either end; empty for none.
        prefix: String,
    },
}

impl fmt::Debug for Storage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Hand-written so that neither the signing key nor S3 credentials can end up in logs.
        let mut out = f.debug_struct("Storage");
        match &self.inner.backend {
            Backend::Local { root, .. } => out.field("root", root),
            Backend::S3 { bucket, prefix, .. } => {
                out.field("bucket", bucket).field("prefix", prefix)
            }
        };
        out.field("public_url", &self.inner.public_url)
            .finish_non_exhaustive()
    }
}

impl Storage {
    /// Opens `url`: `file://relative/or/absolute/path` (folder created if missing) or `s3://bucket[/prefix]`
    /// (credentials, region and endpoint from the usual `AWS_*` environment variables, including
    /// `AWS_ENDPOINT_URL` and `AWS_ALLOW_HTTP`). `signing_key` (at least 32 bytes) signs local download
    /// URLs; `public_url` (e.g. "http://127.0.0.1:8080") is the base of those URLs.
    pub fn open(url: &str, signing_key: &[u8], public_url: &str) -> Result<Storage, StorageError> {
        Self::open_with_s3_options(url, signing_key, public_url, &[])
    }

    /// Like [`Storage::open`], with S3 settings that override the environment's: pairs of an
    /// object_store `AmazonS3ConfigKey` name and its value, e.g. `("aws_endpoint", "http://127.0.0.1:9000")`,
    /// `("aws_access_key_id", …)`, `("aws_secret_access_key", …)`, `("aws_region", …)`, `("aws_allow_http", "true")`.
    /// Ignored for `file://` URLs.
    pub fn open_with_s3_options(
        url: &str,
        signing_key: &[u8],
        public_url: &str,
        s3_options: &[(&str, &str)],
    ) -> Result<Storage, StorageError> {
        let signer = UrlSigner::new(signing_key).ok_or_else(|| {
            StorageError::InvalidUrl(format!(
                "the signing key must be at least {} bytes",
                UrlSigner::MIN_KEY_LEN
            ))
        })?;
        let public_url = public_url.trim_end_matches('/').to_owned();
        let backend = if let Some(folder) = url.strip_prefix("file://") {
            open_local(folder)?
        } else if url.starts_with("s3://") {
            open_s3(url, s3_options)?
        } else {
            return Err(StorageError::InvalidUrl(format!(
                "{url:?}: expected file://path or s3://bucket[/prefix]"
            )));
        };
        Ok(Storage {
            inner: Arc::new(Inner {
                backend,
                signer,
                public_url,
            }),
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// This store with each call given `timeout` to answer (one second more per MiB it
    /// carries); [`DEFAULT_TIMEOUT`] unless set.
    pub fn with_timeout(mut self, timeout: Duration) -> Storage {
        self.timeout = timeout;
        self
    }

    /// `work`, a call to the store carrying `bytes`, given up with
    /// [`StorageError::TimedOut`] when it takes longer than the timeout allows.
    async fn within<T>(
        &self,
        bytes: u64,
        work: impl Future<Output = Result<T, StorageError>>,
    ) -> Result<T, StorageError> {
        let limit = self.timeout + Duration::from_secs(bytes / BYTES_PER_EXTRA_SECOND);
        match tokio::time::timeout(limit, work).await {
            Ok(result) => result,
            Err(_) => {
                tracing::warn!(seconds = limit.as_secs(), "the object store did not answer");
                Err(StorageError::TimedOut {
                    seconds: limit.as_secs(),
                })
            }
        }
    }

    /// `items`, each of which must come within the timeout (a listing's pages, a
    /// download's chunks: a long one goes on as long as it progresses).
    fn progressing<T: Send + 'static>(
        &self,
        items: BoxStream<'static, Result<T, StorageError>>,
    ) -> BoxStream<'static, Result<T, StorageError>> {
        let timeout = self.timeout;
        futures::stream::unfold(Some(items), move |items| async move {
            let mut items = items?;
            match tokio::time::timeout(timeout, items.next()).await {
                Ok(Some(item)) => Some((item, Some(items))),
                Ok(None) => None,
                Err(_) => {
                    tracing::warn!(seconds = timeout.as_secs(), "the object store stalled");
                    let stalled = StorageError::TimedOut {
                        seconds: timeout.as_secs(),
                    };
                    Some((Err(stalled), None))
                }
            }
        })
        .boxed()
    }

    /// Whether [`Storage::open`] would take `url` (its form only: nothing is created or
    /// reached), saying why not; for checking the settings before anything starts.
    pub fn check_url(url: &str) -> Result<(), StorageError> {
        if let Some(folder) = url.strip_prefix("file://") {
            if folder.is_empty() {
                return Err(StorageError::InvalidUrl(
                    "file:// needs a folder path".into(),
                ));
            }
            Ok(())
        } else if url.starts_with("s3://") {
            parse_s3_url(url).map(drop)
        } else {
            Err(StorageError::InvalidUrl(format!(
                "{url:?}: expected file://path or s3://bucket[/prefix]"
            )))
        }
    }

    /// Whether the store answers now, within the timeout: the local folder exists, or the
    /// bucket answers a metadata read (a missing object is an answer). For monitoring:
    /// readiness does not ask it (the routes that need the store answer for it).
    pub async fn reachable(&self) -> bool {
        match &self.inner.backend {
            Backend::Local { root, .. } => tokio::fs::metadata(root)
                .await
                .is_ok_and(|meta| meta.is_dir()),
            Backend::S3 { store, .. } => {
                let probe = Path::from(".readiness-probe");
                let answered = self.within(0, async {
                    match store.head(&probe).await {
                        Ok(_) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                        Err(error) => Err(error.into()),
                    }
                });
                answered.await.is_ok()
            }
        }
    }

    /// The local folder of a `file://` store (for backups); `None` on S3.
    pub fn local_root(&self) -> Option<&std::path::Path> {
        match &self.inner.backend {
            Backend::Local { root, .. } => Some(root),
            Backend::S3 { .. } => None,
        }
    }

    /// The store and the prefix its objects are listed under (the S3 prefix; none for a
    /// local folder).
    fn listing(&self) -> (Option<Path>, Arc<dyn ObjectStore>) {
        match &self.inner.backend {
            Backend::Local { store, .. } => (None, store.clone() as Arc<dyn ObjectStore>),
            Backend::S3 { prefix, store, .. } => (
                (!prefix.is_empty()).then(|| Path::from(prefix.as_str())),
                store.clone() as Arc<dyn ObjectStore>,
            ),
        }
    }

    /// Something the store holds — any file of the local folder, any object under the S3
    /// prefix (the rest of the bucket aside) — or `None` when it holds nothing: whether it
    /// is empty, found without listing it whole.
    pub async fn any_entry(&self) -> Result<Option<String>, StorageError> {
        let (prefix, store) = self.listing();
        let listed = store
            .list(prefix.as_ref())
            .map_err(StorageError::from)
            .boxed();
        let first = self.progressing(listed).next().await.transpose()?;
        let strip = prefix.map(|p| format!("{p}/")).unwrap_or_default();
        Ok(first.map(|meta| {
            let location = meta.location.to_string();
            location
                .strip_prefix(&strip)
                .map_or(location.clone(), str::to_owned)
        }))
    }

    /// Every object's key, sorted (for copying a store into another): the keys `put`
    /// took, without the S3 prefix and without the local store's content-type notes.
    pub async fn keys(&self) -> Result<Vec<String>, StorageError> {
        Ok(self
            .sizes()
            .await?
            .into_iter()
            .map(|(key, _)| key)
            .collect())
    }

    /// Every object's key with its size in bytes, sorted by key (as [`Storage::keys`]).
    pub async fn sizes(&self) -> Result<Vec<(String, u64)>, StorageError> {
        let (prefix, store) = self.listing();
        let listed = store
            .list(prefix.as_ref())
            .map_err(StorageError::from)
            .boxed();
        let metas: Vec<_> = self.progressing(listed).try_collect().await?;
        let strip = prefix.map(|p| format!("{p}/")).unwrap_or_default();
        let mut sizes: Vec<(String, u64)> = metas
            .into_iter()
            .filter_map(|meta| {
                let location = meta.location.to_string();
                let key = location.strip_prefix(&strip)?.to_owned();
                Some((key, meta.size))
            })
            .filter(|(key, _)| !key.starts_with(CONTENT_TYPE_DIR))
            .collect();
        sizes.sort();
        Ok(sizes)
    }

    /// Whether `key` is one `put` accepts (relative, no segment starting with `.`, a safe
    /// alphabet): a key listed in a bucket that is not was not written by this service.
    pub fn valid_key(key: &str) -> bool {
        check_key(key).is_ok()
    }

    /// Whether objects live in S3 (presigned URLs) rather than the local folder (URLs served by switchboard).
    pub fn is_s3(&self) -> bool {
        matches!(self.inner.backend, Backend::S3 { .. })
    }

    /// Stores `bytes` under `key` (keys are generated by the caller, e.g. "tenants/7/media/<uuid>.wav").
    pub async fn put(
        &self,
        key: &str,
        bytes: Bytes,
        content_type: &str,
    ) -> Result<(), StorageError> {
        let path = self.path(key)?;
        check_content_type(content_type)?;
        let size = bytes.len() as u64;
        self.within(size, async {
            match &self.inner.backend {
                Backend::Local { store, .. } => {
                    store.put(&path, PutPayload::from(bytes)).await?;
                    self.put_local_content_type(store, key, content_type).await
                }
                Backend::S3 { store, .. } => {
                    let options = PutOptions {
                        attributes: content_type_attributes(content_type),
                        ..PutOptions::default()
                    };
                    store
                        .put_opts(&path, PutPayload::from(bytes), options)
                        .await?;
                    Ok(())
                }
            }
        })
        .await
    }

    /// Stores a stream of chunks under `key` without holding it whole in memory (buffered, then a
    /// multipart upload once past 10 MiB); answers the total size. A failing stream stores nothing.
    pub async fn put_stream(
        &self,
        key: &str,
        mut chunks: impl Stream<Item = Result<Bytes, std::io::Error>> + Send + Unpin,
        content_type: &str,
    ) -> Result<u64, StorageError> {
        let path = self.path(key)?;
        check_content_type(content_type)?;
        let store: Arc<dyn ObjectStore> = match &self.inner.backend {
            Backend::Local { store, .. } => store.clone(),
            Backend::S3 { store, .. } => store.clone(),
        };
        let mut writer = BufWriter::new(store, path);
        if self.is_s3() {
            // The local store keeps no attributes (it refuses them); its content type goes beside the object.
            writer = writer.with_attributes(content_type_attributes(content_type));
        }
        let mut total: u64 = 0;
        // Only the writes are bounded, never the wait for the uploader's next chunk (the
        // upload's own timeout bounds that); a write may wait for one part to be sent.
        while let Some(chunk) = chunks.next().await {
            let written = match chunk {
                Ok(chunk) => {
                    total += chunk.len() as u64;
                    let put = async { writer.put(chunk).await.map_err(StorageError::from) };
                    self.within(PART_BYTES, put).await
                }
                Err(error) => Err(StorageError::Backend(format!(
                    "reading the upload: {error}"
                ))),
            };
            if let Err(error) = written {
                let aborted = self.within(0, async {
                    writer.abort().await.map_err(StorageError::from)
                });
                if let Err(abort_error) = aborted.await {
                    tracing::warn!(key, error = %abort_error, "aborting a failed upload");
                }
                return Err(error);
            }
        }
        let finished = std::future::poll_fn(|cx| {
            tokio::io::AsyncWrite::poll_shutdown(Pin::new(&mut writer), cx)
        });
        self.within(total, async {
            finished
                .await
                .map_err(|error| StorageError::Backend(format!("finishing the upload: {error}")))
        })
        .await?;
        if let Backend::Local { store, .. } = &self.inner.backend {
            self.within(0, self.put_local_content_type(store, key, content_type))
                .await?;
        }
        Ok(total)
    }

    /// Reads `key`, whole or a byte range; answers the bytes stream, the total size and the range served.
    pub async fn get(
        &self,
        key: &str,
        range: Option<ObjectRange>,
    ) -> Result<StoredObject, StorageError> {
        let path = self.path(key)?;
        let store = self.dyn_store();
        let mut options = GetOptions::default();
        let (result, content_type) = self
            .within(0, async {
                if let Some(range) = range {
                    // Resolved here rather than by the backend so both backends answer
                    // 416 alike.
                    let size = store.head(&path).await?.size;
                    let served = range
                        .resolve(size)
                        .ok_or(StorageError::RangeNotSatisfiable { size })?;
                    options.range = Some(GetRange::Bounded(served));
                }
                let result = store.get_opts(&path, options).await?;
                let content_type = match &self.inner.backend {
                    Backend::Local { store, .. } => self.local_content_type(store, key).await,
                    Backend::S3 { .. } => result
                        .attributes
                        .get(&Attribute::ContentType)
                        .map(|value| value.to_string()),
                };
                Ok((result, content_type))
            })
            .await?;
        let size = result.meta.size;
        let served = result.range.clone();
        let body = self.progressing(result.into_stream().map_err(StorageError::from).boxed());
        Ok(StoredObject {
            size,
            range: served,
            content_type,
            body,
        })
    }

    /// Deletes `key`; deleting a missing object is not an error.
    pub async fn delete(&self, key: &str) -> Result<(), StorageError> {
        let path = self.path(key)?;
        self.within(0, async {
            ignore_missing(self.dyn_store().delete(&path).await)?;
            if let Backend::Local { store, .. } = &self.inner.backend {
                ignore_missing(store.delete(&content_type_path(key)?).await)?;
            }
            Ok(())
        })
        .await
    }

    /// A URL that fetches `key` until `ttl` has passed: an S3 presigned GET URL when the store is S3,
    /// else `{public_url}/v2/objects/{key}?expires=<unix secs>&signature=<hex HMAC-SHA256>`
    /// with the key percent-encoded into one path segment. `ttl` counts in whole seconds, rounded up
    /// (so a sub-second remainder never shortens the link's life); S3 refuses presigned URLs that live
    /// longer than [`Storage::MAX_S3_URL_TTL`], so a longer `ttl` is an error on S3.
    pub async fn download_url(&self, key: &str, ttl: Duration) -> Result<String, StorageError> {
        let path = self.path(key)?;
        let ttl_secs = ttl
            .as_secs()
            .saturating_add(u64::from(ttl.subsec_nanos() > 0));
        match &self.inner.backend {
            Backend::S3 { store, .. } => {
                // object_store signs `ttl.as_secs()` as given: a sub-second ttl became
                // X-Amz-Expires=0 and more than 7 days a URL S3 answers with
                // AuthorizationQueryParametersError.
                if ttl_secs > Self::MAX_S3_URL_TTL.as_secs() {
                    return Err(StorageError::InvalidUrl(format!(
                        "S3 presigned URLs live at most {} seconds (7 days), not {ttl_secs}",
                        Self::MAX_S3_URL_TTL.as_secs()
                    )));
                }
                let ttl = Duration::from_secs(ttl_secs.max(1));
                // Signing is local, unless the credentials must be fetched first.
                let url = self.within(0, async {
                    Ok(store.signed_url(Method::GET, &path, ttl).await?)
                });
                Ok(url.await?.to_string())
            }
            Backend::Local { .. } => self.service_download_url(key, ttl),
        }
    }

    /// The service's own signed link of `key` (`{public_url}/v2/objects/…`, as
    /// [`Storage::download_url`] answers for a local store) valid for `ttl` rounded up to
    /// whole seconds, whatever the backend: the download route serves it from either, with
    /// byte ranges, from the service's own origin (the console's players).
    pub fn service_download_url(&self, key: &str, ttl: Duration) -> Result<String, StorageError> {
        check_key(key)?;
        let ttl_secs = ttl
            .as_secs()
            .saturating_add(u64::from(ttl.subsec_nanos() > 0));
        let ttl_secs = i64::try_from(ttl_secs).unwrap_or(i64::MAX);
        let expires = chrono::Utc::now().timestamp().saturating_add(ttl_secs);
        Ok(self.local_download_url(key, expires))
    }

    /// The longest life S3 allows a presigned URL (SigV4 `X-Amz-Expires` of at most 604800 seconds).
    pub const MAX_S3_URL_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

    /// The local download URL of `key` valid until `expires_unix` (whatever the backend; mostly for tests).
    pub fn local_download_url(&self, key: &str, expires_unix: i64) -> String {
        let signature = self.inner.signer.sign(key, expires_unix);
        format!(
            "{}/v2/objects/{}?expires={expires_unix}&signature={signature}",
            self.inner.public_url,
            encode_key(key)
        )
    }

    /// Checks a local download URL's `expires` and `signature` for `key` at time `now_unix` (constant-time
    /// compare); false when expired, tampered, or for another key.
    pub fn verify_download(
        &self,
        key: &str,
        expires: &str,
        signature: &str,
        now_unix: i64,
    ) -> bool {
        check_key(key).is_ok() && self.inner.signer.verify(key, expires, signature, now_unix)
    }

    fn dyn_store(&self) -> Arc<dyn ObjectStore> {
        match &self.inner.backend {
            Backend::Local { store, .. } => store.clone(),
            Backend::S3 { store, .. } => store.clone(),
        }
    }

    /// The backend path of `key` (with the S3 prefix), after checking the key.
    fn path(&self, key: &str) -> Result<Path, StorageError> {
        check_key(key)?;
        let full = match &self.inner.backend {
            Backend::S3 { prefix, .. } if !prefix.is_empty() => format!("{prefix}/{key}"),
            _ => key.to_owned(),
        };
        Path::parse(full)
            .map_err(|error| StorageError::Backend(format!("invalid object key: {error}")))
    }

    async fn put_local_content_type(
        &self,
        store: &LocalFileSystem,
        key: &str,
        content_type: &str,
    ) -> Result<(), StorageError> {
        let payload = PutPayload::from(Bytes::copy_from_slice(content_type.as_bytes()));
        store.put(&content_type_path(key)?, payload).await?;
        Ok(())
    }

    async fn local_content_type(&self, store: &LocalFileSystem, key: &str) -> Option<String> {
        let path = content_type_path(key).ok()?;
        let bytes = store.get(&path).await.ok()?.bytes().await.ok()?;
        String::from_utf8(bytes.to_vec()).ok()
    }
}

fn open_local(folder: &str) -> Result<Backend, StorageError> {
    if folder.is_empty() {
        return Err(StorageError::InvalidUrl(
            "file:// needs a folder path".into(),
        ));
    }
    let root = PathBuf::from(folder);
    std::fs::create_dir_all(&root).map_err(|error| {
        StorageError::InvalidUrl(format!("cannot create storage folder {folder:?}: {error}"))
    })?;
    let store = LocalFileSystem::new_with_prefix(&root).map_err(|error| {
        StorageError::InvalidUrl(format!("cannot open storage folder {folder:?}: {error}"))
    })?;
    Ok(Backend::Local {
        store: Arc::new(store),
        root,
    })
}

/// The bucket and the prefix (without slashes at either end) of `s3://bucket[/prefix]`.
fn parse_s3_url(url: &str) -> Result<(String, String), StorageError> {
    let parsed = url::Url::parse(url)
        .map_err(|error| StorageError::InvalidUrl(format!("{url:?}: {error}")))?;
    let bucket = parsed
        .host_str()
        .filter(|bucket| !bucket.is_empty())
        .ok_or_else(|| StorageError::InvalidUrl(format!("{url:?}: no bucket name")))?
        .to_owned();
    if parsed.query().is_some() || parsed.fragment().is_some() || parsed.port().is_some() {
        return Err(StorageError::InvalidUrl(format!(
            "{url:?}: expected s3://bucket[/prefix]"
        )));
    }
    let prefix = parsed.path().trim_matches('/').to_owned();
    if !prefix.is_empty() {
        check_key(&prefix)
            .map_err(|_| StorageError::InvalidUrl(format!("{url:?}: invalid prefix")))?;
    }
    Ok((bucket, prefix))
}

fn open_s3(url: &str, options: &[(&str, &str)]) -> Result<Backend, StorageError> {
    let (bucket, prefix) = parse_s3_url(url)?;
    let mut builder = AmazonS3Builder::from_env().with_bucket_name(&bucket);
    for (name, value) in options {
        let key: AmazonS3ConfigKey = name
            .parse()
            .map_err(|_| StorageError::InvalidUrl(format!("unknown S3 option {name:?}")))?;
        builder = builder.with_config(key, *value);
    }
    // The store's HTTP client is built here.
    crate::tls::install_ring();
    let store = builder
        .build()
        .map_err(|error| StorageError::InvalidUrl(format!("{url:?}: {error}")))?;
    Ok(Backend::S3 {
        store: Arc::new(store),
        bucket,
        prefix,
    })
}

/// Checks that `key` is a relative path of safe segments: ASCII letters, digits and `-_.~=+,@`, no empty
/// segment, no segment starting with '.'. This keeps keys identical on disk, in S3 and in URLs, and
/// keeps them out of hidden files (where the local store keeps content types and staging files).
fn check_key(key: &str) -> Result<(), StorageError> {
    let invalid = || StorageError::Backend(format!("invalid object key {key:?}"));
    if key.is_empty() || key.len() > MAX_KEY_LEN {
        return Err(invalid());
    }
    for segment in key.split('/') {
        if segment.is_empty() || segment.starts_with('.') {
            return Err(invalid());
        }
        let safe = |b: u8| b.is_ascii_alphanumeric() || b"-_.~=+,@".contains(&b);
        if !segment.bytes().all(safe) {
            return Err(invalid());
        }
    }
    Ok(())
}

fn check_content_type(content_type: &str) -> Result<(), StorageError> {
    // It becomes an HTTP header value later: printable ASCII only.
    let printable = content_type.bytes().all(|b| (0x20..0x7f).contains(&b));
    if content_type.is_empty() || content_type.len() > 255 || !printable {
        return Err(StorageError::Backend(format!(
            "invalid content type {content_type:?}"
        )));
    }
    Ok(())
}

fn content_type_attributes(content_type: &str) -> Attributes {
    let mut attributes = Attributes::new();
    attributes.insert(Attribute::ContentType, content_type.to_owned().into());
    attributes
}

fn content_type_path(key: &str) -> Result<Path, StorageError> {
    Path::parse(format!("{CONTENT_TYPE_DIR}/{key}"))
        .map_err(|error| StorageError::Backend(format!("invalid object key: {error}")))
}

fn ignore_missing(result: object_store::Result<()>) -> Result<(), StorageError> {
    match result {
        Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
        Err(error) => Err(error.into()),
    }
}

/// Percent-encodes every byte of `key` outside RFC 3986 "unreserved", the '/' separators
/// included, so the whole key is one path segment of the download route.
fn encode_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for b in key.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn range_headers_parse() {
        use ObjectRange::*;
        assert_eq!(ObjectRange::parse_header("bytes=0-99"), Some(FromTo(0, 99)));
        assert_eq!(ObjectRange::parse_header("bytes=5-5"), Some(FromTo(5, 5)));
        assert_eq!(ObjectRange::parse_header("bytes=100-"), Some(From(100)));
        assert_eq!(ObjectRange::parse_header("bytes=-500"), Some(Suffix(500)));
        assert_eq!(
            ObjectRange::parse_header(" Bytes = 1-2 "),
            Some(FromTo(1, 2))
        );
        assert_eq!(ObjectRange::parse_header("bytes=-0"), Some(Suffix(0)));
        for bad in [
            "",
            "bytes",
            "bytes=",
            "bytes=-",
            "bytes=9-1",
            "bytes=0-1,5-6",
            "bytes=a-b",
            "bytes=+1-2",
            "bytes=1--2",
            "bytes=1-2-3",
            "items=0-1",
            "bytes=99999999999999999999-",
            "bytes 0-1",
        ] {
            assert_eq!(ObjectRange::parse_header(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn ranges_resolve_like_http() {
        use ObjectRange::*;
        assert_eq!(FromTo(0, 99).resolve(1000), Some(0..100));
        assert_eq!(FromTo(990, 2000).resolve(1000), Some(990..1000));
        assert_eq!(FromTo(1000, 2000).resolve(1000), None);
        assert_eq!(FromTo(0, u64::MAX).resolve(10), Some(0..10));
        assert_eq!(From(0).resolve(10), Some(0..10));
        assert_eq!(From(9).resolve(10), Some(9..10));
        assert_eq!(From(10).resolve(10), None);
        assert_eq!(Suffix(3).resolve(10), Some(7..10));
        assert_eq!(Suffix(30).resolve(10), Some(0..10));
        assert_eq!(Suffix(0).resolve(10), None);
        assert_eq!(Suffix(5).resolve(0), None);
        assert_eq!(From(0).resolve(0), None);
    }

    #[test]
    fn keys_are_checked() {
        for good in ["a", "tenants/7/media/0190-ab_c.wav", "x/y.z~=+,@"] {
            assert!(check_key(good).is_ok(), "{good:?}");
        }
        for bad in [
            "",
            "/a",
            "a/",
            "a//b",
            "../a",
            "a/./b",
            ".content-type/a",
            "a/.hidden",
            "a b",
            "a\nb",
            "a%20b",
            "a\\b",
            "ä",
            "a#1",
            "a?b",
        ] {
            assert!(check_key(bad).is_err(), "{bad:?}");
        }
        assert!(check_key(&"a".repeat(MAX_KEY_LEN + 1)).is_err());
    }

    #[test]
    fn keys_are_percent_encoded_in_urls() {
        assert_eq!(
            encode_key("tenants/7/a-b_c.~.wav"),
            "tenants%2F7%2Fa-b_c.~.wav"
        );
        assert_eq!(encode_key("a/x=1+2,@"), "a%2Fx%3D1%2B2%2C%40");
    }

    #[test]
    fn open_refuses_bad_configuration() {
        let key = [7u8; 32];
        let dir = tempfile::tempdir().unwrap();
        let url = format!("file://{}", dir.path().display());
        assert!(matches!(
            Storage::open(&url, &key[..31], "http://x"),
            Err(StorageError::InvalidUrl(_))
        ));
        for bad in [
            "",
            "file://",
            "http://bucket",
            "s3://",
            "s3:///prefix",
            "/tmp/x",
        ] {
            assert!(
                matches!(
                    Storage::open(bad, &key, "http://x"),
                    Err(StorageError::InvalidUrl(_))
                ),
                "{bad:?}"
            );
        }
        assert!(matches!(
            Storage::open_with_s3_options("s3://b", &key, "http://x", &[("no_such_option", "1")]),
            Err(StorageError::InvalidUrl(_))
        ));
        let local = Storage::open(&url, &key, "http://x/").unwrap();
        assert!(!local.is_s3());
        assert!(!format!("{local:?}").contains("7, 7"));
    }

    fn s3_storage(url: &str) -> Storage {
        Storage::open_with_s3_options(
            url,
            &[9u8; 32],
            "http://127.0.0.1:8080",
            &[
                ("aws_access_key_id", "AKIDEXAMPLE"),
                (
                    "aws_secret_access_key",
                    "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                ),
                ("aws_region", "us-east-1"),
                ("aws_endpoint", "http://127.0.0.1:9000"),
                ("aws_allow_http", "true"),
                ("aws_virtual_hosted_style_request", "false"),
            ],
        )
        .unwrap()
    }

    /// Every call to a store that accepts connections and never answers is given up at
    /// the timeout (the S3 client alone retries for minutes).
    #[tokio::test]
    async fn a_stalled_store_is_given_up_at_the_timeout() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((connection, _)) = listener.accept().await {
                held.push(connection);
            }
        });
        let storage = Storage::open_with_s3_options(
            "s3://stalled",
            &[9u8; 32],
            "http://127.0.0.1:8080",
            &[
                ("aws_access_key_id", "AKIDEXAMPLE"),
                ("aws_secret_access_key", "secret"),
                ("aws_region", "us-east-1"),
                ("aws_endpoint", endpoint.as_str()),
                ("aws_allow_http", "true"),
                ("aws_virtual_hosted_style_request", "false"),
            ],
        )
        .unwrap()
        .with_timeout(Duration::from_millis(500));
        let given_up =
            |result: Result<(), StorageError>| matches!(result, Err(StorageError::TimedOut { .. }));
        let started = std::time::Instant::now();
        assert!(given_up(
            storage
                .put("a/b", Bytes::from_static(b"x"), "text/plain")
                .await
        ));
        let chunks = futures::stream::iter([Ok(Bytes::from_static(b"x"))]);
        assert!(given_up(
            storage
                .put_stream("a/c", chunks, "text/plain")
                .await
                .map(drop)
        ));
        assert!(given_up(storage.get("a/b", None).await.map(drop)));
        assert!(given_up(storage.delete("a/b").await));
        assert!(given_up(storage.keys().await.map(drop)));
        assert!(!storage.reachable().await);
        let took = started.elapsed();
        assert!(took < Duration::from_secs(10), "{took:?}");
    }

    #[tokio::test]
    async fn s3_download_urls_are_presigned_offline() {
        let storage = s3_storage("s3://media-bucket/switchboard/prod");
        assert!(storage.is_s3());
        let url = storage
            .download_url("tenants/7/media/abc.wav", Duration::from_secs(300))
            .await
            .unwrap();
        assert!(
            url.starts_with(
                "http://127.0.0.1:9000/media-bucket/switchboard/prod/tenants/7/media/abc.wav?"
            ),
            "{url}"
        );
        assert!(url.contains("X-Amz-Signature="), "{url}");
        assert!(url.contains("X-Amz-Expires=300"), "{url}");
        assert!(url.contains("X-Amz-Credential=AKIDEXAMPLE"), "{url}");
        assert!(!format!("{storage:?}").contains("wJalrXUtnFEMI"));

        let no_prefix = s3_storage("s3://media-bucket");
        let url = no_prefix
            .download_url("a/b.mp3", Duration::from_secs(60))
            .await
            .unwrap();
        assert!(
            url.starts_with("http://127.0.0.1:9000/media-bucket/a/b.mp3?"),
            "{url}"
        );
        assert!(url.contains("X-Amz-Signature="), "{url}");

        // Whole seconds, rounded up, at least one; at most the 7 days S3 accepts.
        for (ttl, expires) in [
            (Duration::from_millis(1500), "X-Amz-Expires=2&"),
            (Duration::from_millis(10), "X-Amz-Expires=1&"),
            (Duration::ZERO, "X-Amz-Expires=1&"),
            (Storage::MAX_S3_URL_TTL, "X-Amz-Expires=604800&"),
        ] {
            let url = no_prefix.download_url("a/b.mp3", ttl).await.unwrap();
            assert!(url.contains(expires), "{ttl:?}: {url}");
        }
        for ttl in [
            Storage::MAX_S3_URL_TTL + Duration::from_millis(1),
            Duration::from_secs(30 * 24 * 3600),
            Duration::MAX,
        ] {
            assert!(
                matches!(
                    no_prefix.download_url("a/b.mp3", ttl).await,
                    Err(StorageError::InvalidUrl(_))
                ),
                "{ttl:?}"
            );
        }
    }
}
