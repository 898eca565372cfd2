//! `serve --demo`: a realistic tenant to explore the API with — a pharmacy with its
//! numbers, menu, queue, phones, campaign and a week of traffic — seeded only into an
//! empty database (see [`prepare`]).

pub mod audio;
pub mod client;
pub mod pharmacy;

use serde_json::json;
use switchboard_api::AppState;
use switchboard_app::{tenants, users};
use switchboard_db::{branches, extensions, partners};
use switchboard_domain::Principal;
use switchboard_domain::ids::{BranchId, TenantId};
use switchboard_domain::records::branch::CreateBranch;
use switchboard_domain::records::extension::CreateExtension;
use switchboard_domain::records::partner::CreatePartner;
use switchboard_domain::records::tenant::CreateTenant;
use switchboard_domain::records::user::CreateUser;
use switchboard_domain::validation::FromBody;

/// The demo tenant admin's e-mail address.
pub const ADMIN_EMAIL: &str = "admin@demo.switchboard.test";
/// The demo platform admin's e-mail address.
pub const PLATFORM_EMAIL: &str = "platform@demo.switchboard.test";
/// The demo tenant admin's password: demo data of one tenant on a local machine, printed
/// on start. The platform admin, who reaches every tenant, gets a random one instead.
pub const PASSWORD: &str = "switchboard-demo-2026";

/// What seeding made that only it knows.
pub struct Seeded {
    /// The platform admin's password, random, to be shown once.
    pub platform_password: String,
    /// What could not be seeded and why (the speech engine missing), to be said.
    pub notes: Vec<String>,
}

/// What `serve --demo` does with the database it finds.
pub enum Outcome {
    /// It was empty: the demo was seeded.
    Seeded(Seeded),
    /// It holds the demo already: nothing changes.
    AlreadySeeded,
    /// It holds accounts and no demo: nothing is seeded, the data is served as it is
    /// (the demo never mixes its tenant and logins into an installation in use).
    NotDemo {
        /// How many accounts it holds.
        accounts: i64,
    },
}

impl Outcome {
    /// What the start says about the database when nothing was seeded.
    pub fn describe(&self) -> Option<String> {
        match self {
            Outcome::Seeded(_) => None,
            Outcome::AlreadySeeded => Some(
                "switchboard: --demo: this database holds the demo already; nothing seeded"
                    .to_owned(),
            ),
            Outcome::NotDemo { accounts } => Some(format!(
                "switchboard: --demo: this database holds {accounts} account(s) and no demo tenant; the demo is seeded only into an empty database, so nothing was seeded and its data is served as it is (point SWITCHBOARD_DATA_DIR at an empty folder to see the demo)"
            )),
        }
    }
}

/// Seeds the demo into an empty database; a database holding the demo (its tenant
/// admin, made last, marks a finished seed) or anything else is left as it is. A second
/// call changes nothing.
pub async fn prepare(state: &AppState) -> anyhow::Result<Outcome> {
    if switchboard_db::users::credentials_by_email(&state.db, ADMIN_EMAIL)
        .await?
        .is_some()
    {
        return Ok(Outcome::AlreadySeeded);
    }
    let accounts = switchboard_db::users::count(&state.db).await?;
    if accounts > 0 {
        if switchboard_db::users::credentials_by_email(&state.db, PLATFORM_EMAIL)
            .await?
            .is_some()
        {
            anyhow::bail!(
                "--demo: an earlier seeding of the demo stopped half-way (its platform admin exists, its tenant admin does not); start again with an empty data folder"
            );
        }
        return Ok(Outcome::NotDemo { accounts });
    }
    Ok(Outcome::Seeded(seed(state).await?))
}

/// Who the demo's own writes (those not made through a request) are audited as.
fn demo_actor() -> switchboard_db::audit::Actor {
    switchboard_db::audit::Actor {
        user_id: None,
        user_email: "demo-seed".to_owned(),
        client_address: "local".to_owned(),
    }
}

/// Whether the database holds no accounts yet.
pub async fn is_empty(state: &AppState) -> anyhow::Result<bool> {
    Ok(
        switchboard_db::users::credentials_by_email(&state.db, ADMIN_EMAIL)
            .await?
            .is_none()
            && switchboard_db::users::credentials_by_email(&state.db, PLATFORM_EMAIL)
                .await?
                .is_none()
            && switchboard_db::users::count(&state.db).await? == 0,
    )
}

fn body<T: FromBody>(value: serde_json::Value) -> anyhow::Result<T> {
    T::from_body(&value)
        .map_err(|p| anyhow::anyhow!("demo data breaks a rule: {:?}", p.into_messages()))
}

fn refused(error: switchboard_app::Error) -> anyhow::Error {
    let error = switchboard_api::error::ApiError::from(error);
    anyhow::anyhow!(
        "demo data refused: {} {:?}",
        error.status(),
        error.validation_errors()
    )
}

/// Seeds a partner, a tenant with a branch and extensions, its call handling, phones,
/// campaign and traffic ([`pharmacy`]), a platform admin (with a random password,
/// answered) and, last, the tenant admin, whose own changes start the audit trail.
/// Into an empty database only: see [`prepare`].
pub async fn seed(state: &AppState) -> anyhow::Result<Seeded> {
    // Every step's future on the heap (here and in `seed_all`): inline, the handlers'
    // futures nest past a debug build's 2 MiB thread stack.
    switchboard_db::audit::acting_as(demo_actor(), Box::pin(seed_all(state))).await
}

async fn seed_all(state: &AppState) -> anyhow::Result<Seeded> {
    let operator = Principal::operator();
    let now = chrono::Utc::now();
    let partner = partners::create(
        &state.db,
        body::<CreatePartner>(json!({"name": "Demo Telecom"}))?,
    )
    .await?;
    let tenant = Box::pin(tenants::create_tenant(
        state,
        &operator,
        body::<CreateTenant>(json!({"name": "Riverside Pharmacy", "partnerId": partner.id}))?,
    ))
    .await
    .map_err(refused)?;
    let branch = branches::create(
        &state.db,
        tenant.id,
        body::<CreateBranch>(json!({"name": "Main Street"}))?,
    )
    .await?;
    let mut front_desk = None;
    let mut extension_ids = Vec::new();
    for (number, name) in [
        ("101", "Front desk"),
        ("102", "Pharmacist"),
        ("103", "Drive-through"),
        ("200", "Back office"),
    ] {
        let extension = extensions::create(
            &state.db,
            tenant.id,
            body::<CreateExtension>(
                json!({"number": number, "name": name, "branchId": branch.id}),
            )?,
        )
        .await?;
        front_desk.get_or_insert(extension.id);
        extension_ids.push(extension.id.get());
    }
    let handling = Box::pin(seed_call_handling(
        state,
        tenant.id,
        branch.id,
        &extension_ids,
    ))
    .await?;
    let platform_password = crate::cli::random_password();
    Box::pin(users::create_account(
        state,
        &operator,
        body::<CreateUser>(
            json!({"email": PLATFORM_EMAIL, "password": platform_password, "userRole": 1}),
        )?,
    ))
    .await
    .map_err(refused)?;
    // The engine's and the integrator's side, through the API as the platform admin.
    let platform = client::Api::login(state, PLATFORM_EMAIL, &platform_password).await?;
    let notes = Box::pin(pharmacy::seed(
        state,
        &platform,
        &pharmacy::Base {
            tenant: tenant.id.get(),
            branch: branch.id.get(),
            extensions: extension_ids,
            greeting: handling.greeting,
            paging: handling.paging,
            menu: handling.menu,
            hours: handling.hours,
            agent: handling.agent,
        },
        now,
    ))
    .await?;
    Box::pin(seed_voicemail_and_calls(state, tenant.id)).await?;
    Box::pin(users::create_account(
        state,
        &operator,
        body::<CreateUser>(json!({
            "email": ADMIN_EMAIL, "password": PASSWORD, "userRole": 3,
            "tenantId": tenant.id, "branchId": branch.id, "extId": front_desk,
            "title": "Office manager", "timezone": "America/New_York",
        }))?,
    ))
    .await
    .map_err(refused)?;
    Box::pin(office_managers_changes(state)).await?;
    Ok(Seeded {
        platform_password,
        notes,
    })
}

/// The office manager's first morning, through the API: the drive-through's name made
/// clearer and the refill line's fallback given a longer menu timeout, so the audit trail
/// holds changes with their before and after.
async fn office_managers_changes(state: &AppState) -> anyhow::Result<()> {
    let admin = client::Api::login(state, ADMIN_EMAIL, PASSWORD).await?;
    let extensions = admin.get("/v2/admin/extensions/?sortBy=number").await?;
    let drive_through = extensions["records"]
        .as_array()
        .and_then(|records| records.iter().find(|e| e["number"] == "103"))
        .and_then(|e| e["id"].as_i64())
        .ok_or_else(|| anyhow::anyhow!("the demo has no extension 103"))?;
    admin
        .patch(
            &format!("/v2/admin/extensions/{drive_through}"),
            json!({"name": "Drive-through window"}),
        )
        .await?;
    let queues = admin.get("/v2/admin/queues/").await?;
    let queue = client::id(&queues["records"][0])?;
    admin
        .patch(
            &format!("/v2/admin/queues/{queue}"),
            json!({"maxWaitSeconds": 240}),
        )
        .await?;
    Ok(())
}

/// What the call handling seeded, for the rest of the seed to route to.
struct CallHandling {
    greeting: i64,
    paging: i64,
    menu: i64,
    hours: i64,
    agent: i64,
}

/// A short greeting for the demo media file (1.5 s of tone, 8 kHz WAV).
const GREETING: &[u8] = include_bytes!("../assets/demo-greeting.wav");

/// Seeds a greeting, an IVR, a paging group, business hours with a holiday and an
/// announcement, so every call-handling endpoint has something to show.
async fn seed_call_handling(
    state: &AppState,
    tenant: TenantId,
    branch: BranchId,
    extensions: &[i64],
) -> anyhow::Result<CallHandling> {
    use switchboard_db::{announcements, business_hours, ivrs, paging_groups, pharmacy_agents};
    use switchboard_domain::records::announcement::CreateAnnouncement;
    use switchboard_domain::records::business_hour::CreateBusinessHour;
    use switchboard_domain::records::ivr::CreateIvr;
    use switchboard_domain::records::paging_group::CreatePagingGroup;
    use switchboard_domain::records::pharmacy_agent::CreatePharmacyAgent;
    // Stored as an upload is: checked, measured, with its telephony rendition.
    let greeting = switchboard_app::media_files::create_media_file(
        state,
        tenant,
        GREETING.to_vec(),
        switchboard_app::media_files::Described {
            name: "Welcome greeting".into(),
            voice_id: None,
            fields: switchboard_domain::records::media_file::MediaFileFields {
                name: Some("Welcome greeting".into()),
                language: Some(Some("en".into())),
                text: Some(Some("Thank you for calling Riverside Pharmacy.".into())),
                multilingual_text: None,
            },
        },
    )
    .await
    .map_err(|e| anyhow::anyhow!("storing the demo greeting: {e:?}"))?;
    let menu = ivrs::create(
        &state.db,
        tenant,
        body::<CreateIvr>(json!({"name": "Main menu", "number": "500"}))?,
    )
    .await?;
    let members: Vec<_> = extensions
        .iter()
        .take(3)
        .map(|id| json!({"id": id, "destType": "EXT"}))
        .collect();
    let paging = paging_groups::create(
        &state.db,
        tenant,
        body::<CreatePagingGroup>(json!({
            "tenantId": tenant, "number": "450", "name": "Whole store", "checkInUse": "on",
            "introMessageMediaFileId": greeting.id, "routingDestinations": members,
        }))?,
    )
    .await?;
    let weekday = json!([{"from": "09:00", "to": "18:00"}]);
    let hours = business_hours::create(
        &state.db,
        tenant,
        branch,
        body::<CreateBusinessHour>(json!({
            "name": "Store hours", "branchId": branch, "timezone": "America/New_York",
            "hours": {"1": weekday, "2": weekday, "3": weekday, "4": weekday, "5": weekday,
                      "6": [{"from": "09:00", "to": "13:00"}]},
            "matchDestinations": [{"id": menu.id, "destType": "IVR"}],
            "notMatchDestinations": [{"id": extensions.first(), "destType": "VOICEMAIL"}],
            "holidays": [{"name": "Christmas Day", "date": "2026-12-25", "mediaFileId": greeting.id}],
        }))?,
    )
    .await?;
    // The refill line: several prescriptions per call, the pharmacist (102) as the
    // fallback, the pharmacist's mailbox after store hours.
    let agent = pharmacy_agents::create(
        &state.db,
        tenant,
        body::<CreatePharmacyAgent>(json!({
            "name": "Refill line", "number": "510", "ivrBulk": 1, "refillLoopAttempts": 3,
            "rxNumberLength": 7, "greetingMediaFileId": greeting.id,
            "fallbackDestination": {"id": extensions.get(1), "destType": "EXT"},
            "afterHours": {"businessHourId": hours.id,
                           "destination": {"id": extensions.get(1), "destType": "VOICEMAIL"}},
        }))?,
    )
    .await?;
    announcements::create(
        &state.db,
        tenant,
        branch,
        body::<CreateAnnouncement>(json!({
            "name": "Flu shots", "description": "Walk-in flu shots this season", "mediaFileId": greeting.id,
            "active": 1, "startDate": "2026-10-01", "endDate": "2027-03-31", "ivrs": [{"id": menu.id}],
            "branchId": branch,
        }))?
        .into(),
    )
    .await?;
    Ok(CallHandling {
        greeting: greeting.id.get(),
        paging: paging.id.get(),
        menu: menu.id.get(),
        hours: hours.id.get(),
        agent: agent.id.get(),
    })
}

/// What `demo --scale` builds: the sizes of its synthetic data.
pub struct Scale {
    /// Voicemail messages over a thousand mailboxes (and a tenth as many phone numbers)
    /// in a new tenant.
    pub messages: usize,
    /// Desk phones in the new tenant.
    pub devices: usize,
    /// Calls in the new tenant.
    pub calls: usize,
    /// Copies of each of the demo tenant's records that carry destination lists, in the
    /// demo tenant (seeded first into an empty database).
    pub routing: usize,
}

/// `demo --scale N [--devices D] [--calls C] [--routing R]`: a new tenant holding
/// `messages` voicemail messages (over a thousand mailboxes), a tenth as many phone
/// numbers, `devices` desk phones and `calls` calls, with a tenant admin to list them;
/// and `routing` copies of each of the demo tenant's routing records. Answers the tenant,
/// the login, the MAC of one phone (to search for), the queue a quarter of the calls
/// passed through and the copies made (`routing`), as one line of JSON — or, when only
/// copies were asked for, what [`routing_copies`] answers, and no new tenant is made.
pub async fn scale(state: &AppState, sizes: Scale) -> anyhow::Result<String> {
    let Scale {
        messages,
        devices,
        calls,
        routing,
    } = sizes;
    let started = std::time::Instant::now();
    // Before the new tenant's admin exists: the demo is seeded into an empty database only.
    let copies = match routing {
        0 => None,
        routing => Some(routing_copies(state, routing).await?),
    };
    if messages + devices + calls == 0
        && let Some(mut copies) = copies
    {
        // Routing copies alone: the demo tenant is the one to list, no new tenant.
        copies["seconds"] = json!((started.elapsed().as_secs_f64() * 10.0).round() / 10.0);
        return Ok(copies.to_string());
    }
    let created =
        crate::cli::create_tenant(state, format!("Scale tenant ({messages} messages)"), None)
            .await?;
    let tenant: serde_json::Value = serde_json::from_str(&created)?;
    let id = tenant["id"]
        .as_i64()
        .ok_or_else(|| anyhow::anyhow!("the new tenant has no id"))?;
    let email = format!("scale-admin-{id}@demo.switchboard.test");
    crate::cli::create_user(
        state,
        crate::cli::NewUser {
            email: email.clone(),
            password: PASSWORD.into(),
            role: "tenant-admin".into(),
            tenant: Some(id),
            partner: None,
            branch: None,
        },
    )
    .await?;
    let numbers = messages / 10;
    switchboard_db::synthetic::voicemail(&state.db, TenantId(id), messages, 1000).await?;
    switchboard_db::synthetic::phone_numbers(&state.db, TenantId(id), numbers).await?;
    switchboard_db::synthetic::devices(&state.db, TenantId(id), devices).await?;
    let queue = switchboard_db::synthetic::calls(&state.db, TenantId(id), calls).await?;
    let sample = switchboard_db::synthetic::device_mac(TenantId(id), 777.min(devices.max(1) - 1));
    Ok(json!({
        "tenantId": id,
        "email": email,
        "password": PASSWORD,
        "voicemailMessages": messages,
        "phoneNumbers": numbers,
        "devices": devices,
        "calls": calls,
        "callsQueueId": queue,
        "sampleDeviceMac": switchboard_domain::records::device::display_mac(&sample),
        "routing": copies,
        "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    })
    .to_string())
}

/// `routing` copies of each of the demo tenant's records that carry destination lists
/// ([`switchboard_db::synthetic::routing_copies`]), the demo seeded first into an empty
/// database: the demo tenant, its admin's login, the copies written per table and — when
/// this run seeded the demo — the platform admin's password, said once as `serve --demo`
/// says it.
async fn routing_copies(state: &AppState, routing: usize) -> anyhow::Result<serde_json::Value> {
    let platform_password = match prepare(state).await? {
        Outcome::NotDemo { .. } => {
            anyhow::bail!("--routing copies the demo tenant's records: this database holds no demo")
        }
        Outcome::Seeded(seeded) => Some(seeded.platform_password),
        Outcome::AlreadySeeded => None,
    };
    let admin = switchboard_db::users::credentials_by_email(&state.db, ADMIN_EMAIL)
        .await?
        .ok_or_else(|| anyhow::anyhow!("the demo tenant admin is missing"))?;
    let user = switchboard_db::users::find(&state.db, admin.id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("the demo tenant admin is missing"))?;
    let tenant = user
        .tenant_id
        .get()
        .ok_or_else(|| anyhow::anyhow!("the demo tenant admin has no tenant"))?;
    let written = switchboard_db::synthetic::routing_copies(
        &state.db,
        tenant,
        routing,
        switchboard_db::synthetic::COPIES_PER_STATEMENT,
    )
    .await?;
    let copies: serde_json::Map<String, serde_json::Value> = written
        .into_iter()
        .map(|(table, count)| (table.to_owned(), json!(count)))
        .collect();
    Ok(json!({
        "tenantId": user.tenant_id,
        "email": ADMIN_EMAIL,
        "password": PASSWORD,
        "copies": copies,
        "platformPassword": platform_password,
    }))
}

/// Seeds what the engine would have reported: voicemail for the front desk (mailbox 101)
/// and the pharmacist (102), and a few calls of today, one recorded, through the same
/// code as the ingest API (so their webhook events are queued too).
async fn seed_voicemail_and_calls(state: &AppState, tenant: TenantId) -> anyhow::Result<()> {
    use switchboard_app::engine::{self, MessageAudio};
    use switchboard_domain::records::call::{CallPhase, CallReport};
    use switchboard_domain::records::voicemail::NewVoicemail;

    let now = chrono::Utc::now();
    // Every duration the demo shows is the length of the audio behind it, measured.
    let audio_seconds = switchboard_storage::audio::sniff(GREETING)
        .and_then(|format| switchboard_storage::audio::duration_seconds(format, GREETING))
        .ok_or_else(|| anyhow::anyhow!("demo greeting is not measurable audio"))?;
    let audio_whole_seconds = audio_seconds.round().max(1.0) as i64;
    // Two mailboxes: the front desk's (101) and the pharmacist's (102), whose queue's
    // callers leave a message after waiting too long.
    let callers = [
        ("101", "\"Maria Lopez\" <2125550147>", "INBOX", 3600),
        ("101", "\"Dr. Patel's office\" <2125550199>", "INBOX", 7200),
        ("101", "\"WIRELESS CALLER\" <6465550123>", "Old", 86_400),
        ("102", "\"James Chen\" <7185550188>", "INBOX", 5400),
        ("102", "\"Linda Brooks\" <9175550111>", "Old", 172_800),
    ];
    let mut messages = Vec::new();
    for (number, (mailbox, caller, dir, ago)) in callers.into_iter().enumerate() {
        let left = now.timestamp() - ago;
        let mut message = NewVoicemail {
            tenant,
            mailbox_context: "default".into(),
            mailbox_user: mailbox.into(),
            msg_id: format!("{left}-{number:08}"),
            message_number: i64::try_from(number)?,
            dir: dir.into(),
            caller_id: caller.into(),
            date: chrono::DateTime::from_timestamp(left, 0)
                .map(|t| t.to_rfc2822())
                .unwrap_or_default(),
            date_unix: left,
            duration: audio_whole_seconds,
            ext_num: mailbox.into(),
            transcript: String::new(),
            audio: None,
            original_audio: None,
            extension: None,
        };
        let audio = MessageAudio {
            bytes: bytes::Bytes::from_static(GREETING),
            content_type: "audio/wav",
            extension: "wav",
        };
        engine::store_voicemail_audio(&state.storage, &mut message, audio).await?;
        messages.push(message);
    }
    let recording = engine::recording_to_mp3(bytes::Bytes::from_static(GREETING))
        .await
        .map_err(anyhow::Error::msg)?;
    let recorded_id = format!("{}.101", now.timestamp() - 5400);
    let size = i64::try_from(recording.mp3.len())?;
    let seconds = recording.seconds;
    let key = engine::store_recording(&state.storage, tenant, &recorded_id, recording.mp3).await?;
    // The engine names the front desk's side by its channel (`PJSIP/101-…`), as Asterisk
    // reports it; the outside numbers are no extension's identity.
    let call = |unique_id: String,
                (from, channel): (&str, &str),
                (to, dst_channel): (&str, &str),
                direction: &str,
                ago: i64,
                talk: i64| {
        let start = now - chrono::Duration::seconds(ago);
        let answered = talk > 0;
        CallReport {
            tenant,
            unique_id,
            phase: CallPhase::Ended,
            direction: direction.into(),
            caller_id_num: from.into(),
            caller_id_name: String::new(),
            dialed_num: to.into(),
            start,
            answer: answered.then(|| start + chrono::Duration::seconds(6)),
            end: Some(start + chrono::Duration::seconds(6 + talk)),
            duration: 6 + talk,
            billsec: talk,
            disposition: if answered { "ANSWERED" } else { "NO ANSWER" }.into(),
            channel: channel.into(),
            dst_channel: dst_channel.into(),
            last_app: "Dial".into(),
            account_code: String::new(),
            userfield: String::new(),
            caller_extension: None,
            callee_extension: None,
            queue: None,
            transfers: Vec::new(),
        }
    };
    let calls = [
        (
            call(
                recorded_id.clone(),
                ("2125550147", "PJSIP/trunk-00000001"),
                ("101", "PJSIP/101-00000002"),
                "inbound",
                5400,
                // The recording covers the talk, so the talk lasts as long as it plays.
                audio_whole_seconds,
            ),
            Some(key.as_str()),
        ),
        (
            call(
                format!("{}.102", now.timestamp() - 4000),
                ("101", "PJSIP/101-00000003"),
                ("18005550199", "PJSIP/trunk-00000004"),
                "outbound",
                4000,
                62,
            ),
            None,
        ),
        (
            call(
                format!("{}.103", now.timestamp() - 2000),
                ("6465550123", "PJSIP/trunk-00000005"),
                ("101", "PJSIP/101-00000006"),
                "inbound",
                2000,
                0,
            ),
            None,
        ),
    ];
    let mut tx = state.db.begin().await?;
    for message in messages {
        switchboard_db::voicemail::record(&mut tx, message, now.timestamp()).await?;
    }
    for (report, recording) in &calls {
        engine::record_call(
            &mut tx,
            report,
            recording
                .map(|key| engine::StoredRecording {
                    key: key.to_owned(),
                    bytes: size,
                    seconds,
                })
                .as_ref(),
            now.timestamp(),
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}
