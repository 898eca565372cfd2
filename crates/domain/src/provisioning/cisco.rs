//! Cisco SPA's `<flat-profile>` XML.

use chrono::{Datelike, Utc};

use super::time_zone::{ClockChange, zone_rule};
use super::{PhoneConfig, RenderedKey, comment_text, default_keys, xml};
use crate::records::device_model::DeviceModel;

/// Cisco's `Time_Zone` notation of an offset: `GMT-05:00`, `GMT+05:30`.
pub(super) fn cisco_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    format!("GMT{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

/// Cisco's `Daylight_Saving_Time_Rule` (`start=3/8/7/2:0:0;end=11/1/7/2:0:0;save=1`):
/// month, the day the weekday falls on or after (-1: the last of the month), weekday
/// (1 Monday to 7 Sunday), time.
pub(super) fn cisco_dst(on: ClockChange, off: ClockChange, save: i32) -> String {
    let at = |c: ClockChange| {
        let day = if c.week == 5 {
            -1
        } else {
            i64::from((c.week - 1) * 7 + 1)
        };
        let weekday = if c.weekday == 0 { 7 } else { c.weekday };
        format!(
            "{}/{day}/{weekday}/{}:{}:{}",
            c.month,
            c.seconds / 3600,
            c.seconds / 60 % 60,
            c.seconds % 60
        )
    };
    let minutes = save.unsigned_abs() / 60;
    let save = match minutes % 60 {
        0 => (minutes / 60).to_string(),
        m => format!("{}:{m}:0", minutes / 60),
    };
    format!("start={};end={};save={save}", at(on), at(off))
}

/// Renders Cisco SPA's `spa<mac>.xml` (a `flat-profile` of named parameters, the SPA
/// provisioning guide's XML form) for `config` on `model`: lines, line keys, the
/// sidecar's keys of the layout, and the clock.
pub fn cisco_spa(config: &PhoneConfig, model: &DeviceModel) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<!-- Switchboard device {} \"{}\" ({}), configuration version {} -->\n",
        config.device_id,
        comment_text(&config.name),
        model.id,
        config.config_version
    ));
    out.push_str("<flat-profile>\n");
    let mut set = |name: String, value: &str| {
        out.push_str(&format!("  <{name}>{}</{name}>\n", xml(value)));
    };
    let proxy = format!("{}:{}", config.sip_server, config.sip_port);
    for account in 1..=model.accounts {
        let line = usize::try_from(account - 1)
            .ok()
            .and_then(|n| config.lines.get(n));
        let Some(line) = line else {
            set(format!("Line_Enable_{account}_"), "No");
            continue;
        };
        set(format!("Line_Enable_{account}_"), "Yes");
        set(format!("Proxy_{account}_"), &proxy);
        set(format!("Display_Name_{account}_"), &line.name);
        set(format!("User_ID_{account}_"), &line.number);
        set(format!("Password_{account}_"), &line.password);
        set(format!("Use_Auth_ID_{account}_"), "Yes");
        set(format!("Auth_ID_{account}_"), &line.auth_name);
    }
    let keys = config.keys.clone().unwrap_or_else(|| default_keys(config));
    let function = |key: &RenderedKey| {
        // `;` and `=` separate the function's fields: a label or target holding them
        // would add fields of its own (`;sub=…`).
        let field = |text: &str| text.replace([';', '='], " ");
        let target = field(key.value.as_deref().unwrap_or(""));
        let name = key.label.as_deref().map_or_else(|| target.clone(), field);
        match key.kind.as_str() {
            "blf" => format!(
                "fnc=blf+sd+cp;sub={target}@{};nme={name}",
                config.sip_server
            ),
            "speedDial" => format!("fnc=sd;ext={target}@{};nme={name}", config.sip_server),
            _ => String::new(),
        }
    };
    // Every key of the phone is written, unused ones disabled, so a key removed from the
    // layout is cleared on the phone too.
    for index in 1..=model.line_keys {
        let key = keys.iter().find(|k| k.index == index);
        let (extension, label, extended) = match key {
            Some(k) if k.kind == "line" => (
                k.value.clone().unwrap_or_else(|| "1".into()),
                k.label.clone().unwrap_or_default(),
                String::new(),
            ),
            Some(k) if !function(k).is_empty() => (
                "Disabled".to_owned(),
                k.label.clone().unwrap_or_default(),
                function(k),
            ),
            _ => ("Disabled".to_owned(), String::new(), String::new()),
        };
        set(format!("Extension_{index}_"), &extension);
        set(format!("Short_Name_{index}_"), &label);
        set(format!("Extended_Function_{index}_"), &extended);
    }
    // And every sidecar key, unused ones empty (no function).
    let module_keys = model.module_keys();
    if module_keys > 0 {
        for index in model.line_keys + 1..=model.max_keys {
            let n = index - model.line_keys - 1;
            let function = keys
                .iter()
                .find(|k| k.index == index)
                .map(function)
                .unwrap_or_default();
            set(
                format!("Unit_{}_Key_{}_", n / module_keys + 1, n % module_keys + 1),
                &function,
            );
        }
    }
    let rule = zone_rule(&config.timezone, Utc::now().year());
    set("Time_Zone".into(), &cisco_offset(rule.standard));
    match rule.dst {
        Some((on, off, save)) => {
            set("Daylight_Saving_Time_Enable".into(), "Yes");
            set(
                "Daylight_Saving_Time_Rule".into(),
                &cisco_dst(on, off, save),
            );
        }
        None => set("Daylight_Saving_Time_Enable".into(), "No"),
    }
    out.push_str("</flat-profile>\n");
    out
}
