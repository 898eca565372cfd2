//! `Storage` over a real S3-compatible server: moto's (`python3 -m moto.server`, installed by
//! `scripts/install-test-tools.sh`), started by each test on a free loopback port and killed when the
//! test ends. Without moto the tests are reported ignored with one line saying why (crates/testing's
//! harness), unless `SWITCHBOARD_TEST_REQUIRE_S3=1` (CI), which makes them fail instead.
//! `SWITCHBOARD_TEST_PYTHON` names another interpreter than `python3`.
//!
//! What moto 5.2.1 checks of a presigned GET, read from its source and asserted below: a URL carrying
//! `…Signature=` is served **without verifying the signature or the expiry** (so tampered and expired
//! URLs still answer 200), while the same object without a signature is refused (403, private ACL).
//! So the signatures are also verified here, by an AWS Signature V4 check written from the AWS
//! specification ([`check_sigv4`]): the URL storage hands out must be one real S3 accepts.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, NaiveDateTime, Utc};
use futures::stream;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use switchboard_storage::{ObjectRange, StorageError};

#[path = "support/moto.rs"]
mod moto;

use moto::{ACCESS_KEY, REGION, SECRET_KEY, http_client, moto};

switchboard_testing::tests!(
    needs switchboard_testing::S3;
    put_get_ranges_and_delete,
    streamed_uploads_small_and_multipart_keep_their_content_type,
    download_urls_are_real_presigned_s3_urls,
);

fn main() -> std::process::ExitCode {
    // The tests' own HTTP clients need the process's TLS provider too.
    switchboard_storage::tls::install_ring();
    switchboard_testing::main()
}
async fn put_get_ranges_and_delete() {
    let moto = moto().await;
    moto.create_bucket("switchboard-media").await;
    let storage = moto.storage("s3://switchboard-media/prod");
    assert!(storage.is_s3());

    let key = "tenants/7/media/0190a1b2-c3d4.wav";
    let content: Bytes = (0..1000u32)
        .map(|i| (i % 251) as u8)
        .collect::<Vec<_>>()
        .into();
    storage
        .put(key, content.clone(), "audio/wav")
        .await
        .unwrap();

    let whole = storage.get(key, None).await.unwrap();
    assert_eq!((whole.size, whole.range.clone()), (1000, 0..1000));
    assert_eq!(whole.content_type.as_deref(), Some("audio/wav"));
    assert_eq!(whole.into_bytes().await.unwrap(), content);

    for (range, served) in [
        (ObjectRange::FromTo(10, 19), 10..20),
        (ObjectRange::FromTo(990, 5000), 990..1000),
        (ObjectRange::From(995), 995..1000),
        (ObjectRange::Suffix(3), 997..1000),
        (ObjectRange::Suffix(5000), 0..1000),
    ] {
        let object = storage.get(key, Some(range)).await.unwrap();
        assert_eq!(
            (object.size, object.range.clone()),
            (1000, served.clone()),
            "{range:?}"
        );
        assert_eq!(
            object.content_type.as_deref(),
            Some("audio/wav"),
            "{range:?}"
        );
        let (start, end) = (served.start as usize, served.end as usize);
        assert_eq!(
            object.into_bytes().await.unwrap(),
            content.slice(start..end),
            "{range:?}"
        );
    }
    for range in [ObjectRange::From(1000), ObjectRange::Suffix(0)] {
        assert!(
            matches!(
                storage.get(key, Some(range)).await,
                Err(StorageError::RangeNotSatisfiable { size: 1000 })
            ),
            "{range:?}"
        );
    }

    // The object lives under the URL's prefix, and is private: an unsigned GET is refused.
    let raw = http_client()
        .get(format!("{}/switchboard-media/prod/{key}", moto.endpoint))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), reqwest::StatusCode::FORBIDDEN);

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

    storage.delete(key).await.unwrap();
    assert!(matches!(
        storage.get(key, None).await,
        Err(StorageError::NotFound)
    ));
    assert!(matches!(
        storage.get(key, Some(ObjectRange::From(0))).await,
        Err(StorageError::NotFound)
    ));
    // Deleting what is not there is not an error.
    storage.delete(key).await.unwrap();
}

async fn streamed_uploads_small_and_multipart_keep_their_content_type() {
    let moto = moto().await;
    moto.create_bucket("switchboard-streams").await;
    let storage = moto.storage("s3://switchboard-streams");

    let small: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(Bytes::from_static(b"abc")),
        Ok(Bytes::from_static(b"def")),
    ];
    let size = storage
        .put_stream("a/small.txt", stream::iter(small), "text/plain")
        .await
        .unwrap();
    assert_eq!(size, 6);
    let object = storage.get("a/small.txt", None).await.unwrap();
    assert_eq!(object.content_type.as_deref(), Some("text/plain"));
    assert_eq!(
        object.into_bytes().await.unwrap(),
        Bytes::from_static(b"abcdef")
    );

    // Past 10 MiB the upload turns multipart; the content type must survive that too.
    let chunk = Bytes::from(vec![7u8; 1024 * 1024]);
    let chunks: Vec<Result<Bytes, std::io::Error>> = (0..11).map(|_| Ok(chunk.clone())).collect();
    let size = storage
        .put_stream("a/large.bin", stream::iter(chunks), "audio/mpeg")
        .await
        .unwrap();
    assert_eq!(size, 11 * 1024 * 1024);
    let object = storage
        .get("a/large.bin", Some(ObjectRange::Suffix(4)))
        .await
        .unwrap();
    assert_eq!(object.size, 11 * 1024 * 1024);
    assert_eq!(object.content_type.as_deref(), Some("audio/mpeg"));
    assert_eq!(
        object.into_bytes().await.unwrap(),
        Bytes::from_static(&[7; 4])
    );

    // A failing stream stores nothing.
    let failing: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(Bytes::from_static(b"abc")),
        Err(std::io::Error::other("client went away")),
    ];
    assert!(
        storage
            .put_stream("a/failed.txt", stream::iter(failing), "text/plain")
            .await
            .is_err()
    );
    assert!(matches!(
        storage.get("a/failed.txt", None).await,
        Err(StorageError::NotFound)
    ));
}

async fn download_urls_are_real_presigned_s3_urls() {
    let moto = moto().await;
    moto.create_bucket("switchboard-links").await;
    let storage = moto.storage("s3://switchboard-links/prod");
    // Every character keys may hold, so the path encoding is signed as S3 will check it.
    let key = "tenants/7/media/a=b+c,d@e~f_g-h.mp3";
    let content = Bytes::from_static(b"ID3 not really an mp3");
    storage
        .put(key, content.clone(), "audio/mpeg")
        .await
        .unwrap();

    let before = Utc::now();
    let url = storage
        .download_url(key, Duration::from_secs(300))
        .await
        .unwrap();
    let parsed = url::Url::parse(&url).unwrap();
    assert_eq!(
        format!("{}://{}", parsed.scheme(), parsed.authority()),
        moto.endpoint
    );
    assert_eq!(
        parsed.path(),
        "/switchboard-links/prod/tenants/7/media/a%3Db%2Bc%2Cd%40e~f_g-h.mp3"
    );
    let query = |name: &str| {
        parsed
            .query_pairs()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.into_owned())
            .unwrap()
    };
    assert_eq!(query("X-Amz-Algorithm"), "AWS4-HMAC-SHA256");
    assert_eq!(query("X-Amz-Expires"), "300");
    assert_eq!(query("X-Amz-SignedHeaders"), "host");
    assert_eq!(
        query("X-Amz-Credential"),
        format!(
            "{ACCESS_KEY}/{}/{REGION}/s3/aws4_request",
            before.format("%Y%m%d")
        )
    );
    let signature = query("X-Amz-Signature");
    assert!(
        signature.len() == 64 && signature.bytes().all(|b| b.is_ascii_hexdigit()),
        "{url}"
    );
    let signed_at = amz_date(&query("X-Amz-Date"));
    assert!(
        (signed_at - before).num_seconds().abs() <= 2,
        "{signed_at} vs {before}"
    );

    // The signature is the one AWS computes, and the link lives exactly `ttl`.
    check_sigv4(&url, SECRET_KEY, Utc::now()).unwrap();
    check_sigv4(&url, SECRET_KEY, signed_at + chrono::Duration::seconds(299)).unwrap();
    assert_eq!(
        check_sigv4(&url, SECRET_KEY, signed_at + chrono::Duration::seconds(300)).unwrap_err(),
        "expired"
    );
    assert!(check_sigv4(&url, "another-secret", Utc::now()).is_err());

    // It fetches the bytes over plain HTTP, as a browser would.
    let response = http_client().get(&url).send().await.unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "audio/mpeg");
    assert_eq!(response.bytes().await.unwrap(), content);

    // A tampered signature: S3 refuses it (SignatureDoesNotMatch). moto 5.2.1 does not verify
    // presigned signatures and serves it anyway; the check above is what proves the signature.
    let last = signature.chars().last().unwrap();
    let flipped = if last == '0' { '1' } else { '0' };
    let tampered = url.replace(&signature, &format!("{}{flipped}", &signature[..63]));
    assert_eq!(
        check_sigv4(&tampered, SECRET_KEY, Utc::now()).unwrap_err(),
        "signature mismatch"
    );
    let response = http_client().get(&tampered).send().await.unwrap();
    assert_eq!(
        response.status(),
        reqwest::StatusCode::OK,
        "moto started verifying signatures: expect 403 now"
    );
    // A changed key is refused by our check too (the path is signed).
    let other_key = url.replace("a%3Db", "x%3Db");
    assert_eq!(
        check_sigv4(&other_key, SECRET_KEY, Utc::now()).unwrap_err(),
        "signature mismatch"
    );

    // An expired link: S3 answers 403 "Request has expired". moto 5.2.1 does not check expiry.
    let short = storage
        .download_url(key, Duration::from_secs(1))
        .await
        .unwrap();
    let short_signed_at = amz_date(
        &url::Url::parse(&short)
            .unwrap()
            .query_pairs()
            .find(|(n, _)| n == "X-Amz-Date")
            .unwrap()
            .1,
    );
    while Utc::now() < short_signed_at + chrono::Duration::seconds(2) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        check_sigv4(&short, SECRET_KEY, Utc::now()).unwrap_err(),
        "expired"
    );
    let response = http_client().get(&short).send().await.unwrap();
    assert_eq!(
        response.status(),
        reqwest::StatusCode::OK,
        "moto started checking expiry: expect 403 now"
    );

    // Without a prefix, and a longer life.
    let no_prefix = moto.storage("s3://switchboard-links");
    no_prefix
        .put("b.mp3", Bytes::from_static(b"b"), "audio/mpeg")
        .await
        .unwrap();
    let url = no_prefix
        .download_url("b.mp3", Duration::from_secs(7 * 24 * 3600))
        .await
        .unwrap();
    assert!(
        url.starts_with(&format!("{}/switchboard-links/b.mp3?", moto.endpoint)),
        "{url}"
    );
    assert!(url.contains("X-Amz-Expires=604800"), "{url}");
    check_sigv4(&url, SECRET_KEY, Utc::now()).unwrap();
    let response = http_client().get(&url).send().await.unwrap();
    assert_eq!(response.bytes().await.unwrap(), Bytes::from_static(b"b"));
}

fn amz_date(text: &str) -> DateTime<Utc> {
    NaiveDateTime::parse_from_str(text, "%Y%m%dT%H%M%SZ")
        .unwrap()
        .and_utc()
}

/// Verifies a presigned GET URL the way S3 does (AWS Signature Version 4, query-string auth, as in
/// <https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html>): rebuilds the
/// canonical request from the URL, signs it with `secret`, compares, and checks `now` is within
/// `X-Amz-Date + X-Amz-Expires`. Err("signature mismatch"), Err("expired") or another reason.
fn check_sigv4(url: &str, secret: &str, now: DateTime<Utc>) -> Result<(), String> {
    let url = url::Url::parse(url).map_err(|error| error.to_string())?;
    let params: Vec<(String, String)> = url
        .query_pairs()
        .map(|(n, v)| (n.into_owned(), v.into_owned()))
        .collect();
    let param = |name: &str| {
        params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .ok_or(format!("no {name}"))
    };
    if param("X-Amz-Algorithm")? != "AWS4-HMAC-SHA256" {
        return Err("algorithm".into());
    }
    let date = param("X-Amz-Date")?;
    let credential = param("X-Amz-Credential")?;
    let (_, scope) = credential.split_once('/').ok_or("credential")?;
    let expires: i64 = param("X-Amz-Expires")?
        .parse()
        .map_err(|_| "X-Amz-Expires")?;

    // Canonical URI: each path segment decoded, then encoded leaving only unreserved characters.
    let canonical_uri = url
        .path()
        .split('/')
        .map(|segment| aws_encode(&percent_decode(segment)))
        .collect::<Vec<_>>()
        .join("/");
    let mut query: Vec<(String, String)> = params
        .iter()
        .filter(|(n, _)| n != "X-Amz-Signature")
        .map(|(n, v)| (aws_encode(n.as_bytes()), aws_encode(v.as_bytes())))
        .collect();
    query.sort();
    let canonical_query = query
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    let host = url.authority().to_owned();
    let canonical_request =
        format!("GET\n{canonical_uri}\n{canonical_query}\nhost:{host}\n\nhost\nUNSIGNED-PAYLOAD");
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{date}\n{scope}\n{}",
        hex::encode(Sha256::digest(canonical_request.as_bytes()))
    );
    let mut key = format!("AWS4{secret}").into_bytes();
    for part in scope.split('/') {
        key = hmac(&key, part.as_bytes());
    }
    if hex::encode(hmac(&key, string_to_sign.as_bytes())) != param("X-Amz-Signature")? {
        return Err("signature mismatch".into());
    }
    if now >= amz_date(&date) + chrono::Duration::seconds(expires) {
        return Err("expired".into());
    }
    Ok(())
}

fn hmac(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

/// AWS's URI encoding: every byte but `A-Z a-z 0-9 - _ . ~` as %XX (uppercase hex).
fn aws_encode(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = text
                .get(i + 1..i + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}
