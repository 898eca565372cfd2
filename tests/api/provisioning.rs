//! Provisioning: each phone reads its own file with its own credentials and nothing else
//! can; the rendered files match the golden files under `tests/fixtures/provisioning/`
//! (checked by hand against Yealink's, Polycom's, Grandstream's and Cisco's documented
//! formats; rewrite them with
//! `UPDATE_GOLDEN=1` after an intended change and review the diff).

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// Fetches a provisioning file with Basic credentials (or none).
async fn fetch(
    app: &TestApp,
    file: &str,
    credentials: Option<(&str, &str)>,
) -> (u16, String, String) {
    let mut request = app.client.get(app.url(&format!("/provisioning/{file}")));
    if let Some((user, password)) = credentials {
        request = request.basic_auth(user, Some(password));
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, challenge, response.text().await.unwrap())
}

async fn sql(app: &TestApp, statement: sea_query::UpdateStatement) {
    app.state.db.conn().execute(&statement).await.unwrap();
}

fn golden(name: &str, rendered: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/provisioning")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, rendered).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    assert_eq!(rendered, expected, "{name} differs from its golden file");
}

fn credentials(device: &Value) -> (String, String) {
    (
        device["provisioningUsername"].as_str().unwrap().to_owned(),
        device["provisioningPassword"].as_str().unwrap().to_owned(),
    )
}

async fn only_the_phone_itself_reads_its_file(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let one = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "One", "mac": "80:5e:c0:00:00:01", "model": "yealink-t54w", "lines": [w.ext_a]}),
        )
        .await;
    let two = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Two", "mac": "80:5e:c0:00:00:02", "model": "yealink-t54w"}),
        )
        .await;
    let (user, password) = credentials(&one);
    let (other_user, other_password) = credentials(&two);
    let file = "805ec0000001.cfg";

    let (status, challenge, _) = fetch(&app, file, None).await;
    assert_eq!(status, 401);
    assert!(
        challenge.starts_with(
            "Digest realm=\"Switchboard provisioning\", qop=\"auth\", algorithm=SHA-256"
        ),
        "{challenge}"
    );
    let (status, _, _) = fetch(&app, file, Some((&user, "wrong-password"))).await;
    assert_eq!(status, 401, "a wrong password");
    let (status, _, _) = fetch(&app, file, Some((&other_user, &other_password))).await;
    assert_eq!(status, 401, "another phone's credentials");
    let (status, _, _) = fetch(&app, file, Some((&other_user, &password))).await;
    assert_eq!(status, 401, "another phone's user name");
    let (status, _, _) = fetch(&app, "805ec0000009.cfg", Some((&user, &password))).await;
    assert_eq!(
        status, 401,
        "a MAC nobody has answers like a wrong password"
    );
    let bearer = app
        .client
        .get(app.url(&format!("/provisioning/{file}")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        bearer.status().as_u16(),
        401,
        "an admin's token is no phone credential"
    );

    let (status, _, body) = fetch(&app, file, Some((&user, &password))).await;
    assert_eq!(status, 200);
    assert!(body.starts_with("#!version:1.0.0.1\n"), "{body}");
    assert!(body.contains("account.1.user_name = 101\n"), "{body}");
    let (status, _, body) = fetch(&app, "805EC0000001.cfg", Some((&user, &password))).await;
    assert_eq!(
        (status, body.contains("account.1.enable = 1")),
        (200, true),
        "either case"
    );

    let id = one["id"].as_i64().unwrap();
    let rotated = app
        .post(
            &format!("/v2/admin/devices/{id}/provisioning-credentials"),
            &token,
            json!({}),
        )
        .await
        .expect(200);
    assert_eq!(rotated["username"], user.as_str());
    assert!(
        rotated["url"]
            .as_str()
            .unwrap()
            .ends_with("/provisioning/805ec0000001.cfg"),
        "{rotated}"
    );
    let fresh = rotated["password"].as_str().unwrap();
    assert_ne!(fresh, password);
    let (status, _, _) = fetch(&app, file, Some((&user, &password))).await;
    assert_eq!(status, 401, "the old password stopped working");
    let (status, _, _) = fetch(&app, file, Some((&user, fresh))).await;
    assert_eq!(status, 200);
    let other = app.login(w.admin_b).await;
    app.post(
        &format!("/v2/admin/devices/{id}/provisioning-credentials"),
        &other,
        json!({}),
    )
    .await
    .error(404, "NotFound");
    let (status, _, _) = fetch(&app, file, Some((&user, fresh))).await;
    assert_eq!(status, 200, "a refused rotation changed nothing");
    // A phone of the main branch carrying the annex's extension: the main branch's admin
    // reaches the phone but not that line, whose SIP password the file carries.
    let mixed = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Mixed", "mac": "80:5e:c0:00:00:03", "model": "yealink-t54w",
            "branchId": w.branch_a, "lines": [w.ext_a, w.ext_a2]}),
        )
        .await;
    let branch_admin = app.login(w.branch_admin_a).await;
    app.post(
        &format!("/v2/admin/devices/{}/provisioning-credentials", mixed["id"]),
        &branch_admin,
        json!({}),
    )
    .await
    .error(403, "Forbidden");
    let (status, _, _) = fetch(
        &app,
        "805ec0000003.cfg",
        Some(&credentials(&mixed)).map(|(u, p)| (u.as_str(), p.as_str())),
    )
    .await;
    assert_eq!(status, 200, "the refused rotation changed nothing");

    app.delete(&format!("/v2/admin/devices/{id}"), &token)
        .await
        .expect(200);
    let (status, _, _) = fetch(&app, file, Some((&user, fresh))).await;
    assert_eq!(status, 401, "a deleted phone's file is gone");
    let (status, _, _) = fetch(&app, "not-a-phone.cfg", Some((&user, fresh))).await;
    assert_eq!(status, 404);

    let grandstream = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "GS", "mac": "c0:74:ad:00:00:03", "model": "grandstream-grp2614"}),
        )
        .await;
    let (user, password) = credentials(&grandstream);
    let (status, _, _) = fetch(&app, "c074ad000003.cfg", Some((&user, &password))).await;
    assert_eq!(status, 404, "another vendor's file name");
    let (status, _, _) = fetch(&app, "spac074ad000003.xml", Some((&user, &password))).await;
    assert_eq!(status, 404, "another vendor's file name");
    let (status, _, _) = fetch(&app, "cfgc074ad000003.xml", Some((&user, &password))).await;
    assert_eq!(status, 200, "its own");
    let (status, _, _) = fetch(&app, "cfgc074ad000003.xml", Some((&user, "wrong"))).await;
    assert_eq!(status, 401);
}

/// The tenant's time zone, the user of extension 101 with its SIP account (set in the
/// store: no endpoint takes a peer secret from an admin), a paging group.
async fn world_for_files(app: &TestApp) -> (World, String, i64) {
    use sea_query::{Expr, ExprTrait, Query};
    let w = World::seed(app).await;
    w.give_user_a_extension(app).await;
    let platform = app.login(w.platform).await;
    let tenant = app
        .patch(
            &format!("/v2/admin/tenants/{}", w.tenant_a),
            &platform,
            json!({"timezone": "America/New_York"}),
        )
        .await
        .expect(200);
    assert_eq!(tenant["timezone"], "America/New_York");
    sql(
        app,
        Query::update()
            .table("users")
            .value("peer_name", "t1-101")
            .value("peer_secret", "Sip&Secret\"101\nx")
            .and_where(Expr::col("ext_id").eq(w.ext_a))
            .take(),
    )
    .await;
    let token = app.login(w.admin_a).await;
    let group = app
        .create(
            "/v2/admin/paging-groups/",
            &token,
            json!({"tenantId": w.tenant_a, "number": "460", "name": "Warehouse"}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    (w, token, group)
}

async fn the_yealink_file_matches_its_golden_file(app: TestApp) {
    let (w, token, group) = world_for_files(&app).await;
    let layout = app
        .create(
            "/v2/admin/button-layouts/",
            &token,
            json!({"name": "Reception", "deviceModel": "yealink-t54w", "keys": [
                {"index": 1, "type": "line", "label": "Front"},
                {"index": 2, "type": "line", "value": "2"},
                {"index": 3, "type": "blf", "value": w.ext_a2.to_string(), "label": "Annex"},
                {"index": 4, "type": "speedDial", "value": "+15555550100", "label": "Supplier"},
                {"index": 5, "type": "park", "value": "700"},
                {"index": 6, "type": "voicemail"},
                {"index": 7, "type": "pagingGroup", "value": group.to_string()},
                {"index": 8, "type": "dnd"},
                {"index": 28, "type": "speedDial", "value": "*97", "label": "Sidecar 1"},
                {"index": 89, "type": "speedDial", "value": "*98", "label": "Sidecar 2"},
            ]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let device = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Front desk", "mac": "80:5E:C0:00:00:01", "model": "yealink-t54w",
            "lines": [w.ext_a, w.ext_a2], "buttonLayoutId": layout}),
        )
        .await;
    let (user, password) = credentials(&device);
    let (status, _, body) = fetch(&app, "805ec0000001.cfg", Some((&user, &password))).await;
    assert_eq!(status, 200, "{body}");
    golden("yealink-t54w.cfg", &body);

    let platform = app.login(w.platform).await;
    app.patch(
        &format!("/v2/admin/tenants/{}", w.tenant_a),
        &platform,
        json!({"timezone": "Asia/Kolkata"}),
    )
    .await
    .expect(200);
    // The phones are announced by a background job.
    app.jobs_done().await;
    let (_, _, body) = fetch(&app, "805ec0000001.cfg", Some((&user, &password))).await;
    assert!(body.contains("configuration version 2\n"), "{body}");
    assert!(
        body.contains("local_time.time_zone = +5:30\nlocal_time.summer_time = 0\n"),
        "{body}"
    );
}

async fn the_polycom_files_match_their_golden_files(app: TestApp) {
    let (w, token, group) = world_for_files(&app).await;
    let layout = app
        .create(
            "/v2/admin/button-layouts/",
            &token,
            json!({"name": "Poly", "deviceModel": "poly-vvx450", "keys": [
                {"index": 1, "type": "line"},
                {"index": 2, "type": "blf", "value": w.ext_a2.to_string(), "label": "Annex <2>"},
                {"index": 3, "type": "speedDial", "value": "+15555550100", "label": "Supplier"},
                {"index": 4, "type": "park", "value": "700"},
                {"index": 5, "type": "park"},
                {"index": 6, "type": "voicemail"},
                {"index": 7, "type": "pagingGroup", "value": group.to_string()},
                {"index": 8, "type": "dnd", "label": "Quiet"},
                {"index": 13, "type": "line", "value": "1"},
            ]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let device = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Conference", "mac": "64-16-7F-00-00-02", "model": "poly-vvx450",
            "lines": [w.ext_a], "buttonLayoutId": layout}),
        )
        .await;
    let (user, password) = credentials(&device);
    let (status, _, master) = fetch(&app, "64167f000002.cfg", Some((&user, &password))).await;
    assert_eq!(status, 200, "{master}");
    golden("polycom-vvx450-master.cfg", &master);
    let (status, _, phone) = fetch(&app, "phone64167f000002.cfg", Some((&user, &password))).await;
    assert_eq!(status, 200, "{phone}");
    golden("polycom-vvx450-phone.cfg", &phone);
    let (status, _, _) = fetch(&app, "phone64167f000002.cfg", None).await;
    assert_eq!(status, 401);
}

async fn the_grandstream_file_matches_its_golden_file(app: TestApp) {
    let (w, token, group) = world_for_files(&app).await;
    let layout = app
        .create(
            "/v2/admin/button-layouts/",
            &token,
            json!({"name": "GRP", "deviceModel": "grandstream-grp2614", "keys": [
                {"index": 1, "type": "line"},
                {"index": 2, "type": "line", "value": "2", "label": "Annex"},
                {"index": 3, "type": "blf", "value": w.ext_a2.to_string()},
                {"index": 4, "type": "speedDial", "value": "+15555550100", "label": "Supplier & Co"},
                {"index": 5, "type": "park", "value": "700"},
                {"index": 6, "type": "voicemail"},
                {"index": 7, "type": "pagingGroup", "value": group.to_string()},
                {"index": 8, "type": "dnd", "label": "Quiet"},
                {"index": 17, "type": "speedDial", "value": "*97", "label": "Screen 1"},
                {"index": 41, "type": "speedDial", "value": "*98", "label": "GBX20 1"},
                {"index": 200, "type": "park", "label": "Last"},
            ]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let device = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Stock <room>", "mac": "C0:74:AD:00:00:07", "model": "grandstream-grp2614",
            "lines": [w.ext_a, w.ext_a2], "buttonLayoutId": layout}),
        )
        .await;
    let (user, password) = credentials(&device);
    let (status, _, body) = fetch(&app, "cfgc074ad000007.xml", Some((&user, &password))).await;
    assert_eq!(status, 200, "{body}");
    golden("grandstream-grp2614.xml", &body);
    let (status, _, _) = fetch(&app, "cfgc074ad000007.xml", None).await;
    assert_eq!(status, 401);
}

async fn the_cisco_spa_file_matches_its_golden_file(app: TestApp) {
    let (w, token, _) = world_for_files(&app).await;
    let layout = app
        .create(
            "/v2/admin/button-layouts/",
            &token,
            json!({"name": "SPA", "deviceModel": "cisco-spa504g", "keys": [
                {"index": 1, "type": "line"},
                {"index": 2, "type": "blf", "value": w.ext_a2.to_string(), "label": "Annex"},
                {"index": 3, "type": "speedDial", "value": "5550100"},
                {"index": 6, "type": "speedDial", "value": "*97", "label": "Sidecar <1>"},
            ]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let device = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Shop", "mac": "00-14-BF-00-00-08", "model": "cisco-spa504g",
            "lines": [w.ext_a], "buttonLayoutId": layout}),
        )
        .await;
    let (user, password) = credentials(&device);
    let (status, _, body) = fetch(&app, "spa0014bf000008.xml", Some((&user, &password))).await;
    assert_eq!(status, 200, "{body}");
    golden("cisco-spa504g.xml", &body);
    let (status, _, _) = fetch(&app, "spa0014bf000008.xml", Some((&user, "nope"))).await;
    assert_eq!(status, 401);
}

/// A phone keeps every setting its file leaves out, so a key removed from a layout must
/// be written back as unused: on each vendor, a key of the phone and a key of its
/// expansion module, once set and then removed, reset their slots (the exact lines).
async fn a_removed_key_is_cleared_on_every_vendors_phone(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    // model, MAC, file, the expansion key's index, and for the phone's key 3 and that
    // expansion key: the lines with the key, then the lines once it is removed.
    type Vendor = (
        &'static str,
        &'static str,
        &'static str,
        i64,
        [&'static str; 2],
        [&'static str; 2],
    );
    let vendors: [Vendor; 4] = [
        (
            "yealink-t54w",
            "805ec0000071",
            "805ec0000071.cfg",
            28,
            [
                "linekey.3.type = 13\nlinekey.3.line = 1\nlinekey.3.value = *97\nlinekey.3.label = Desk\n",
                "expansion_module.1.key.1.type = 13\nexpansion_module.1.key.1.line = 1\n\
                 expansion_module.1.key.1.value = *98\nexpansion_module.1.key.1.label = Side\n",
            ],
            [
                "linekey.3.type = 0\nlinekey.3.line = 1\nlinekey.3.value = \nlinekey.3.label = \n",
                "expansion_module.1.key.1.type = 0\nexpansion_module.1.key.1.line = 1\n\
                 expansion_module.1.key.1.value = \nexpansion_module.1.key.1.label = \n",
            ],
        ),
        (
            "poly-vvx450",
            "64167f000072",
            "phone64167f000072.cfg",
            13,
            [
                "    lineKey.3.category=\"EFK\"\n    lineKey.3.index=\"1\"\n",
                "    lineKey.13.category=\"EFK\"\n    lineKey.13.index=\"2\"\n",
            ],
            [
                "    lineKey.3.category=\"Unassigned\"\n    lineKey.3.index=\"0\"\n",
                "    lineKey.13.category=\"Unassigned\"\n    lineKey.13.index=\"0\"\n",
            ],
        ),
        (
            "grandstream-grp2614",
            "c074ad000073",
            "cfgc074ad000073.xml",
            41,
            [
                "    <P1367>0</P1367>\n    <P1368>0</P1368>\n    <P1469>Desk</P1469>\n    <P1470>*97</P1470>\n",
                "    <P23000>0</P23000>\n    <P23001>0</P23001>\n    <P23002>Side</P23002>\n    <P23003>*98</P23003>\n",
            ],
            [
                "    <P1367>-1</P1367>\n    <P1368>0</P1368>\n    <P1469></P1469>\n    <P1470></P1470>\n",
                "    <P23000>-1</P23000>\n    <P23001>0</P23001>\n    <P23002></P23002>\n    <P23003></P23003>\n",
            ],
        ),
        (
            "cisco-spa504g",
            "0014bf000074",
            "spa0014bf000074.xml",
            5,
            [
                "  <Extension_3_>Disabled</Extension_3_>\n  <Short_Name_3_>Desk</Short_Name_3_>\n  \
                 <Extended_Function_3_>fnc=sd;ext=*97@127.0.0.1;nme=Desk</Extended_Function_3_>\n",
                "  <Unit_1_Key_1_>fnc=sd;ext=*98@127.0.0.1;nme=Side</Unit_1_Key_1_>\n",
            ],
            [
                "  <Extension_3_>Disabled</Extension_3_>\n  <Short_Name_3_></Short_Name_3_>\n  \
                 <Extended_Function_3_></Extended_Function_3_>\n",
                "  <Unit_1_Key_1_></Unit_1_Key_1_>\n",
            ],
        ),
    ];
    for (model, mac, file, expansion, with, without) in vendors {
        let layout = app
            .create(
                "/v2/admin/button-layouts/",
                &token,
                json!({"name": model, "deviceModel": model, "keys": [
                    {"index": 1, "type": "line"},
                    {"index": 3, "type": "speedDial", "value": "*97", "label": "Desk"},
                    {"index": expansion, "type": "speedDial", "value": "*98", "label": "Side"},
                ]}),
            )
            .await["id"]
            .as_i64()
            .unwrap();
        let device = app
            .create(
                "/v2/admin/devices/",
                &token,
                json!({"name": model, "mac": mac, "model": model, "lines": [w.ext_a],
                "buttonLayoutId": layout}),
            )
            .await;
        let (user, password) = credentials(&device);
        let (status, _, body) = fetch(&app, file, Some((&user, &password))).await;
        assert_eq!(status, 200, "{model}: {body}");
        for lines in with {
            assert!(body.contains(lines), "{model} lacks\n{lines}in\n{body}");
        }
        for lines in without {
            assert!(!body.contains(lines), "{model}: already\n{lines}");
        }
        app.patch(
            &format!("/v2/admin/button-layouts/{layout}"),
            &token,
            json!({"keys": [{"index": 1, "type": "line"}]}),
        )
        .await
        .expect(200);
        let (status, _, body) = fetch(&app, file, Some((&user, &password))).await;
        assert_eq!(status, 200, "{model}: {body}");
        assert!(
            body.contains("configuration version 2\n")
                || body.contains("configuration version 2 -->"),
            "{model}: {body}"
        );
        for lines in without {
            assert!(
                body.contains(lines),
                "{model}: the removed key's slot is not reset\n{lines}in\n{body}"
            );
        }
        for lines in with {
            assert!(!body.contains(lines), "{model}: still\n{lines}");
        }
    }
}

/// The `WWW-Authenticate` challenges of a 401, in order.
async fn challenges(app: &TestApp, file: &str) -> Vec<String> {
    let response = app
        .client
        .get(app.url(&format!("/provisioning/{file}")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 401);
    response
        .headers()
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect()
}

/// One parameter of a challenge.
fn param(challenge: &str, name: &str) -> Option<String> {
    let at = challenge.find(&format!("{name}="))? + name.len() + 1;
    let rest = &challenge[at..];
    Some(match rest.strip_prefix('"') {
        Some(quoted) => quoted[..quoted.find('"')?].to_owned(),
        None => rest.split([',', ' ']).next()?.to_owned(),
    })
}

fn hash(algorithm: &str, text: &str) -> String {
    use sha2::Digest;
    match algorithm {
        "MD5" => hex::encode(md5::Md5::digest(text.as_bytes())),
        _ => hex::encode(sha2::Sha256::digest(text.as_bytes())),
    }
}

/// Nonce counts no test has sent: an answer counts once (per nonce and `nc`), so every
/// answer but a deliberate replay takes a new one.
static NONCE_COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

/// An RFC 7616 `Authorization: Digest` answer (qop=auth) to `nonce` for `GET uri`, as a
/// phone computes it, with a fresh nonce count.
fn digest_answer(algorithm: &str, credentials: (&str, &str), nonce: &str, uri: &str) -> String {
    let nc = NONCE_COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    digest_answer_counted(algorithm, credentials, nonce, uri, nc)
}

/// [`digest_answer`] with the nonce count `nc`.
fn digest_answer_counted(
    algorithm: &str,
    (user, password): (&str, &str),
    nonce: &str,
    uri: &str,
    nc: u32,
) -> String {
    let (nc, cnonce) = (format!("{nc:08x}"), "0a4f113b");
    let ha1 = hash(
        algorithm,
        &format!("{user}:Switchboard provisioning:{password}"),
    );
    let ha2 = hash(algorithm, &format!("GET:{uri}"));
    let response = hash(
        algorithm,
        &format!("{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}"),
    );
    format!(
        "Digest username=\"{user}\", realm=\"Switchboard provisioning\", nonce=\"{nonce}\", \
         uri=\"{uri}\", algorithm={algorithm}, qop=auth, nc={nc}, cnonce=\"{cnonce}\", \
         response=\"{response}\""
    )
}

async fn fetch_digest(
    app: &TestApp,
    file: &str,
    authorization: &str,
) -> (u16, Vec<String>, String) {
    let response = app
        .client
        .get(app.url(&format!("/provisioning/{file}")))
        .header("authorization", authorization)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let challenges = response
        .headers()
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    (status, challenges, response.text().await.unwrap())
}

/// Phones use Digest: SHA-256 and MD5 with qop=auth answer the file; a wrong password,
/// another phone's secret, another file's URI, a forged or expired nonce do not; an
/// expired nonce is answered `stale=true`; a rotated password's old secret stops working.
async fn phones_authenticate_with_digest(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let one = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "One", "mac": "80:5e:c0:00:00:11", "model": "yealink-t54w", "lines": [w.ext_a]}),
        )
        .await;
    let two = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Two", "mac": "80:5e:c0:00:00:12", "model": "yealink-t54w"}),
        )
        .await;
    let (user, password) = credentials(&one);
    let (other_user, other_password) = credentials(&two);
    let file = "805ec0000011.cfg";
    let uri = format!("/provisioning/{file}");

    let offered = challenges(&app, file).await;
    assert_eq!(offered.len(), 3, "{offered:?}");
    assert_eq!(param(&offered[0], "algorithm").as_deref(), Some("SHA-256"));
    assert_eq!(param(&offered[1], "algorithm").as_deref(), Some("MD5"));
    assert!(offered[2].starts_with("Basic "), "{offered:?}");
    for challenge in &offered[..2] {
        assert_eq!(param(challenge, "qop").as_deref(), Some("auth"));
        assert_eq!(
            param(challenge, "realm").as_deref(),
            Some("Switchboard provisioning")
        );
    }
    let nonce = param(&offered[0], "nonce").unwrap();

    for algorithm in ["SHA-256", "MD5"] {
        let answer = digest_answer(algorithm, (&user, &password), &nonce, &uri);
        let (status, _, body) = fetch_digest(&app, file, &answer).await;
        assert_eq!(status, 200, "{algorithm}: {body}");
        assert!(body.contains("account.1.user_name = 101\n"), "{body}");
        // The same answer for another file (another phone's, or this one under another
        // name) proves nothing there.
        let (status, _, _) = fetch_digest(&app, "805ec0000012.cfg", &answer).await;
        assert_eq!(status, 401, "{algorithm}: another URI");
    }
    for (what, answer) in [
        (
            "a wrong password",
            digest_answer("SHA-256", (&user, "wrong"), &nonce, &uri),
        ),
        (
            "another phone's credentials",
            digest_answer("SHA-256", (&other_user, &other_password), &nonce, &uri),
        ),
        (
            "a nonce the service never gave",
            digest_answer(
                "SHA-256",
                (&user, &password),
                "4102444800.00000000000000000000000000000000",
                &uri,
            ),
        ),
        (
            "no qop",
            digest_answer("MD5", (&user, &password), &nonce, &uri).replace("qop=auth, ", ""),
        ),
    ] {
        let (status, _, _) = fetch_digest(&app, file, &answer).await;
        assert_eq!(status, 401, "{what}");
    }
    // A nonce of ours (for this phone) that has expired: right credentials, answered stale.
    let expired = {
        let expires = chrono::Utc::now().timestamp() - 1;
        let unique = "00112233aabbccdd";
        let tag = app
            .state
            .tokens
            .nonce_tag(format!("805ec0000011\0{expires}\0{unique}").as_bytes());
        format!("{expires}.{unique}.{}", hex::encode(&tag[..16]))
    };
    let (status, challenges, _) = fetch_digest(
        &app,
        file,
        &digest_answer("SHA-256", (&user, &password), &expired, &uri),
    )
    .await;
    assert_eq!(status, 401);
    assert!(challenges[0].contains("stale=true"), "{challenges:?}");
    let (status, challenges, _) = fetch_digest(
        &app,
        file,
        &digest_answer("SHA-256", (&user, "wrong"), &expired, &uri),
    )
    .await;
    assert_eq!(status, 401);
    assert!(!challenges[0].contains("stale"), "{challenges:?}");

    // Rotated: the new password's digest opens the file, the old one's no longer does.
    let rotated = app
        .post(
            &format!("/v2/admin/devices/{}/provisioning-credentials", one["id"]),
            &token,
            json!({}),
        )
        .await
        .expect(200);
    let new_password = rotated["password"].as_str().unwrap();
    let (status, _, _) = fetch_digest(
        &app,
        file,
        &digest_answer("MD5", (&user, &password), &nonce, &uri),
    )
    .await;
    assert_eq!(status, 401, "the old password");
    let (status, _, _) = fetch_digest(
        &app,
        file,
        &digest_answer("MD5", (&user, new_password), &nonce, &uri),
    )
    .await;
    assert_eq!(status, 200, "the new password");
    // Basic still works beside it.
    let (status, _, _) = fetch(&app, file, Some((&user, new_password))).await;
    assert_eq!(status, 200);
}

/// A nonce is the phone's it was issued for: another phone's nonce, answered rightly for
/// this one, is refused. A right answer counts once: the same answer again (a captured
/// one replayed) is refused, also when replayed many times at once, while the phone's
/// next count is accepted; expired uses are pruned.
async fn a_digest_answer_counts_once_and_for_its_phone(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let mut devices = Vec::new();
    for (name, mac) in [("One", "80:5e:c0:00:00:21"), ("Two", "80:5e:c0:00:00:22")] {
        let device = app
            .create(
                "/v2/admin/devices/",
                &token,
                json!({"name": name, "mac": mac, "model": "yealink-t54w"}),
            )
            .await;
        devices.push(credentials(&device));
    }
    let (user, password) = (devices[0].0.as_str(), devices[0].1.as_str());
    let file = "805ec0000021.cfg";
    let uri = format!("/provisioning/{file}");
    let nonce = param(&challenges(&app, file).await[0], "nonce").unwrap();
    let other_nonce = param(&challenges(&app, "805ec0000022.cfg").await[0], "nonce").unwrap();

    // The other phone's nonce, with this phone's right answer: not a nonce of this phone.
    let (status, offered, _) = fetch_digest(
        &app,
        file,
        &digest_answer("SHA-256", (user, password), &other_nonce, &uri),
    )
    .await;
    assert_eq!(status, 401, "another phone's nonce");
    assert!(!offered[0].contains("stale"), "{offered:?}");

    // nc 1 opens the file once; the same answer again is a replay.
    let first = digest_answer_counted("SHA-256", (user, password), &nonce, &uri, 1);
    let (status, _, body) = fetch_digest(&app, file, &first).await;
    assert_eq!(status, 200, "{body}");
    let (status, offered, _) = fetch_digest(&app, file, &first).await;
    assert_eq!(status, 401, "a replayed answer");
    assert_eq!(offered.len(), 3, "a fresh challenge: {offered:?}");
    // Another algorithm with the same count is the same use of the nonce.
    let md5 = digest_answer_counted("MD5", (user, password), &nonce, &uri, 1);
    assert_eq!(fetch_digest(&app, file, &md5).await.0, 401);
    // The phone's next count is accepted, once.
    let second = digest_answer_counted("MD5", (user, password), &nonce, &uri, 2);
    assert_eq!(fetch_digest(&app, file, &second).await.0, 200);
    assert_eq!(fetch_digest(&app, file, &second).await.0, 401);

    // Eight copies of one new answer at once: exactly one is accepted.
    let third = digest_answer_counted("SHA-256", (user, password), &nonce, &uri, 3);
    let answers = futures::future::join_all(
        (0..8).map(|_| async { fetch_digest(&app, file, &third).await.0 }),
    )
    .await;
    assert_eq!(
        answers.iter().filter(|status| **status == 200).count(),
        1,
        "{answers:?}"
    );
    assert!(
        answers.iter().all(|status| [200, 401].contains(status)),
        "{answers:?}"
    );

    // Uses are kept until their nonce expires, then pruned.
    let count = || async {
        let select = sea_query::Query::select()
            .expr(sea_query::Expr::cust("COUNT(*)"))
            .from("provisioning_digest_uses")
            .take();
        app.state.db.conn().scalar::<i64>(&select).await.unwrap()
    };
    assert_eq!(count().await, 3);
    let now = chrono::Utc::now().timestamp();
    assert!(
        switchboard_db::devices::first_digest_use(&app.state.db, "expired", "00000001", now - 1)
            .await
            .unwrap()
    );
    assert_eq!(
        switchboard_db::devices::prune_digest_uses(&app.state.db, now)
            .await
            .unwrap(),
        1
    );
    assert_eq!(count().await, 3);
}

/// The Digest secrets (HA1) are sealed at rest, bound to their device: the stored value is
/// not the HA1, a value copied from another device does not open, and values stored in
/// the clear before are sealed when the service starts.
async fn digest_secrets_are_sealed_at_rest(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let one = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "One", "mac": "80:5e:c0:00:00:31", "model": "yealink-t54w"}),
        )
        .await;
    let two = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Two", "mac": "80:5e:c0:00:00:32", "model": "yealink-t54w"}),
        )
        .await;
    let (user, password) = credentials(&one);
    let id = one["id"].as_i64().unwrap();
    let a1 = format!("{user}:Switchboard provisioning:{password}");
    let (md5, sha256) = (hash("MD5", &a1), hash("SHA-256", &a1));
    let columns = [
        "provisioning_digest_md5_secret",
        "provisioning_digest_sha256_secret",
    ];
    let shared = &app;
    let stored = |device: i64| async move {
        let mut values = Vec::new();
        for column in columns {
            let select = sea_query::Query::select()
                .column(column)
                .from("devices")
                .and_where(sea_query::ExprTrait::eq(sea_query::Expr::col("id"), device))
                .take();
            values.push(
                shared
                    .state
                    .db
                    .conn()
                    .scalar::<String>(&select)
                    .await
                    .unwrap(),
            );
        }
        values
    };
    let sealed = stored(id).await;
    for (value, ha1) in sealed.iter().zip([&md5, &sha256]) {
        assert_ne!(value, ha1);
        assert!(!value.contains(ha1.as_str()));
        assert!(value.starts_with("xc2:"), "{value}");
    }
    // The sealed value opens to the HA1 for its own row only.
    let seat = switchboard_db::seal::device_digest_md5(id);
    assert_eq!(
        app.state.sealer.open(seat, &sealed[0]).unwrap(),
        md5.as_bytes()
    );
    assert!(
        app.state
            .sealer
            .open(switchboard_db::seal::device_digest_md5(id + 1), &sealed[0])
            .is_none()
    );
    let file = "805ec0000031.cfg";
    let uri = format!("/provisioning/{file}");
    let nonce = param(&challenges(&app, file).await[0], "nonce").unwrap();
    let digest =
        |algorithm: &'static str| digest_answer(algorithm, (&user, &password), &nonce, &uri);
    assert_eq!(fetch_digest(&app, file, &digest("SHA-256")).await.0, 200);
    assert_eq!(fetch_digest(&app, file, &digest("MD5")).await.0, 200);

    // Device two's sealed secrets copied into one's row do not open there: Digest fails
    // (Basic, a separate secret, still works).
    let theirs = stored(two["id"].as_i64().unwrap()).await;
    let write = |values: Vec<String>| {
        let mut update = sea_query::Query::update();
        update.table("devices");
        for (column, value) in columns.into_iter().zip(values) {
            update.value(column, value);
        }
        update.and_where(sea_query::ExprTrait::eq(sea_query::Expr::col("id"), id));
        update.take()
    };
    sql(&app, write(theirs)).await;
    assert_eq!(fetch_digest(&app, file, &digest("SHA-256")).await.0, 401);
    assert_eq!(fetch(&app, file, Some((&user, &password))).await.0, 200);

    // Secrets stored in the clear (before they were sealed) are sealed at start-up and
    // keep working.
    sql(&app, write(vec![md5.clone(), sha256.clone()])).await;
    let resealed = switchboard_db::seal::reseal_unbound(&app.state.db, &app.state.sealer)
        .await
        .unwrap();
    assert_eq!(resealed, 2);
    let now_sealed = stored(id).await;
    assert!(
        now_sealed.iter().all(|v| v.starts_with("xc2:")),
        "{now_sealed:?}"
    );
    assert_eq!(fetch_digest(&app, file, &digest("SHA-256")).await.0, 200);
    // A second start finds nothing left to seal.
    assert_eq!(
        switchboard_db::seal::reseal_unbound(&app.state.db, &app.state.sealer)
            .await
            .unwrap(),
        0
    );
}

/// Phones boot as they do in the field: each file is first asked for without credentials,
/// and its own 401's challenge answered with `nc=00000001` (a new challenge restarts the
/// count), file after file within the second — Polycom's master file then its phone
/// file, Yealink's, Grandstream's and Cisco SPA's file, each phone booting twice. Every
/// 401 carries a fresh nonce (RFC 7616 §3.3), so each answer opens its file; the same
/// nonce and count again is still a replay (issue 29 item 1).
async fn vendor_boot_sequences_provision_with_their_digest_answers(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    for (model, mac, files, algorithm) in [
        (
            "poly-vvx450",
            "64:16:7f:00:00:31",
            &["64167f000031.cfg", "phone64167f000031.cfg"][..],
            "MD5",
        ),
        (
            "yealink-t54w",
            "80:5e:c0:00:00:31",
            &["805ec0000031.cfg"][..],
            "SHA-256",
        ),
        (
            "grandstream-grp2614",
            "c0:74:ad:00:00:31",
            &["cfgc074ad000031.xml"][..],
            "MD5",
        ),
        (
            "cisco-spa504g",
            "00:14:bf:00:00:31",
            &["spa0014bf000031.xml"][..],
            "MD5",
        ),
    ] {
        let device = app
            .create(
                "/v2/admin/devices/",
                &token,
                json!({"name": model, "mac": mac, "model": model, "lines": [w.ext_a]}),
            )
            .await;
        let (user, password) = credentials(&device);
        let mut answered = Vec::new();
        for boot in 1..=2 {
            for file in files {
                let uri = format!("/provisioning/{file}");
                let offered = challenges(&app, file).await;
                let nonce = offered
                    .iter()
                    .find(|c| c.contains(&format!("algorithm={algorithm},")))
                    .and_then(|c| param(c, "nonce"))
                    .expect("a challenge for the phone's algorithm");
                let answer = digest_answer_counted(algorithm, (&user, &password), &nonce, &uri, 1);
                let (status, _, body) = fetch_digest(&app, file, &answer).await;
                assert_eq!(status, 200, "{model}, boot {boot}, {file}: {body}");
                answered.push((file, answer));
            }
        }
        // Each challenge had its own nonce: four answers, four nonces.
        let nonces: std::collections::HashSet<_> = answered
            .iter()
            .map(|(_, answer)| param(answer, "nonce").unwrap())
            .collect();
        assert_eq!(nonces.len(), answered.len(), "{model}: {nonces:?}");
        // A captured answer replayed (its nonce and count again) is refused.
        let (file, answer) = &answered[0];
        let (status, _, _) = fetch_digest(&app, file, answer).await;
        assert_eq!(status, 401, "{model}: a replay");
    }
}

on_both_backends!(
    a_digest_answer_counts_once_and_for_its_phone,
    digest_secrets_are_sealed_at_rest,
    phones_authenticate_with_digest,
    only_the_phone_itself_reads_its_file,
    the_yealink_file_matches_its_golden_file,
    the_polycom_files_match_their_golden_files,
    the_grandstream_file_matches_its_golden_file,
    the_cisco_spa_file_matches_its_golden_file,
    a_removed_key_is_cleared_on_every_vendors_phone,
    vendor_boot_sequences_provision_with_their_digest_answers,
);
