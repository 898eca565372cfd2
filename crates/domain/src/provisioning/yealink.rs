//! Yealink's `<mac>.cfg`: `key = value` lines under `#!version:1.0.0.1`.

use chrono::{Datelike, Utc};

use super::time_zone::zone_offsets;
use super::{PhoneConfig, clean, default_keys};
use crate::records::device::display_mac;
use crate::records::device_model::DeviceModel;

/// Yealink's `local_time.time_zone` notation of an offset: `+1`, `-5`, `+5:30`.
pub(super) fn yealink_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    match minutes % 60 {
        0 => format!("{sign}{}", minutes / 60),
        m => format!("{sign}{}:{m:02}", minutes / 60),
    }
}

/// Yealink's DSS key type codes (Yealink SIP-T5/T4 administrator guides): 0 N/A,
/// 5 DND, 10 Call Park, 12 Voice Mail, 13 Speed Dial, 15 Line, 16 BLF. A paging group
/// is a speed dial of its number (Yealink's own paging type is RTP multicast).
fn yealink_type(kind: &str) -> u8 {
    match kind {
        "line" => 15,
        "blf" => 16,
        "speedDial" | "pagingGroup" => 13,
        "park" => 10,
        "voicemail" => 12,
        "dnd" => 5,
        _ => 0,
    }
}

/// Renders Yealink's `<mac>.cfg` for `config` on `model`.
pub fn yealink(config: &PhoneConfig, model: &DeviceModel) -> String {
    let mut out = String::from("#!version:1.0.0.1\n");
    out.push_str(&format!(
        "## Switchboard device {} \"{}\" ({}), configuration version {}\n",
        config.device_id,
        clean(&config.name),
        model.id,
        config.config_version
    ));
    out.push_str(&format!(
        "## {}: generated, changes made on the phone are overwritten\n\n",
        display_mac(&config.mac)
    ));
    let mut set = |key: String, value: &str| {
        out.push_str(&key);
        out.push_str(" = ");
        out.push_str(&clean(value));
        out.push('\n');
    };
    for account in 1..=model.accounts {
        let line = usize::try_from(account - 1)
            .ok()
            .and_then(|n| config.lines.get(n));
        let Some(line) = line else {
            set(format!("account.{account}.enable"), "0");
            continue;
        };
        set(format!("account.{account}.enable"), "1");
        set(format!("account.{account}.label"), &line.name);
        set(format!("account.{account}.display_name"), &line.name);
        set(format!("account.{account}.auth_name"), &line.auth_name);
        set(format!("account.{account}.user_name"), &line.number);
        set(format!("account.{account}.password"), &line.password);
        set(
            format!("account.{account}.sip_server.1.address"),
            &config.sip_server,
        );
        set(
            format!("account.{account}.sip_server.1.port"),
            &config.sip_port.to_string(),
        );
    }
    let (offset, dst) = zone_offsets(&config.timezone, Utc::now().year());
    set("local_time.time_zone".into(), &yealink_offset(offset));
    set("local_time.summer_time".into(), if dst { "2" } else { "0" });
    let keys = config.keys.clone().unwrap_or_else(|| default_keys(config));
    let module_keys = model.module_keys();
    // Every key of the phone and of its expansion modules is written, unused ones as
    // N/A: a phone keeps a setting the file leaves out, so a key removed from the layout
    // is cleared on the phone only by saying so.
    for index in 1..=model.max_keys {
        let key = keys.iter().find(|k| k.index == index);
        let prefix = if index <= model.line_keys {
            format!("linekey.{index}")
        } else if module_keys > 0 {
            let n = index - model.line_keys - 1;
            format!(
                "expansion_module.{}.key.{}",
                n / module_keys + 1,
                n % module_keys + 1
            )
        } else {
            break;
        };
        let kind = key.map_or("none", |k| k.kind.as_str());
        set(format!("{prefix}.type"), &yealink_type(kind).to_string());
        let line = match (kind, key.and_then(|k| k.value.as_deref())) {
            ("line", Some(n)) => n.to_owned(),
            _ => "1".to_owned(),
        };
        set(format!("{prefix}.line"), &line);
        let value = match kind {
            "line" | "none" | "voicemail" | "dnd" => "",
            _ => key.and_then(|k| k.value.as_deref()).unwrap_or(""),
        };
        set(format!("{prefix}.value"), value);
        set(
            format!("{prefix}.label"),
            key.and_then(|k| k.label.as_deref()).unwrap_or(""),
        );
    }
    out
}
