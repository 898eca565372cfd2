//! A small world seeded through the library (fast), used over HTTP by the tests: two
//! partners, a tenant under each, branches, extensions and an account of every role.

use serde_json::{Value, json};
use switchboard::cli::{NewUser, create_tenant, create_user};
use switchboard_db::{branches, extensions, partners};
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::branch::CreateBranch;
use switchboard_domain::records::extension::CreateExtension;
use switchboard_domain::records::partner::CreatePartner;

use crate::support::{PASSWORD, TestApp};

/// Ids and logins of the seeded world.
pub struct World {
    pub partner_a: i64,
    pub partner_b: i64,
    pub tenant_a: i64,
    pub tenant_b: i64,
    pub branch_a: i64,
    pub branch_a2: i64,
    pub branch_b: i64,
    pub ext_a: i64,
    pub ext_a2: i64,
    pub ext_b: i64,
    pub platform: &'static str,
    pub partner_admin_a: &'static str,
    pub admin_a: &'static str,
    pub admin_b: &'static str,
    pub branch_admin_a: &'static str,
    pub user_a: &'static str,
}

async fn user(
    app: &TestApp,
    email: &str,
    role: &str,
    tenant: Option<i64>,
    partner: Option<i64>,
    branch: Option<i64>,
) -> Value {
    let json = create_user(
        &app.state,
        NewUser {
            email: email.into(),
            password: PASSWORD.into(),
            role: role.into(),
            tenant,
            partner,
            branch,
        },
    )
    .await
    .expect("a fixture user");
    serde_json::from_str(&json).expect("JSON")
}

async fn extension(app: &TestApp, tenant: i64, branch: i64, number: &str, name: &str) -> i64 {
    extensions::create(
        &app.state.db,
        TenantId(tenant),
        CreateExtension {
            tenant_id: None,
            branch_id: Some(switchboard_domain::ids::BranchId(branch)),
            number: number.into(),
            name: name.into(),
        },
    )
    .await
    .expect("a fixture extension")
    .id
    .get()
}

async fn branch(app: &TestApp, tenant: i64, name: &str) -> i64 {
    branches::create(
        &app.state.db,
        TenantId(tenant),
        CreateBranch {
            tenant_id: None,
            name: name.into(),
        },
    )
    .await
    .expect("a fixture branch")
    .id
    .get()
}

impl World {
    /// Seeds the world into `app`.
    pub async fn seed(app: &TestApp) -> World {
        let db = &app.state.db;
        let partner_a = partners::create(
            db,
            CreatePartner {
                name: "Partner A".into(),
            },
        )
        .await
        .expect("partner")
        .id
        .get();
        let partner_b = partners::create(
            db,
            CreatePartner {
                name: "Partner B".into(),
            },
        )
        .await
        .expect("partner")
        .id
        .get();
        let tenant = |json: String| {
            serde_json::from_str::<Value>(&json).expect("JSON")["id"]
                .as_i64()
                .expect("an id")
        };
        let tenant_a = tenant(
            create_tenant(&app.state, "Tenant A".into(), Some(partner_a))
                .await
                .expect("tenant"),
        );
        let tenant_b = tenant(
            create_tenant(&app.state, "Tenant B".into(), Some(partner_b))
                .await
                .expect("tenant"),
        );
        let branch_a = branch(app, tenant_a, "A main").await;
        let branch_a2 = branch(app, tenant_a, "A annex").await;
        let branch_b = branch(app, tenant_b, "B main").await;
        let ext_a = extension(app, tenant_a, branch_a, "101", "Front desk A").await;
        let ext_a2 = extension(app, tenant_a, branch_a2, "201", "Annex A").await;
        let ext_b = extension(app, tenant_b, branch_b, "101", "Front desk B").await;
        let world = World {
            partner_a,
            partner_b,
            tenant_a,
            tenant_b,
            branch_a,
            branch_a2,
            branch_b,
            ext_a,
            ext_a2,
            ext_b,
            platform: "platform@example.com",
            partner_admin_a: "partner-a@example.com",
            admin_a: "admin-a@example.com",
            admin_b: "admin-b@example.com",
            branch_admin_a: "branch-a@example.com",
            user_a: "user-a@example.com",
        };
        user(app, world.platform, "platform-admin", None, None, None).await;
        user(
            app,
            world.partner_admin_a,
            "partner-admin",
            None,
            Some(partner_a),
            None,
        )
        .await;
        user(
            app,
            world.admin_a,
            "tenant-admin",
            Some(tenant_a),
            None,
            None,
        )
        .await;
        user(
            app,
            world.admin_b,
            "tenant-admin",
            Some(tenant_b),
            None,
            None,
        )
        .await;
        user(
            app,
            world.branch_admin_a,
            "branch-admin",
            Some(tenant_a),
            None,
            Some(branch_a),
        )
        .await;
        user(
            app,
            world.user_a,
            "user",
            Some(tenant_a),
            None,
            Some(branch_a),
        )
        .await;
        world
    }

    /// Gives tenant A the phone number 12025550100 (its campaigns' caller id) through the
    /// API, as the platform admin provisions it.
    pub async fn give_tenant_a_caller_id_line(&self, app: &TestApp) {
        let platform = app.login(self.platform).await;
        app.create(
            "/v2/admin/phone-numbers/",
            &platform,
            serde_json::json!({"tenantId": self.tenant_a, "number": "12025550100"}),
        )
        .await;
    }

    /// A draft campaign of tenant A made through the API by `admin`, calling from its
    /// number 12025550100 (given here), open all week, to extension `ext_a`, with the
    /// fields of `extra` added to its body; answers its id.
    pub async fn campaign(&self, app: &TestApp, admin: &str, extra: serde_json::Value) -> i64 {
        self.give_tenant_a_caller_id_line(app).await;
        let mut body = serde_json::json!({
            "name": "Reminders",
            "callerIdNumber": "+12025550100",
            "destination": [{"id": self.ext_a, "destType": "EXT"}],
            "callingWindow": {"days": [0, 1, 2, 3, 4, 5, 6], "from": "00:00", "to": "24:00", "timeZone": "UTC"},
        });
        let serde_json::Value::Object(fields) = extra else {
            panic!("extra fields are an object: {extra}");
        };
        for (field, value) in fields {
            body[field] = value;
        }
        app.create("/v2/admin/call-campaigns/", admin, body).await["id"]
            .as_i64()
            .expect("an id")
    }

    /// Gives `user_a` extension `ext_a` (number 101) through the API, as its tenant
    /// admin would: its own mailbox and calls are those of that extension.
    pub async fn give_user_a_extension(&self, app: &TestApp) {
        let admin = app.login(self.admin_a).await;
        let users = app
            .get(&format!("/v2/admin/users/?query={}", self.user_a), &admin)
            .await
            .expect(200);
        let user_id = users["records"][0]["id"].as_i64().expect("an id");
        app.patch(
            &format!("/v2/admin/users/{user_id}"),
            &admin,
            json!({"extId": self.ext_a}),
        )
        .await
        .expect(200);
    }
}

/// A voicemail message as the engine pushes it (the `message` part of
/// `/v2/ingest/voicemail`): in `mailbox`'s inbox of `tenant`, 7 seconds long, from a
/// caller named by the message's id; a test lays what it needs over it.
pub fn voicemail_message(tenant: i64, mailbox: &str, msg_id: &str) -> Value {
    json!({
        "tenantId": tenant,
        "mailboxContext": "default",
        "mailboxUser": mailbox,
        "msgId": msg_id,
        "messageNumber": 0,
        "dir": "INBOX",
        "callerId": msg_id,
        "dateUnix": 1_700_000_000,
        "duration": 7,
        "extNum": mailbox,
    })
}

/// A call's `event` (`started`, `answered`, `ended`) as the engine pushes it (the `call`
/// part of `/v2/ingest/calls`), at 15:00 on 2 November 2026. A call placed inside the PBX
/// names its extension by its channel, as Asterisk does; an inbound caller id is nobody's
/// identity.
pub fn call_event(
    tenant: i64,
    unique_id: &str,
    event: &str,
    direction: &str,
    from: &str,
    to: &str,
) -> Value {
    let channel = if direction == "inbound" {
        "PJSIP/trunk-00000001".to_owned()
    } else {
        format!("PJSIP/{from}-00000001")
    };
    json!({
        "channel": channel,
        "tenantId": tenant,
        "uniqueId": unique_id,
        "event": event,
        "direction": direction,
        "callerIdNum": from,
        "callerIdName": format!("Caller {from}"),
        "dialedNum": to,
        "time": "2026-11-02T15:00:00Z",
    })
}

/// `fields` of a call made its end, two minutes and five seconds after it began:
/// answered after five seconds, or not at all.
pub fn ended(mut fields: Value, answered: bool) -> Value {
    fields["event"] = json!("ended");
    fields["endTime"] = json!("2026-11-02T15:02:05Z");
    if answered {
        fields["answerTime"] = json!("2026-11-02T15:00:05Z");
        fields["disposition"] = json!("ANSWERED");
    } else {
        fields["disposition"] = json!("NO ANSWER");
    }
    fields
}
