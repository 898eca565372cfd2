//! `HubSpotCRM` webhooks: a finished call (CALL_ENDED, CALL_MISSED) as the body of
//! HubSpot's "create a call" request (`POST /crm/v3/objects/calls`,
//! `{"properties": {hs_timestamp, hs_call_title, …}}`), so the webhook URL can be
//! HubSpot's own endpoint with the private-app token as `authtoken`.

use serde_json::{Map, Value, json};

/// The HubSpot calls-object body for a call event (`{type, timestamp, tenantId, data}`,
/// whose `data` is the call record).
pub fn call_object(event: &Value) -> Value {
    let call = &event["data"];
    let text = |key: &str| call[key].as_str().unwrap_or_default().to_owned();
    let missed = event["type"] == "CALL_MISSED";
    let direction = match call["direction"].as_str() {
        Some("inbound") => Some("INBOUND"),
        Some("outbound") => Some("OUTBOUND"),
        // HubSpot knows only the two; an internal call is logged without a direction.
        _ => None,
    };
    let from = text("callerIdNum");
    let to = text("dialedNum");
    let caller_name = text("callerIdName");
    let status = status(missed, call["disposition"].as_str());
    let seconds = call["duration"].as_i64().unwrap_or(0).max(0);
    let title = match direction {
        Some("INBOUND") => format!("Inbound call from {}", caller(&caller_name, &from)),
        Some(_) => format!("Outbound call to {to}"),
        None => format!("Internal call from {from} to {to}"),
    };
    let body = format!(
        "{} call {} from {} to {}; {} s; disposition {}",
        call["direction"].as_str().unwrap_or("unknown"),
        text("uniqueId"),
        caller(&caller_name, &from),
        to,
        seconds,
        call["disposition"].as_str().unwrap_or("unknown"),
    );
    let mut properties = Map::new();
    properties.insert(
        "hs_timestamp".into(),
        // HubSpot takes an ISO 8601 UTC time or Unix milliseconds; the event's own time
        // stands in when the call record has none.
        call.get("time")
            .cloned()
            .unwrap_or_else(|| event["timestamp"].clone()),
    );
    properties.insert("hs_call_title".into(), title.into());
    properties.insert("hs_call_body".into(), body.into());
    if let Some(direction) = direction {
        properties.insert("hs_call_direction".into(), direction.into());
    }
    properties.insert("hs_call_duration".into(), (seconds * 1000).into());
    properties.insert("hs_call_from_number".into(), from.into());
    properties.insert("hs_call_to_number".into(), to.into());
    properties.insert("hs_call_status".into(), status.into());
    if let Some(url) = call["recordingUrl"].as_str().filter(|u| !u.is_empty()) {
        properties.insert("hs_call_recording_url".into(), url.into());
    }
    json!({ "properties": properties })
}

fn caller(name: &str, number: &str) -> String {
    if name.is_empty() || name == number {
        number.to_owned()
    } else {
        format!("{name} ({number})")
    }
}

/// HubSpot's `hs_call_status` from the event type and the Asterisk disposition.
fn status(missed: bool, disposition: Option<&str>) -> &'static str {
    match disposition.map(str::to_ascii_uppercase).as_deref() {
        Some("BUSY") => "BUSY",
        Some("FAILED" | "CONGESTION") => "FAILED",
        _ if missed => "NO_ANSWER",
        Some("NO ANSWER") => "NO_ANSWER",
        _ => "COMPLETED",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_answered_inbound_call_becomes_a_completed_hubspot_call() {
        let event = json!({"type": "CALL_ENDED", "timestamp": "2026-11-22T10:00:00Z", "tenantId": 1,
            "data": {"uniqueId": "1700000000.1", "direction": "inbound", "callerIdNum": "+15551230000",
                     "callerIdName": "Ada", "dialedNum": "+15559870000", "time": "2026-11-22T09:58:00Z",
                     "duration": 95, "status": "answered", "disposition": "ANSWERED",
                     "recordingUrl": "https://example.com/r.wav"}});
        let p = &call_object(&event)["properties"];
        assert_eq!(p["hs_timestamp"], "2026-11-22T09:58:00Z");
        assert_eq!(p["hs_call_direction"], "INBOUND");
        assert_eq!(p["hs_call_duration"], 95_000);
        assert_eq!(p["hs_call_from_number"], "+15551230000");
        assert_eq!(p["hs_call_to_number"], "+15559870000");
        assert_eq!(p["hs_call_status"], "COMPLETED");
        assert_eq!(p["hs_call_recording_url"], "https://example.com/r.wav");
        assert_eq!(p["hs_call_title"], "Inbound call from Ada (+15551230000)");
    }

    #[test]
    fn a_missed_call_is_no_answer_and_internal_calls_have_no_direction() {
        let event = json!({"type": "CALL_MISSED", "timestamp": "2026-11-22T10:00:00Z",
            "data": {"direction": "internal", "callerIdNum": "101", "dialedNum": "102", "duration": 0}});
        let p = &call_object(&event)["properties"];
        assert_eq!(p["hs_call_status"], "NO_ANSWER");
        assert!(p.get("hs_call_direction").is_none());
        assert!(p.get("hs_call_recording_url").is_none());
        assert_eq!(p["hs_timestamp"], "2026-11-22T10:00:00Z");
        assert_eq!(status(false, Some("busy")), "BUSY");
    }
}
