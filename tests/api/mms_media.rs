//! MMS media uploads are accounted (issue 11): each file becomes a record of its tenant
//! (who, when, size, type, key, URL), listed in scope and deleted with its object, within
//! a per-tenant quota that a concurrent burst cannot overshoot, and removed by retention
//! when it expires.

use reqwest::multipart::{Form, Part};
use sea_query::{Expr, ExprTrait, Query};
use serde_json::Value;
use switchboard_domain::ids::TenantId;

use crate::documents::jpeg;
use crate::fixture::World;
use crate::support::{Answer, TestApp};

/// The size of each JPEG these tests upload.
pub(crate) const SIZE: usize = 10_000;

/// Uploads `files` JPEGs as MMS media.
pub(crate) async fn upload(app: &TestApp, token: &str, files: usize) -> Answer {
    let mut form = Form::new();
    for _ in 0..files {
        form = form.part(
            "files",
            Part::bytes(jpeg(SIZE))
                .file_name("photo.jpg")
                .mime_str("image/jpeg")
                .unwrap(),
        );
    }
    app.post_form("/v2/messaging/messages/upload-media", token, form)
        .await
}

/// Gives `tenant` a quota of its own, in bytes.
async fn set_quota(app: &TestApp, tenant: i64, bytes: i64) {
    let mut tx = app.state.db.begin().await.unwrap();
    let insert = Query::insert()
        .into_table("mms_usage")
        .columns(["tenant_id", "bytes", "quota_bytes"])
        .values_panic([tenant.into(), 0i64.into(), bytes.into()])
        .take();
    tx.execute(&insert).await.unwrap();
    tx.commit().await.unwrap();
}

async fn usage(app: &TestApp, tenant: i64) -> i64 {
    switchboard_db::mms_media::usage(&app.state.db, TenantId(tenant))
        .await
        .unwrap()
}

fn keys(page: &Value) -> Vec<String> {
    page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["objectKey"].as_str().unwrap().to_owned())
        .collect()
}

async fn listed_scoped_and_deleted_with_the_object(app: TestApp) {
    let w = World::seed(&app).await;
    let user = app.login(w.user_a).await;
    let admin = app.login(w.admin_a).await;
    upload(&app, &user, 2).await.expect(200);
    upload(&app, &admin, 1).await.expect(200);
    assert_eq!(usage(&app, w.tenant_a).await, 3 * SIZE as i64);

    // The user sees its own uploads; the tenant admin all; another tenant none.
    let own = app.get("/v2/messaging/media/", &user).await.expect(200);
    assert_eq!(own["totalRecords"], 2, "{own}");
    let first = &own["records"][0];
    assert_eq!(first["size"], SIZE);
    assert_eq!(first["contentType"], "image/jpeg");
    assert_eq!(first["uploadedBy"], w.user_a);
    assert_eq!(first["tenantId"], w.tenant_a);
    let (status, _, bytes) = app.fetch(first["url"].as_str().unwrap(), None).await;
    assert_eq!((status.as_u16(), bytes.len()), (200, SIZE));
    let all = app
        .get("/v2/messaging/media/?sortBy=id", &admin)
        .await
        .expect(200);
    assert_eq!(all["totalRecords"], 3);
    let admin_b = app.login(w.admin_b).await;
    let none = app.get("/v2/messaging/media/", &admin_b).await.expect(200);
    assert_eq!(none["totalRecords"], 0);
    let id = first["id"].as_i64().unwrap();
    app.delete(&format!("/v2/messaging/media/{id}"), &admin_b)
        .await
        .error(404, "NotFound");
    let admins = all["records"][2]["id"].as_i64().unwrap();
    app.delete(&format!("/v2/messaging/media/{admins}"), &user)
        .await
        .error(404, "NotFound");

    // Deleting: the record and its bytes at once, the object through the job queue.
    let key = first["objectKey"].as_str().unwrap().to_owned();
    assert!(app.object_path(&key).exists());
    let deleted = app
        .delete(&format!("/v2/messaging/media/{id}"), &user)
        .await
        .expect(200);
    assert_eq!(deleted["objectKey"], key.as_str());
    app.delete(&format!("/v2/messaging/media/{id}"), &user)
        .await
        .error(404, "NotFound");
    assert_eq!(usage(&app, w.tenant_a).await, 2 * SIZE as i64);
    app.jobs_done().await;
    assert!(!app.object_path(&key).exists(), "the object is gone");
    let left = app.get("/v2/messaging/media/", &user).await.expect(200);
    assert!(!keys(&left).contains(&key));
    assert_eq!(left["totalRecords"], 1);
}

async fn the_quota_refuses_and_a_burst_cannot_overshoot_it(app: TestApp) {
    let w = World::seed(&app).await;
    set_quota(&app, w.tenant_a, 3 * SIZE as i64).await;
    let user = app.login(w.user_a).await;
    upload(&app, &user, 2).await.expect(200);
    let prefix = format!("tenants/{}/mms", w.tenant_a);
    // Two more would make four: refused, nothing kept.
    let refused = upload(&app, &user, 2).await.error(413, "PayloadTooLarge");
    assert!(refused.is_empty());
    assert_eq!(usage(&app, w.tenant_a).await, 2 * SIZE as i64);
    app.jobs_done().await;
    assert_eq!(app.stored_objects(&prefix).len(), 2);
    assert_eq!(app.count("mms_media", None).await, 2);

    // Room for one more: of a concurrent burst of eight, exactly one is kept.
    let burst: Vec<_> = (0..8)
        .map(|_| {
            let (app, user) = (&app, user.clone());
            async move { upload(app, &user, 1).await }
        })
        .collect();
    let answers = futures::future::join_all(burst).await;
    let statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 413),
        "{statuses:?}"
    );
    assert_eq!(usage(&app, w.tenant_a).await, 3 * SIZE as i64);
    assert_eq!(app.count("mms_media", None).await, 3);
    app.jobs_done().await;
    assert_eq!(
        app.stored_objects(&prefix).len(),
        3,
        "refused files are gone"
    );
    // Another tenant's quota is its own.
    let admin_b = app.login(w.admin_b).await;
    upload(&app, &admin_b, 2).await.expect(200);
}

async fn retention_removes_an_expired_upload(app: TestApp) {
    let w = World::seed(&app).await;
    let user = app.login(w.user_a).await;
    upload(&app, &user, 2).await.expect(200);
    let page = app
        .get("/v2/messaging/media/?sortBy=id", &user)
        .await
        .expect(200);
    let expired = page["records"][0]["objectKey"].as_str().unwrap().to_owned();
    let kept = page["records"][1]["objectKey"].as_str().unwrap().to_owned();
    let mut tx = app.state.db.begin().await.unwrap();
    let expire = Query::update()
        .table("mms_media")
        .value("expires_at", 0i64)
        .and_where(Expr::col("object_key").eq(expired.as_str()))
        .take();
    assert_eq!(tx.execute(&expire).await.unwrap(), 1);
    tx.commit().await.unwrap();
    // The background sweep removes it, record and object, without any request.
    let mut gone = false;
    for _ in 0..200 {
        if app.count("mms_media", Some(("object_key", &expired))).await == 0
            && !app.object_path(&expired).exists()
        {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(gone, "the expired upload is removed within ten seconds");
    assert!(app.object_path(&kept).exists());
    assert_eq!(
        keys(&app.get("/v2/messaging/media/", &user).await.expect(200)),
        [kept]
    );
    assert_eq!(usage(&app, w.tenant_a).await, SIZE as i64);
}

fn two_second_uploads(config: &mut switchboard::Config) {
    config.upload_timeout_seconds = 2;
}

/// An upload cut off between storing a file and recording it (here: its first file
/// stored, then the second never finished, until the upload timeout drops the request)
/// leaves no object behind: its deletion was pledged before it was stored, and only
/// recording it cancels that.
async fn a_file_stored_but_never_recorded_is_deleted(app: TestApp) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let address = app.base.trim_start_matches("http://").to_owned();
    let mut slow = tokio::net::TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "POST /v2/messaging/messages/upload-media HTTP/1.1\r\nHost: {address}\r\n\
         Authorization: Bearer {token}\r\nContent-Type: multipart/form-data; boundary=XyZ\r\n\
         Content-Length: 1000000\r\n\r\n\
         --XyZ\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.jpg\"\r\n\
         Content-Type: image/jpeg\r\n\r\n"
    );
    let mut sent = head.into_bytes();
    sent.extend(jpeg(SIZE));
    sent.extend_from_slice(
        b"\r\n--XyZ\r\nContent-Disposition: form-data; name=\"files\"; filename=\"b.jpg\"\r\n\
          Content-Type: image/jpeg\r\n\r\n",
    );
    sent.extend(&jpeg(SIZE)[..100]);
    slow.write_all(&sent).await.unwrap();
    let mut answer = vec![0u8; 4096];
    let read = tokio::time::timeout(std::time::Duration::from_secs(10), slow.read(&mut answer))
        .await
        .expect("the stalled upload is answered")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    let prefix = format!("tenants/{}/mms", w.tenant_a);
    assert_eq!(app.count("mms_media", None).await, 0);
    // The pledge falls due past the upload timeout (and ten seconds of clock margin).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !app.stored_objects(&prefix).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "an unrecorded object stays: {:?}",
            app.stored_objects(&prefix)
        );
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    // A recorded upload keeps its object: its pledge was cancelled with the record.
    upload(&app, &token, 1).await.expect(200);
    assert_eq!(
        app.count("jobs", None).await,
        0,
        "no pledge is left pending"
    );
    assert_eq!(app.stored_objects(&prefix).len(), 1);
}

crate::on_both_backends!(with two_second_uploads; a_file_stored_but_never_recorded_is_deleted);

/// Room for a burst of eight uploads of one tenant (a quarter of 32 slots).
fn thirty_two_uploads(config: &mut switchboard::Config) {
    config.upload_concurrency = 32;
}

crate::on_both_backends!(with thirty_two_uploads; the_quota_refuses_and_a_burst_cannot_overshoot_it);

crate::on_both_backends!(
    listed_scoped_and_deleted_with_the_object,
    retention_removes_an_expired_upload,
);
