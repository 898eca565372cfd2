//! The files desk phones fetch their configuration from, rendered in each vendor's own
//! format: Yealink's `<mac>.cfg` (`key = value` lines under `#!version:1.0.0.1`) and
//! Polycom UC Software's master `<mac>.cfg` (an `APPLICATION` element naming the
//! per-phone file) with `phone<mac>.cfg` (parameters as attributes under
//! `polycomConfig`). Pure functions of what the store holds, so golden files test them.

use chrono::{Datelike, Offset, TimeZone, Utc};

use crate::records::device::display_mac;
use crate::records::device_model::DeviceModel;

/// One SIP account a phone registers: an extension and its credentials.
#[derive(Clone, Debug, PartialEq)]
pub struct SipLine {
    /// The extension's number: the SIP user part the phone registers as.
    pub number: String,
    /// The extension's name, shown on the line key.
    pub name: String,
    /// The authentication name: the peer name of the user the extension belongs to,
    /// else the number.
    pub auth_name: String,
    /// The SIP password: that user's peer secret (empty when the extension has no user).
    pub password: String,
}

/// One key of the phone's layout, its target resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderedKey {
    /// Its index, from 1 (the phone's keys, then its expansion modules').
    pub index: i64,
    /// Its type (`line`, `blf`, …).
    pub kind: String,
    /// What it needs: a line number, or the number to dial or watch (a BLF's and a
    /// paging group's resolved to their number).
    pub value: Option<String>,
    /// Its label: as set, else the target's name.
    pub label: Option<String>,
}

/// Everything a phone's file shows.
#[derive(Clone, Debug, PartialEq)]
pub struct PhoneConfig {
    /// The device's id.
    pub device_id: i64,
    /// Its name.
    pub name: String,
    /// Its MAC's 12 hex digits.
    pub mac: String,
    /// Its configuration version.
    pub config_version: i64,
    /// The tenant's IANA time zone.
    pub timezone: String,
    /// The SIP registrar's host name.
    pub sip_server: String,
    /// The registrar's port.
    pub sip_port: u16,
    /// Its lines, in order.
    pub lines: Vec<SipLine>,
    /// Its layout's keys by index; `None` without a layout (each line on its own key).
    pub keys: Option<Vec<RenderedKey>>,
}

/// Drops control characters, so no value can end a line of a `.cfg` file or smuggle a
/// setting into it.
fn clean(value: &str) -> String {
    value.chars().filter(|c| !c.is_control()).collect()
}

/// Escapes a value for an XML attribute.
fn xml(value: &str) -> String {
    clean(value)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// The zone's standard offset from UTC in seconds and whether it observes daylight
/// saving time, judged from its offsets in January and July of `year`.
pub fn zone_offsets(timezone: &str, year: i32) -> (i32, bool) {
    let Ok(tz) = timezone.parse::<chrono_tz::Tz>() else {
        return (0, false);
    };
    let at = |month| {
        tz.with_ymd_and_hms(year, month, 1, 12, 0, 0)
            .single()
            .map_or(0, |t| t.offset().fix().local_minus_utc())
    };
    let (january, july) = (at(1), at(7));
    (january.min(july), january != july)
}

/// Yealink's `local_time.time_zone` notation of an offset: `+1`, `-5`, `+5:30`.
fn yealink_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    match minutes % 60 {
        0 => format!("{sign}{}", minutes / 60),
        m => format!("{sign}{}:{m:02}", minutes / 60),
    }
}

/// The keys a phone without a layout gets: each line on the key of its number.
fn default_keys(config: &PhoneConfig) -> Vec<RenderedKey> {
    (1..=config.lines.len())
        .map(|n| RenderedKey {
            index: i64::try_from(n).unwrap_or(i64::MAX),
            kind: "line".into(),
            value: Some(n.to_string()),
            label: None,
        })
        .collect()
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
    let module_keys = model.expansion_modules.first().map_or(0, |m| m.keys);
    // Every key of the phone is written, unused ones as N/A, so a key removed from the
    // layout is cleared on the phone too; expansion keys only where the layout has one.
    let mut indexes: Vec<i64> = (1..=model.line_keys).collect();
    indexes.extend(
        keys.iter()
            .map(|k| k.index)
            .filter(|i| *i > model.line_keys),
    );
    for index in indexes {
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
            continue;
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

/// The name of a Polycom phone's own file, listed by its master configuration.
pub fn polycom_phone_file(mac: &str) -> String {
    format!("phone{mac}.cfg")
}

/// Renders Polycom's master configuration `<mac>.cfg`: the firmware to run and the
/// configuration files to load.
pub fn polycom_master(config: &PhoneConfig) -> String {
    format!(
        "<?xml version=\"1.0\" standalone=\"yes\"?>\n\
         <!-- Switchboard device {}, configuration version {} -->\n\
         <APPLICATION APP_FILE_PATH=\"sip.ld\" CONFIG_FILES=\"{}\" MISC_FILES=\"\" \
         LOG_FILE_DIRECTORY=\"\" OVERRIDES_DIRECTORY=\"\" CONTACTS_DIRECTORY=\"\" \
         LICENSE_DIRECTORY=\"\" USER_PROFILES_DIRECTORY=\"\" CALL_LISTS_DIRECTORY=\"\" \
         COREFILE_DIRECTORY=\"\"/>\n",
        config.device_id,
        config.config_version,
        polycom_phone_file(&config.mac)
    )
}

/// Renders Polycom's per-phone `phone<mac>.cfg`: registrations, line keys (lines and
/// BLF through the attendant resource list), and the clock.
pub fn polycom_phone(config: &PhoneConfig, model: &DeviceModel) -> String {
    let element = |name: &str, attributes: &[(String, String)]| {
        let mut out = format!("  <{name}");
        for (key, value) in attributes {
            out.push_str(&format!("\n    {key}=\"{}\"", xml(value)));
        }
        out.push_str("/>\n");
        out
    };
    let mut reg = Vec::new();
    for account in 1..=model.accounts {
        let line = usize::try_from(account - 1)
            .ok()
            .and_then(|n| config.lines.get(n));
        let Some(line) = line else {
            reg.push((format!("reg.{account}.address"), String::new()));
            continue;
        };
        reg.push((format!("reg.{account}.address"), line.number.clone()));
        reg.push((format!("reg.{account}.auth.userId"), line.auth_name.clone()));
        reg.push((
            format!("reg.{account}.auth.password"),
            line.password.clone(),
        ));
        reg.push((format!("reg.{account}.displayName"), line.name.clone()));
        reg.push((format!("reg.{account}.label"), line.name.clone()));
        reg.push((
            format!("reg.{account}.server.1.address"),
            config.sip_server.clone(),
        ));
        reg.push((
            format!("reg.{account}.server.1.port"),
            config.sip_port.to_string(),
        ));
    }
    let keys = config.keys.clone().unwrap_or_else(|| default_keys(config));
    let mut attendant = Vec::new();
    let mut line_keys = vec![("lineKey.reassignment.enabled".to_owned(), "1".to_owned())];
    let mut indexes: Vec<i64> = (1..=model.line_keys).collect();
    indexes.extend(
        keys.iter()
            .map(|k| k.index)
            .filter(|i| *i > model.line_keys),
    );
    for index in indexes {
        let key = keys.iter().find(|k| k.index == index);
        let (category, target) = match key.map(|k| (k.kind.as_str(), k)) {
            Some(("line", k)) => ("Line", k.value.clone().unwrap_or_else(|| "1".into())),
            Some(("blf", k)) => {
                let n = attendant.len() / 3 + 1;
                attendant.push((
                    format!("attendant.resourceList.{n}.address"),
                    k.value.clone().unwrap_or_default(),
                ));
                attendant.push((
                    format!("attendant.resourceList.{n}.label"),
                    k.label.clone().unwrap_or_default(),
                ));
                attendant.push((
                    format!("attendant.resourceList.{n}.type"),
                    "normal".to_owned(),
                ));
                ("BLF", n.to_string())
            }
            _ => ("Unassigned", "0".to_owned()),
        };
        line_keys.push((format!("lineKey.{index}.category"), category.to_owned()));
        line_keys.push((format!("lineKey.{index}.index"), target));
    }
    let (offset, dst) = zone_offsets(&config.timezone, Utc::now().year());
    let clock = vec![
        ("tcpIpApp.sntp.gmtOffset".to_owned(), offset.to_string()),
        (
            "tcpIpApp.sntp.daylightSavings.enable".to_owned(),
            if dst { "1" } else { "0" }.to_owned(),
        ),
    ];
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
    out.push_str(&format!(
        "<!-- Switchboard device {} \"{}\" ({}), configuration version {} -->\n",
        config.device_id,
        xml(&config.name).replace("--", "- -"),
        model.id,
        config.config_version
    ));
    out.push_str("<polycomConfig>\n");
    out.push_str(&element("reg", &reg));
    if !attendant.is_empty() {
        out.push_str(&element("attendant", &attendant));
    }
    out.push_str(&element("lineKey", &line_keys));
    out.push_str(&element("tcpIpApp", &clock));
    out.push_str("</polycomConfig>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_standard_time_with_a_dst_flag() {
        assert_eq!(zone_offsets("America/New_York", 2026), (-5 * 3600, true));
        assert_eq!(zone_offsets("Asia/Kolkata", 2026), (19800, false));
        assert_eq!(zone_offsets("Australia/Sydney", 2026), (10 * 3600, true));
        assert_eq!(yealink_offset(-5 * 3600), "-5");
        assert_eq!(yealink_offset(19800), "+5:30");
        assert_eq!(yealink_offset(0), "+0");
    }

    #[test]
    fn values_cannot_break_out_of_their_line_or_attribute() {
        assert_eq!(clean("a\nb\r=c"), "ab=c");
        assert_eq!(xml("a\"<b>&'"), "a&quot;&lt;b&gt;&amp;&apos;");
    }
}
