//! The second half of the demo tenant, made through the API in process (see
//! [`super::client`]): the numbers and how their calls are routed, the desk phones, the
//! refill campaign, a week of calls with recordings and transcripts, texts, faxes,
//! webhooks, and the office manager's own changes for the audit trail.

use anyhow::Context;
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde_json::{Value, json};
use switchboard_api::AppState;

use super::audio;
use super::client::{Api, Part, id};

/// The demo tenant's main number, on every printed page of the pharmacy.
pub const MAIN_NUMBER: &str = "12125550100";
/// The refill line's direct number.
pub const REFILL_NUMBER: &str = "12125550101";
/// The fax line.
pub const FAX_NUMBER: &str = "12125550102";
/// The front desk phone's MAC address (a Yealink T54W).
pub const FRONT_DESK_MAC: &str = "80:5e:c0:12:34:56";
/// The pharmacist's phone's MAC address (a Poly VVX 450).
pub const PHARMACIST_MAC: &str = "64:16:7f:ab:cd:01";

/// What the first half of the seed made, which the second half routes to.
pub struct Base {
    /// The tenant.
    pub tenant: i64,
    /// Its branch.
    pub branch: i64,
    /// Extensions 101 (front desk), 102 (pharmacist), 103 (drive-through) and 200.
    pub extensions: Vec<i64>,
    /// The welcome greeting media file.
    pub greeting: i64,
    /// The whole-store paging group.
    pub paging: i64,
    /// The main menu IVR.
    pub menu: i64,
    /// The store hours.
    pub hours: i64,
    /// The refill line (pharmacy agent).
    pub agent: i64,
}

impl Base {
    fn extension(&self, index: usize) -> anyhow::Result<i64> {
        self.extensions
            .get(index)
            .copied()
            .context("the demo's extensions were not made")
    }
}

/// RFC 3339 in UTC to the second.
fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Seeds the pharmacy's routing, phones, campaign, traffic and integrations as the
/// platform admin `api`; answers what could not be seeded and why (the speech engine
/// missing), for the start to say.
pub async fn seed(
    state: &AppState,
    api: &Api,
    base: &Base,
    now: DateTime<Utc>,
) -> anyhow::Result<Vec<String>> {
    let mut notes = Vec::new();
    let t = base.tenant;
    let (front_desk, pharmacist, drive_through) =
        (base.extension(0)?, base.extension(1)?, base.extension(2)?);
    let trunk = api
        .post(
            "/v2/admin/conduits/",
            json!({"tenantId": t, "kind": "sip-trunk", "name": "Carrier trunk",
                   "address": "sip.carrier.example", "direction": "both",
                   "username": "riverside", "secret": "demo-trunk-secret-2026"}),
        )
        .await?;
    api.post(
        "/v2/admin/conduits/",
        json!({"tenantId": t, "kind": "pharmacy-system", "name": "Pharmacy system",
               "address": "https://rx.riverside-pharmacy.example/api", "direction": "outbound"}),
    )
    .await?;

    // What callers hear: hold music, and the hours read out by the speech engine.
    let music = api
        .post_parts(
            "/v2/admin/media-files/",
            vec![
                Part::text("tenantId", t.to_string()),
                Part::file("file", "hold-music.wav", audio::hold_music(16.0)),
                Part::text("name", "Hold music"),
            ],
        )
        .await?;
    let hold = api
        .post(
            "/v2/admin/music-on-hold/",
            json!({"tenantId": t, "name": "Easy listening", "isDefault": true,
                   "routingDestinations": [{"destType": "MEDIA_FILE", "id": id(&music)?}]}),
        )
        .await?;
    let hours_text = "Riverside Pharmacy is open Monday to Friday from nine to six, \
                      and Saturday from nine to one. We are closed on Sundays.";
    let spoken = match Box::pin(speak(api, t, hours_text)).await {
        Ok(wav) => Some(wav),
        Err(error) => {
            notes.push(format!(
                "the store hours announcement was not rendered ({error:#}); the menu's hours option plays the welcome greeting instead. Install espeak-ng and start with an empty data folder to hear it"
            ));
            None
        }
    };
    let hours_audio = match spoken {
        Some(wav) => id(&api
            .post_parts(
                "/v2/admin/media-files/",
                vec![
                    Part::text("tenantId", t.to_string()),
                    Part::file("file", "store-hours.wav", wav),
                    Part::text("name", "Store hours announcement"),
                    Part::text("text", hours_text),
                    Part::text("language", "en"),
                ],
            )
            .await?)?,
        None => base.greeting,
    };

    // The pharmacist's queue: three extensions, hold music, the mailbox after 3 minutes.
    let technician = api
        .post(
            "/v2/admin/extensions/",
            json!({"tenantId": t, "number": "104", "name": "Pharmacy technician", "branchId": base.branch}),
        )
        .await?;
    let queue = api
        .post(
            "/v2/admin/queues/",
            json!({"tenantId": t, "name": "Ask the pharmacist", "number": "600",
                   "strategy": "ringAll", "maxWaitSeconds": 180, "announcePosition": 1,
                   "musicOnHoldId": id(&hold)?,
                   "members": [{"id": pharmacist}, {"id": drive_through}, {"id": id(&technician)?}],
                   "timeoutDestination": {"destType": "VOICEMAIL", "id": pharmacist}}),
        )
        .await?;
    let hours_menu = api
        .post(
            "/v2/admin/ivrs/",
            json!({"tenantId": t, "name": "Hours announcement", "number": "501",
                   "greetingMediaFileId": hours_audio, "timeoutSeconds": 2,
                   "timeoutDestination": {"destType": "IVR", "id": base.menu}}),
        )
        .await?;
    api.patch(
        &format!("/v2/admin/ivrs/{}", base.menu),
        json!({"greetingMediaFileId": base.greeting, "timeoutSeconds": 8,
               "options": [
                   {"digit": "1", "destination": {"destType": "PHARMACY_AGENT", "id": base.agent}},
                   {"digit": "2", "destination": {"destType": "QUEUE", "id": id(&queue)?}},
                   {"digit": "3", "destination": {"destType": "IVR", "id": id(&hours_menu)?}},
                   {"digit": "0", "destination": {"destType": "EXT", "id": front_desk}},
               ],
               "timeoutDestination": {"destType": "EXT", "id": front_desk}}),
    )
    .await?;

    // The numbers: both voice numbers through the store hours, the fax line to the
    // front desk's mailbox; texts to the main number reach the front desk.
    for (number, comment, destination, fax) in [
        (
            MAIN_NUMBER,
            "Main number",
            json!({"destType": "BUSINESS_HOUR", "id": base.hours}),
            "no",
        ),
        (
            REFILL_NUMBER,
            "Refill line",
            json!({"destType": "BUSINESS_HOUR", "id": base.hours}),
            "no",
        ),
        (
            FAX_NUMBER,
            "Fax line",
            json!({"destType": "VOICEMAIL", "id": front_desk}),
            "yes",
        ),
    ] {
        let mut body = json!({"tenantId": t, "number": number, "diCommentName": comment,
                              "destination": destination, "fax": fax, "faxStore": fax,
                              "conduitId": id(&trunk)?, "branchId": base.branch,
                              "registeredCNAM": "RIVERSIDE PHARM"});
        if number == MAIN_NUMBER {
            body["smsExtId"] = json!(front_desk);
            body["recording"] = json!("yes");
        }
        api.post("/v2/admin/phone-numbers/", body).await?;
    }

    // Two desk phones of different vendors, each with its button layout.
    let yealink_layout = api
        .post(
            "/v2/admin/button-layouts/",
            json!({"tenantId": t, "name": "Front desk keys", "deviceModel": "yealink-t54w",
            "keys": [
                {"index": 1, "type": "line", "label": "Front desk"},
                {"index": 2, "type": "blf", "value": pharmacist.to_string(), "label": "Pharmacist"},
                {"index": 3, "type": "blf", "value": drive_through.to_string(), "label": "Drive-thru"},
                {"index": 4, "type": "speedDial", "value": "600", "label": "Rx queue"},
                {"index": 5, "type": "pagingGroup", "value": base.paging.to_string(), "label": "Page store"},
                {"index": 6, "type": "voicemail", "label": "Messages"},
            ]}),
        )
        .await?;
    let poly_layout = api
        .post(
            "/v2/admin/button-layouts/",
            json!({"tenantId": t, "name": "Pharmacist keys", "deviceModel": "poly-vvx450",
            "keys": [
                {"index": 1, "type": "line", "label": "Pharmacist"},
                {"index": 2, "type": "blf", "value": front_desk.to_string(), "label": "Front desk"},
                {"index": 3, "type": "park", "value": "700", "label": "Park"},
                {"index": 4, "type": "dnd", "label": "Do not disturb"},
            ]}),
        )
        .await?;
    for (name, mac, model, line, layout) in [
        (
            "Front desk phone",
            FRONT_DESK_MAC,
            "yealink-t54w",
            front_desk,
            &yealink_layout,
        ),
        (
            "Pharmacist's phone",
            PHARMACIST_MAC,
            "poly-vvx450",
            pharmacist,
            &poly_layout,
        ),
    ] {
        api.post(
            "/v2/admin/devices/",
            json!({"tenantId": t, "name": name, "mac": mac, "model": model,
                   "lines": [line], "buttonLayoutId": id(layout)?, "branchId": base.branch,
                   "description": "On the counter"}),
        )
        .await?;
    }

    // The pharmacy's CRM hears of refill requests and texts; its delivery log fills as
    // the events below are queued. (Not of every call: a few deliveries make the log,
    // and the demo's unreachable CRM should not keep the worker from a tester's own
    // webhooks.)
    for kind in ["REFILL_REQUESTED", "SMS_RECEIVED"] {
        api.post(
            "/v2/webhooks/",
            json!({"tenantId": t, "type": kind,
                   "url": "https://crm.riverside-pharmacy.example/hooks/switchboard"}),
        )
        .await?;
    }

    // Each step's future on the heap, not inline in this one's (see `Api::send`).
    let recorded = Box::pin(seed_week_of_calls(api, base, id(&queue)?, now)).await?;
    Box::pin(seed_refill_requests(api, base, &recorded, now)).await?;
    Box::pin(seed_texts_and_faxes(api, t, now)).await?;
    Box::pin(seed_campaign(state, api, base, id(&queue)?, now)).await?;
    Ok(notes)
}

/// Renders `text` with the tenant's custom voice (made here over the engine's first
/// English voice): the WAV, or why the engine could not speak.
async fn speak(api: &Api, tenant: i64, text: &str) -> anyhow::Result<Vec<u8>> {
    let voices = api.get("/v2/text-to-speech/voices").await?;
    let voice = voices
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["baseVoiceId"].is_null())
        .find(|v| {
            v["languages"].as_array().is_some_and(|l| {
                l.iter()
                    .any(|l| l.as_str().is_some_and(|l| l.starts_with("en")))
            })
        })
        .and_then(|v| v["id"].as_str())
        .context("the speech engine has no English voice")?
        .to_owned();
    let custom = api
        .post(
            "/v2/admin/custom-voices/",
            json!({"tenantId": tenant, "name": "Riverside voice", "baseVoiceId": voice,
                   "rate": 150, "pitch": 45, "volume": 100}),
        )
        .await?;
    let (_, wav) = api
        .send(
            axum::http::Method::POST,
            &format!("/v2/text-to-speech/voices/custom-{}/tts", id(&custom)?),
            Some("application/json"),
            serde_json::to_vec(&json!({"text": text}))?,
        )
        .await?;
    Ok(wav.to_vec())
}

/// What the pharmacist and a caller said on a recorded call, by channel (0 the caller,
/// 1 the pharmacist).
const PHARMACIST_CALL: &[(i64, i64, i64, &str)] = &[
    (
        0,
        0,
        2600,
        "Hi, I picked up my amoxicillin yesterday and I have a question.",
    ),
    (
        1,
        2900,
        5200,
        "Of course. This is the pharmacist, what would you like to know?",
    ),
    (0, 5600, 8400, "Should I take it with food?"),
    (
        1,
        8700,
        13_900,
        "Yes, take it with food, twice a day, and finish the whole course even if you feel better.",
    ),
    (0, 14_200, 15_500, "Thank you, that helps."),
];

/// A week of calls to the pharmacy through the ingest API, as the engine reports them:
/// each day's calls to the main number (some through the pharmacist's queue, one missed
/// each day), one outbound; a recording and a transcript on the pharmacist's calls.
/// Answers the unique ids of the recorded calls, newest first.
async fn seed_week_of_calls(
    api: &Api,
    base: &Base,
    queue: i64,
    now: DateTime<Utc>,
) -> anyhow::Result<Vec<String>> {
    let callers = [
        ("2125550147", "Maria Lopez"),
        ("6465550123", "WIRELESS CALLER"),
        ("7185550188", "James Chen"),
        ("2125550199", "Dr. Patel's office"),
        ("9175550111", "Linda Brooks"),
    ];
    let mut recorded = Vec::new();
    for day in 1..=7i64 {
        // 10:00, 12:30 and 15:00 New York time (UTC-5), earlier each day past.
        let midnight = (now - Duration::days(day))
            .date_naive()
            .and_hms_opt(0, 0, 0)
            .context("a midnight")?
            .and_utc();
        for (slot, minutes) in [(0i64, 15 * 60), (1, 17 * 60 + 30), (2, 20 * 60)] {
            let start = midnight + Duration::minutes(minutes);
            let (number, name) = callers[((day + slot) % 5) as usize];
            let unique_id = format!("{}.{}", start.timestamp(), 20 + slot);
            let through_queue = slot == 1;
            let missed = slot == 2 && day % 3 == 0;
            let wait = 4 + (day + slot) % 9;
            let talk = if missed {
                0
            } else {
                20 + 11 * ((day * 3 + slot) % 7)
            };
            let (extension, channel) = if through_queue {
                ("102", "PJSIP/102-0000a1")
            } else {
                ("101", "PJSIP/101-0000b2")
            };
            let mut call = json!({
                "tenantId": base.tenant, "uniqueId": unique_id, "event": "ended",
                "direction": "inbound", "callerIdNum": number, "callerIdName": name,
                "dialedNum": MAIN_NUMBER, "channel": "PJSIP/trunk-000001",
                "dstChannel": channel, "time": iso(start), "lastApp": "Dial",
            });
            if through_queue {
                call["queueId"] = json!(queue);
            }
            if missed {
                call["endTime"] = json!(iso(start + Duration::seconds(25)));
                call["disposition"] = json!("NO ANSWER");
            } else {
                let answer = start + Duration::seconds(wait);
                call["answerTime"] = json!(iso(answer));
                call["endTime"] = json!(iso(answer + Duration::seconds(talk)));
                call["disposition"] = json!("ANSWERED");
            }
            if through_queue && !missed {
                api.post_parts(
                    "/v2/ingest/calls",
                    vec![
                        Part::text("call", call.to_string()),
                        Part::file("recording", "recording.wav", audio::conversation(talk)),
                    ],
                )
                .await?;
                let segments: Vec<Value> = PHARMACIST_CALL
                    .iter()
                    .map(|&(channel, start, end, text)| {
                        json!({"channel": channel, "startMs": start, "endMs": end,
                               "text": text, "confidence": 0.92, "language": "en-US"})
                    })
                    .collect();
                api.post(
                    "/v2/ingest/transcripts",
                    json!({"tenantId": base.tenant, "uniqueId": unique_id,
                           "channels": [{"channel": 0, "role": "caller", "party": number},
                                        {"channel": 1, "role": "agent", "party": extension}],
                           "segments": segments}),
                )
                .await?;
                recorded.push(unique_id);
            } else {
                api.post("/v2/ingest/calls", call).await?;
            }
        }
        // The front desk calls a doctor's office back each day.
        let start = midnight + Duration::minutes(18 * 60 + 45);
        api.post(
            "/v2/ingest/calls",
            json!({"tenantId": base.tenant, "uniqueId": format!("{}.30", start.timestamp()),
                   "event": "ended", "direction": "outbound", "callerIdNum": "101",
                   "dialedNum": "12125550199", "channel": "PJSIP/101-0000c3",
                   "dstChannel": "PJSIP/trunk-000002", "time": iso(start),
                   "answerTime": iso(start + Duration::seconds(7)),
                   "endTime": iso(start + Duration::seconds(7 + 45 + day * 5)),
                   "disposition": "ANSWERED", "lastApp": "Dial"}),
        )
        .await?;
    }
    Ok(recorded)
}

/// Refill requests the refill line took this week: several prescriptions at once, one
/// handed to the pharmacist, one abandoned.
async fn seed_refill_requests(
    api: &Api,
    base: &Base,
    recorded: &[String],
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let requests = [
        ("2125550147", "submitted", vec!["4820193", "4820194"], 1),
        ("7185550188", "submitted", vec!["5531902"], 2),
        ("9175550111", "transferred", vec!["6610027"], 3),
        ("6465550123", "abandoned", vec![], 4),
    ];
    for (index, (caller, outcome, rx, days_ago)) in requests.into_iter().enumerate() {
        let mut body = json!({
            "tenantId": base.tenant, "agentId": base.agent, "callerNumber": caller,
            "outcome": outcome, "rxNumbers": rx,
            "requestId": format!("refill-{index}"),
            "time": iso(now - Duration::days(days_ago) + Duration::hours(2)),
        });
        if let Some(call) = recorded.get(index) {
            body["uniqueId"] = json!(call);
        }
        api.post("/v2/ingest/refill-requests", body).await?;
    }
    Ok(())
}

/// A short PNG: its signature and header, as the upload's sniffing reads it.
fn png() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    bytes.resize(300, 0);
    bytes
}

/// Texts both ways on the main number, a picture uploaded for one, and faxes both ways
/// on the fax line.
async fn seed_texts_and_faxes(api: &Api, tenant: i64, now: DateTime<Utc>) -> anyhow::Result<()> {
    api.post(
        "/v2/ingest/sms",
        json!({"tenantId": tenant, "messageId": "demo-sms-1", "direction": "inbound",
               "from": "+16465550123", "to": format!("+{MAIN_NUMBER}"),
               "body": "Hi, is my prescription ready for pickup?",
               "time": iso(now - Duration::hours(26))}),
    )
    .await?;
    api.post(
        "/v2/ingest/sms",
        json!({"tenantId": tenant, "messageId": "demo-sms-2", "direction": "outbound",
               "from": format!("+{MAIN_NUMBER}"), "to": "+16465550123",
               "body": "Yes, it is ready at the counter until 6 pm.",
               "time": iso(now - Duration::hours(25))}),
    )
    .await?;
    api.post_parts(
        "/v2/messaging/messages/upload-media",
        vec![
            Part::text("tenantId", tenant.to_string()),
            Part::file("files", "pickup-map.png", png()),
        ],
    )
    .await?;
    for (fax_id, direction, from, to, pages, hours) in [
        (
            "demo-fax-1",
            "inbound",
            "+12125550188".to_owned(),
            format!("+{FAX_NUMBER}"),
            2,
            30,
        ),
        (
            "demo-fax-2",
            "outbound",
            format!("+{FAX_NUMBER}"),
            "+12125550199".to_owned(),
            1,
            28,
        ),
    ] {
        api.post(
            "/v2/ingest/faxes",
            json!({"tenantId": tenant, "faxId": fax_id, "direction": direction,
                   "from": from, "to": to, "pages": pages, "status": "success",
                   "time": iso(now - Duration::hours(hours))}),
        )
        .await?;
    }
    Ok(())
}

/// The refill reminders campaign: six patients, one opted out before it ran; run once
/// yesterday through the engine's job API, its calls reported with several outcomes, one
/// record skipped by hand and one still to be dialled.
async fn seed_campaign(
    state: &AppState,
    api: &Api,
    base: &Base,
    queue: i64,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let t = base.tenant;
    api.post(
        "/v2/admin/call-outcomes/",
        json!({"tenantId": t, "name": "refill-confirmed", "endsRecord": true}),
    )
    .await?;
    api.post(
        "/v2/admin/call-outcomes/",
        json!({"tenantId": t, "name": "do-not-call", "endsRecord": true, "optsOut": true}),
    )
    .await?;
    let campaign = api
        .post(
            "/v2/admin/call-campaigns/",
            json!({"tenantId": t, "name": "Refill reminders",
                   "callerIdNumber": format!("+{MAIN_NUMBER}"),
                   "destination": [{"destType": "QUEUE", "id": queue}],
                   "callingWindow": {"days": [0, 1, 2, 3, 4, 5, 6], "from": "00:00", "to": "24:00",
                                     "timeZone": "America/New_York"},
                   "maxAttempts": 2, "retryDelayMinutes": 120}),
        )
        .await?;
    let campaign = id(&campaign)?;
    let records = format!("/v2/admin/call-campaigns/{campaign}/records");
    let patients = [
        ("2125550147", "Maria Lopez"),
        ("7185550188", "James Chen"),
        ("9175550111", "Linda Brooks"),
        ("3475550166", "Robert King"),
        ("6465550123", "Ana Silva"),
        ("5165550177", "Tom Reilly"),
    ];
    let mut ids = Vec::new();
    for (number, name) in patients {
        ids.push(id(&api
            .post(&records, json!({"number": number, "name": name}))
            .await?)?);
    }
    // Ana Silva asked not to be called about refills.
    api.post(
        "/v2/admin/opt-outs/",
        json!({"tenantId": t, "level": "campaign", "campaignId": campaign,
               "number": "6465550123", "source": "complaint",
               "reason": "Asked at the counter not to be called"}),
    )
    .await?;
    // Tom Reilly moved away: skipped by hand.
    api.patch(
        &format!("{records}/{}", ids[5]),
        json!({"status": "skipped"}),
    )
    .await?;
    api.patch(
        &format!("/v2/admin/call-campaigns/{campaign}"),
        json!({"status": "running"}),
    )
    .await?;
    // The scheduler's step, at once rather than at its next tick; several processes
    // (or the worker of this one) taking the same records take each once.
    switchboard_db::call_campaigns::schedule(&state.db, Utc::now(), 200).await?;
    let mut jobs = Vec::new();
    for _ in 0..50 {
        let claimed = api
            .post(
                "/v2/engine/jobs/claim",
                json!({"kinds": ["campaign-call"], "max": 10, "leaseSeconds": 3600}),
            )
            .await?;
        jobs.extend(claimed["jobs"].as_array().cloned().unwrap_or_default());
        if jobs.len() >= 4 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // The calls as the engine reports them: placed yesterday afternoon (UTC), ten
    // minutes apart.
    let yesterday = (now - Duration::days(1))
        .date_naive()
        .and_hms_opt(14, 0, 0)
        .context("an afternoon")?
        .and_utc();
    // The engine's reports, by record: confirmed, no answer (to be tried again), asked
    // not to be called again; the fourth call is left dialling.
    for job in &jobs {
        let subject = job["subjectId"].as_i64().unwrap_or_default();
        let (outcome, seconds) = match ids.iter().position(|r| *r == subject) {
            Some(0) => ("refill-confirmed", 48),
            Some(1) => ("no-answer", 30),
            Some(2) => ("do-not-call", 21),
            _ => continue,
        };
        let started = yesterday + Duration::minutes(10 * (subject % 6));
        api.post(
            &format!("/v2/engine/jobs/{}/result", job["id"]),
            json!({"attempt": job["attempt"], "outcome": outcome,
                   "startedAt": iso(started), "endedAt": iso(started + Duration::seconds(seconds)),
                   "durationSeconds": seconds, "reference": format!("campaign-{subject}")}),
        )
        .await?;
    }
    Ok(())
}
