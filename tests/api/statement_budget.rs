//! Every read holds to its budget of database statements (issue 32): the service answers
//! each request's statement count (`Server-Timing`, `SWITCHBOARD_SERVER_TIMING`), and every
//! `GET` of the served document is read here and held to the budget declared below — so
//! a later change cannot add a round trip to a read unseen. A `GET` this walk cannot reach
//! is named in [`UNMEASURED`] with the reason; a new one in neither list fails the test.

use std::collections::BTreeMap;

use crate::on_both_backends;
use crate::round_trip::{Ctx, create, record_paths};
use crate::support::{Answer, TestApp};

/// The statements each read may run, by route template (a path the release notes give
/// without `/v2` has its `/v2` twin's budget). A record: itself, then each list it carries
/// in one statement, destinations resolved in the same one; a list: its count and its
/// page, then each list its page's records carry, one statement for the whole page.
const BUDGETS: &[(&str, u32)] = &[
    ("/healthz", 0),
    ("/readyz", 0),
    ("/v2/admin/announcements/", 3),
    ("/v2/admin/announcements/{id}", 2),
    ("/v2/admin/audit-log/", 2),
    ("/v2/admin/branches/", 2),
    ("/v2/admin/branches/{id}", 1),
    ("/v2/admin/business-hours/", 4),
    ("/v2/admin/business-hours/{id}", 3),
    ("/v2/admin/business-hours/{id}/holidays", 3),
    ("/v2/admin/business-hours/{id}/holidays/{holidayId}", 4),
    ("/v2/admin/business-hours/{id}/status", 3),
    ("/v2/admin/button-layouts/", 3),
    ("/v2/admin/button-layouts/{id}", 2),
    ("/v2/admin/call-campaigns/", 3),
    ("/v2/admin/call-campaigns/{id}", 2),
    ("/v2/admin/call-campaigns/{id}/records", 4),
    ("/v2/admin/call-campaigns/{id}/records/export", 3),
    ("/v2/admin/call-campaigns/{id}/records/{recordId}", 4),
    ("/v2/admin/call-outcomes/", 2),
    ("/v2/admin/call-outcomes/{id}", 1),
    ("/v2/admin/call-recordings/", 2),
    ("/v2/admin/calls/", 2),
    ("/v2/admin/conduits/", 2),
    ("/v2/admin/conduits/{id}", 1),
    ("/v2/admin/custom-voices/", 2),
    ("/v2/admin/custom-voices/{id}", 1),
    ("/v2/admin/device-models/", 0),
    ("/v2/admin/devices/", 3),
    ("/v2/admin/devices/{id}", 2),
    ("/v2/admin/extensions/", 2),
    ("/v2/admin/extensions/{id}", 1),
    ("/v2/admin/faxes", 2),
    ("/v2/admin/faxes/retry-policy", 3),
    ("/v2/admin/ivrs/", 3),
    ("/v2/admin/ivrs/{id}", 2),
    ("/v2/admin/media-files/", 2),
    ("/v2/admin/media-files/{id}", 1),
    ("/v2/admin/music-on-hold/", 3),
    ("/v2/admin/music-on-hold/{id}", 2),
    ("/v2/admin/music-on-hold/{id}/playlist", 3),
    ("/v2/admin/opt-outs/", 2),
    ("/v2/admin/opt-outs/export", 0),
    ("/v2/admin/opt-outs/{id}", 1),
    ("/v2/admin/paging-groups/", 3),
    ("/v2/admin/paging-groups/{id}", 2),
    ("/v2/admin/partners/", 2),
    ("/v2/admin/partners/{id}", 1),
    ("/v2/admin/pharmacy/agents/", 3),
    ("/v2/admin/pharmacy/agents/{id}", 2),
    ("/v2/admin/pharmacy/agents/{id}/refill-requests", 4),
    ("/v2/admin/phone-numbers/", 3),
    ("/v2/admin/phone-numbers/search", 3),
    ("/v2/admin/phone-numbers/{id}", 2),
    ("/v2/admin/queues/", 4),
    ("/v2/admin/queues/{id}", 3),
    ("/v2/admin/reporting/calls/", 5),
    ("/v2/admin/tenants/", 2),
    ("/v2/admin/tenants/{id}", 1),
    ("/v2/admin/users/", 2),
    ("/v2/admin/users/{id}", 1),
    ("/v2/admin/voicemail-messages/", 2),
    ("/v2/admin/voicemail-messages/{id}", 1),
    ("/v2/destinations/graph", 12),
    ("/v2/devices/search", 3),
    ("/v2/media-files/{id}", 1),
    ("/v2/messaging/media/", 2),
    ("/v2/messaging/messages", 2),
    ("/v2/tenants/conduits", 2),
    ("/v2/text-to-speech/supported-languages", 0),
    ("/v2/text-to-speech/voices", 1),
    ("/v2/webhooks/", 2),
    ("/v2/webhooks/list-types", 0),
    ("/v2/webhooks/{id}", 1),
    ("/v2/webhooks/{id}/deliveries", 3),
    ("/v2/webhooks/{id}/signing-secret", 1),
];

/// The `GET`s of the document this walk does not read, each with why.
const UNMEASURED: &[(&str, &str)] = &[
    ("/admin/calls/{callId}", CALLS),
    ("/admin/reporting/calls/{callId}", CALLS),
    ("/v2/admin/calls/{callId}", CALLS),
    ("/v2/admin/call-recordings/{callId}", CALLS),
    ("/v2/admin/reporting/calls/{callId}", CALLS),
    ("/faxes/retry/{id}", FAXES),
    ("/v2/faxes/retry/{id}", FAXES),
    ("/v2/admin/faxes/{id}", FAXES),
    (
        "/v2/messaging/messages/{id}",
        "a text is made by sending one, which needs a texting line and the engine",
    ),
    (
        "/v2/objects/{key}",
        "a signed object link: its signature is its authority, no bearer token",
    ),
    (
        "/provisioning/{file}",
        "a phone's own Digest login, no bearer token (tests/api/devices.rs)",
    ),
];

/// Why the calls' reads are not walked.
const CALLS: &str = "a call exists once the engine's CDR is ingested: not made by this walk yet";
/// Why the faxes' reads are not walked.
const FAXES: &str =
    "a fax exists once sent through a fax line by the engine: not made by this walk yet";

/// The budget of `template`: its own, or its `/v2` twin's.
fn budget(template: &str) -> Option<u32> {
    let twin = format!("/v2{template}");
    BUDGETS
        .iter()
        .find(|(t, _)| *t == template || *t == twin)
        .map(|(_, n)| *n)
}

/// The statement count an answer declares.
fn statements(answer: &Answer) -> Option<u32> {
    let timing = answer.headers.get("server-timing")?.to_str().ok()?;
    let count = timing.split("desc=\"").nth(1)?.split(' ').next()?;
    count.parse().ok()
}

/// Every `GET` template of the document, its path made concrete, read twice (the second
/// read is the one counted: the first may warm a cache a running service keeps warm).
/// Records are made first, so every list is read with records in it.
async fn every_read_keeps_to_its_statement_budget(app: TestApp) {
    let ctx = Ctx::new(&app).await;
    let document = app.get("/v2/openapi.json", &ctx.admin).await.expect(200);
    let reads: Vec<String> = document["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .filter(|(_, operations)| operations.get("get").is_some())
        .map(|(template, _)| template.clone())
        .collect();
    let mut made = BTreeMap::new();
    for template in record_paths(&document) {
        let record = create(&ctx, &template)
            .await
            .unwrap_or_else(|| panic!("no way to make a record of {template}"));
        made.insert(template, record);
    }
    let mut measured = Vec::new();
    let mut problems = Vec::new();
    for template in &reads {
        if UNMEASURED.iter().any(|(t, _)| t == template) {
            continue;
        }
        // A record's own path, a path below a record (`…/{id}/holidays`), or a collection.
        let below = made.iter().find_map(|(record, (path, token))| {
            let rest = template.strip_prefix(record.as_str())?;
            (rest.starts_with('/') && !rest.contains('{'))
                .then(|| (format!("{path}{rest}"), token.clone()))
        });
        let (path, mut token) = match (made.get(template), below) {
            (Some(record), _) => record.clone(),
            (None, Some(below)) => below,
            // The release notes' reads of a media file, with the walk's own.
            (None, None) if template.ends_with("/media-files/{id}") => (
                template.replace("{id}", &ctx.media.to_string()),
                ctx.admin.clone(),
            ),
            (None, None) if !template.contains('{') => (template.clone(), ctx.admin.clone()),
            (None, None) => {
                problems.push(format!("{template}: neither read here nor in UNMEASURED"));
                continue;
            }
        };
        if app.get(&path, &token).await.status.as_u16() == 403 {
            token = ctx.platform.clone();
            app.get(&path, &token).await;
        }
        let mut answer = app.get(&path, &token).await;
        // Over its budget, the read is counted once more and the fewer kept: the session
        // cache keeps an entry 10 s, so on a slow run it can lapse between the warm-up and
        // the counted read (one statement more, once), but not again right after.
        if budget(template)
            .zip(statements(&answer))
            .is_some_and(|(budget, count)| count > budget)
        {
            let again = app.get(&path, &token).await;
            if statements(&again) < statements(&answer) {
                answer = again;
            }
        }
        if !answer.status.is_success() {
            problems.push(format!("{template}: {} {}", answer.status, answer.body));
            continue;
        }
        let Some(count) = statements(&answer) else {
            problems.push(format!(
                "{template}: no statement count in {:?}",
                answer.headers
            ));
            continue;
        };
        measured.push(format!("    (\"{template}\", {count}),"));
        match budget(template) {
            Some(budget) if count <= budget => {}
            Some(budget) => problems.push(format!(
                "{template}: {count} statements, over its budget of {budget}"
            )),
            None => problems.push(format!(
                "{template}: {count} statements, no budget declared"
            )),
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nmeasured:\n{}",
        problems.join("\n"),
        measured.join("\n")
    );
}

on_both_backends!(with |c: &mut switchboard::Config| c.server_timing = true; every_read_keeps_to_its_statement_budget);
