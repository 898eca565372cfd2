//! `Storage` over a temporary `file://` folder: the whole public API as the HTTP layer uses it.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use bytes::Bytes;
use futures::stream;
use switchboard_storage::{ObjectRange, Storage, StorageError};

const KEY: &[u8] = b"an-example-signing-key-of-32-bytes-or-more";
const PUBLIC: &str = "http://127.0.0.1:8080";

fn open(dir: &tempfile::TempDir) -> Storage {
    // A folder that does not exist yet: open creates it.
    let url = format!("file://{}/objects/nested", dir.path().display());
    Storage::open(&url, KEY, &format!("{PUBLIC}/")).unwrap()
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Splits a local download URL into its key, expiry and signature.
fn parts(url: &str) -> (String, String, String) {
    let rest = url.strip_prefix(&format!("{PUBLIC}/v2/objects/")).unwrap();
    let (key, query) = rest.split_once('?').unwrap();
    let (expires, signature) = query.split_once('&').unwrap();
    (
        // The key's '/' separators travel encoded (one path segment); everything else
        // stays as the URL has it.
        key.replace("%2F", "/"),
        expires.strip_prefix("expires=").unwrap().to_owned(),
        signature.strip_prefix("signature=").unwrap().to_owned(),
    )
}

#[test]
fn storage_is_shareable() {
    fn shareable<T: Send + Sync + Clone + std::fmt::Debug + 'static>() {}
    shareable::<Storage>();
}

#[tokio::test]
async fn put_get_and_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let storage = open(&dir);
    assert!(!storage.is_s3());
    assert!(dir.path().join("objects/nested").is_dir());

    let key = "tenants/7/media/0190a1b2-c3d4.wav";
    let content: Bytes = (0u8..100).collect::<Vec<_>>().into();
    storage
        .put(key, content.clone(), "audio/wav")
        .await
        .unwrap();
    assert!(dir.path().join("objects/nested").join(key).is_file());

    let whole = storage.get(key, None).await.unwrap();
    assert_eq!((whole.size, whole.range.clone()), (100, 0..100));
    assert_eq!(whole.content_type.as_deref(), Some("audio/wav"));
    assert_eq!(whole.into_bytes().await.unwrap(), content);

    for (range, served) in [
        (ObjectRange::FromTo(10, 19), 10..20),
        (ObjectRange::FromTo(90, 500), 90..100),
        (ObjectRange::From(95), 95..100),
        (ObjectRange::Suffix(3), 97..100),
        (ObjectRange::Suffix(1_000), 0..100),
    ] {
        let object = storage.get(key, Some(range)).await.unwrap();
        assert_eq!(object.size, 100, "{range:?}");
        assert_eq!(object.range, served, "{range:?}");
        assert_eq!(object.content_type.as_deref(), Some("audio/wav"));
        let start = usize::try_from(served.start).unwrap();
        let end = usize::try_from(served.end).unwrap();
        assert_eq!(
            object.into_bytes().await.unwrap(),
            content.slice(start..end),
            "{range:?}"
        );
    }
    for range in [
        ObjectRange::From(100),
        ObjectRange::FromTo(100, 200),
        ObjectRange::Suffix(0),
    ] {
        assert!(
            matches!(
                storage.get(key, Some(range)).await,
                Err(StorageError::RangeNotSatisfiable { size: 100 })
            ),
            "{range:?}"
        );
    }

    // Overwriting replaces bytes and content type.
    storage
        .put(key, Bytes::from_static(b"ID3"), "audio/mpeg")
        .await
        .unwrap();
    let replaced = storage.get(key, None).await.unwrap();
    assert_eq!(replaced.content_type.as_deref(), Some("audio/mpeg"));
    assert_eq!(
        replaced.into_bytes().await.unwrap(),
        Bytes::from_static(b"ID3")
    );
}

#[tokio::test]
async fn empty_objects_have_no_satisfiable_range() {
    let dir = tempfile::tempdir().unwrap();
    let storage = open(&dir);
    storage
        .put("empty", Bytes::new(), "application/octet-stream")
        .await
        .unwrap();
    let object = storage.get("empty", None).await.unwrap();
    assert_eq!((object.size, object.range.clone()), (0, 0..0));
    assert!(object.into_bytes().await.unwrap().is_empty());
    assert!(matches!(
        storage.get("empty", Some(ObjectRange::Suffix(5))).await,
        Err(StorageError::RangeNotSatisfiable { size: 0 })
    ));
}

#[tokio::test]
async fn missing_objects_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let storage = open(&dir);
    assert!(matches!(
        storage.get("nope", None).await,
        Err(StorageError::NotFound)
    ));
    assert!(matches!(
        storage.get("nope", Some(ObjectRange::From(0))).await,
        Err(StorageError::NotFound)
    ));
    storage.delete("nope").await.unwrap();

    storage
        .put("a/b.ogg", Bytes::from_static(b"OggS"), "audio/ogg")
        .await
        .unwrap();
    storage.delete("a/b.ogg").await.unwrap();
    assert!(matches!(
        storage.get("a/b.ogg", None).await,
        Err(StorageError::NotFound)
    ));
    storage.delete("a/b.ogg").await.unwrap();
    // Re-creating the key does not resurrect the old content type.
    storage
        .put("a/b.ogg", Bytes::from_static(b"x"), "text/plain")
        .await
        .unwrap();
    let object = storage.get("a/b.ogg", None).await.unwrap();
    assert_eq!(object.content_type.as_deref(), Some("text/plain"));
}

#[tokio::test]
async fn invalid_keys_and_content_types_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let storage = open(&dir);
    for key in [
        "",
        "../escape",
        "/abs",
        "a//b",
        ".content-type/x",
        "a b",
        "a/../../b",
    ] {
        assert!(
            matches!(
                storage.put(key, Bytes::new(), "audio/wav").await,
                Err(StorageError::Backend(_))
            ),
            "{key:?}"
        );
        assert!(!storage.verify_download(key, "99999999999", "00", 0));
    }
    assert!(matches!(
        storage
            .put("ok", Bytes::new(), "audio/wav\r\nX-Evil: 1")
            .await,
        Err(StorageError::Backend(_))
    ));
    assert!(!dir.path().join("escape").exists());
}

#[tokio::test]
async fn put_stream_stores_several_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let storage = open(&dir);
    let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(Bytes::from_static(b"hello ")),
        Ok(Bytes::new()),
        Ok(Bytes::from_static(b"multimedia ")),
        Ok(Bytes::from_static(b"world")),
    ];
    let total = storage
        .put_stream(
            "tenants/1/mms/x.bin",
            stream::iter(chunks),
            "application/octet-stream",
        )
        .await
        .unwrap();
    assert_eq!(total, 22);
    let object = storage.get("tenants/1/mms/x.bin", None).await.unwrap();
    assert_eq!(object.size, 22);
    assert_eq!(
        object.content_type.as_deref(),
        Some("application/octet-stream")
    );
    assert_eq!(
        object.into_bytes().await.unwrap(),
        Bytes::from_static(b"hello multimedia world")
    );
}

#[tokio::test]
async fn put_stream_past_the_buffer_goes_multipart() {
    let dir = tempfile::tempdir().unwrap();
    let storage = open(&dir);
    // 12 MiB in 1 MiB chunks: beyond the 10 MiB buffer, so the upload switches to multipart.
    let chunks = (0u8..12).map(|i| Ok::<_, std::io::Error>(Bytes::from(vec![i; 1 << 20])));
    let total = storage
        .put_stream("big.bin", stream::iter(chunks), "video/mp4")
        .await
        .unwrap();
    assert_eq!(total, 12 << 20);
    let tail = storage
        .get("big.bin", Some(ObjectRange::Suffix(2)))
        .await
        .unwrap();
    assert_eq!(tail.size, 12 << 20);
    assert_eq!(
        tail.into_bytes().await.unwrap(),
        Bytes::from_static(&[11, 11])
    );
    let middle = storage
        .get("big.bin", Some(ObjectRange::FromTo(5 << 20, (5 << 20) + 1)))
        .await
        .unwrap();
    assert_eq!(
        middle.into_bytes().await.unwrap(),
        Bytes::from_static(&[5, 5])
    );
}

#[tokio::test]
async fn a_failing_stream_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let storage = open(&dir);
    let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(Bytes::from_static(b"partial")),
        Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "client went away",
        )),
    ];
    let result = storage
        .put_stream("mms/cut.bin", stream::iter(chunks), "image/png")
        .await;
    assert!(matches!(result, Err(StorageError::Backend(_))));
    assert!(matches!(
        storage.get("mms/cut.bin", None).await,
        Err(StorageError::NotFound)
    ));
}

#[tokio::test]
async fn download_urls_are_signed_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let storage = open(&dir);
    let key = "tenants/7/media/greeting.wav";
    storage
        .put(key, Bytes::from_static(b"RIFF"), "audio/wav")
        .await
        .unwrap();

    let url = storage
        .download_url(key, Duration::from_secs(600))
        .await
        .unwrap();
    assert!(
        url.starts_with(&format!(
            "{PUBLIC}/v2/objects/{}?expires=",
            key.replace('/', "%2F")
        )),
        "{url}"
    );
    let (url_key, expires, signature) = parts(&url);
    assert_eq!(url_key, key);
    let expires_unix: i64 = expires.parse().unwrap();
    assert!((expires_unix - now() - 600).abs() <= 2);
    assert_eq!(signature.len(), 64);

    assert!(storage.verify_download(key, &expires, &signature, now()));
    // Expired.
    assert!(!storage.verify_download(key, &expires, &signature, expires_unix));
    assert!(!storage.verify_download(key, &expires, &signature, expires_unix + 3_600));
    // Another key, expiry or signature.
    assert!(!storage.verify_download("tenants/8/media/greeting.wav", &expires, &signature, now()));
    assert!(!storage.verify_download(key, &(expires_unix + 100).to_string(), &signature, now()));
    let mut forged = signature.clone();
    forged.replace_range(0..1, if signature.starts_with('a') { "b" } else { "a" });
    assert!(!storage.verify_download(key, &expires, &forged, now()));
    // Another signing key.
    let other = Storage::open(
        &format!("file://{}", dir.path().display()),
        b"another-signing-key-also-32-bytes-long!!",
        PUBLIC,
    )
    .unwrap();
    assert!(!other.verify_download(key, &expires, &signature, now()));
}

#[tokio::test]
async fn download_url_keys_are_percent_encoded() {
    let dir = tempfile::tempdir().unwrap();
    let storage = open(&dir);
    let key = "tenants/7/media/a=1+b,c@d.wav";
    let url = storage
        .download_url(key, Duration::from_secs(60))
        .await
        .unwrap();
    let (url_key, expires, signature) = parts(&url);
    assert_eq!(url_key, "tenants/7/media/a%3D1%2Bb%2Cc%40d.wav");
    // The HTTP layer decodes the path back to the key before verifying.
    assert!(storage.verify_download(key, &expires, &signature, now()));
    assert_eq!(
        storage.local_download_url(key, 1_700_000_000),
        format!(
            "{PUBLIC}/v2/objects/{}?expires=1700000000&signature={}",
            url_key.replace('/', "%2F"),
            parts(&storage.local_download_url(key, 1_700_000_000)).2
        )
    );
}
