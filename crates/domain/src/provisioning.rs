//! The files desk phones fetch their configuration from, rendered in each vendor's own
//! format: Yealink's `<mac>.cfg` (`key = value` lines under `#!version:1.0.0.1`) and
//! Polycom UC Software's master `<mac>.cfg` (an `APPLICATION` element naming the
//! per-phone file) with `phone<mac>.cfg` (parameters as attributes under
//! `polycomConfig`). Pure functions of what the store holds, so golden files test them.

use chrono::{Datelike, Offset, TimeZone, Timelike, Utc};

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

/// One change of a zone's clocks, as the rules of phones state it: in `month`, on the
/// `week`th (5: the last) `weekday` (0 Sunday to 6 Saturday), at `seconds` after local
/// midnight on the clock before the change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockChange {
    /// 1 to 12.
    pub month: u32,
    /// 1 to 4, or 5 for the last such weekday of the month.
    pub week: u32,
    /// 0 Sunday to 6 Saturday.
    pub weekday: u32,
    /// Seconds after local midnight, on the clock before the change.
    pub seconds: u32,
}

/// A zone's clock in `year`: its standard offset from UTC in seconds and, when it
/// observes daylight saving time, when that starts and ends and how many seconds it adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneRule {
    /// Standard time's offset from UTC, in seconds.
    pub standard: i32,
    /// Start, end and the seconds added, for a zone with daylight saving time.
    pub dst: Option<(ClockChange, ClockChange, i32)>,
}

/// The rule of `timezone` in `year`, read from the zone database: the year's clock
/// changes are found hour by hour, then to the minute.
pub fn zone_rule(timezone: &str, year: i32) -> ZoneRule {
    let Ok(tz) = timezone.parse::<chrono_tz::Tz>() else {
        return ZoneRule {
            standard: 0,
            dst: None,
        };
    };
    let offset = |t: chrono::DateTime<Utc>| tz.offset_from_utc_datetime(&t.naive_utc()).fix();
    let Some(start) = Utc.with_ymd_and_hms(year, 1, 1, 0, 0, 0).single() else {
        return ZoneRule {
            standard: 0,
            dst: None,
        };
    };
    // The first moment on a new clock after `from`, within `step` of it, to the minute.
    let narrow = |from: chrono::DateTime<Utc>, step: chrono::Duration| {
        let mut at = from;
        for unit in [chrono::Duration::hours(1), chrono::Duration::minutes(1)] {
            while at + unit <= from + step && offset(at + unit) == offset(from) {
                at += unit;
            }
        }
        at + chrono::Duration::minutes(1)
    };
    let mut changes = Vec::new();
    let day = chrono::Duration::days(1);
    let mut at = start;
    while at.year() == year {
        let next = at + day;
        if offset(next) != offset(at) {
            let minute = narrow(at, day);
            let before = offset(at).local_minus_utc();
            let after = offset(minute).local_minus_utc();
            let local = (minute + chrono::Duration::seconds(i64::from(before))).naive_utc();
            let days = days_in_month(local.year(), local.month());
            let change = ClockChange {
                month: local.month(),
                week: if local.day() + 7 > days {
                    5
                } else {
                    (local.day() - 1) / 7 + 1
                },
                weekday: local.weekday().num_days_from_sunday(),
                seconds: local.num_seconds_from_midnight(),
            };
            changes.push((change, before, after));
        }
        at = next;
    }
    let (january, july) = (offset(start), offset(start + chrono::Duration::days(182)));
    let standard = january.local_minus_utc().min(july.local_minus_utc());
    let begins = changes.iter().find(|(_, before, after)| after > before);
    let ends = changes.iter().find(|(_, before, after)| after < before);
    ZoneRule {
        standard,
        dst: begins
            .zip(ends)
            .map(|((on, before, after), (off, _, _))| (*on, *off, after - before)),
    }
}

fn days_in_month(year: i32, month: u32) -> u32 {
    let (y, m) = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    chrono::NaiveDate::from_ymd_opt(y, m, 1)
        .and_then(|d| d.pred_opt())
        .map_or(31, |d| d.day())
}

/// `[+-]H[:MM]` of an offset in seconds.
fn hours(seconds: i32, sign_always: bool) -> String {
    let sign = if seconds < 0 {
        "-"
    } else if sign_always {
        "+"
    } else {
        ""
    };
    let minutes = seconds.unsigned_abs() / 60;
    match minutes % 60 {
        0 => format!("{sign}{}", minutes / 60),
        m => format!("{sign}{}:{m:02}", minutes / 60),
    }
}

/// A POSIX `TZ` string of `rule` (`STD+5DST+4,M3.2.0/2:00:00,M11.1.0/2:00:00`), whose
/// offsets are hours west of UTC.
pub fn posix_tz(rule: &ZoneRule) -> String {
    let mut out = format!("STD{}", hours(-rule.standard, true));
    if let Some((on, off, save)) = rule.dst {
        let at = |c: ClockChange| {
            format!(
                "M{}.{}.{}/{}:{:02}:{:02}",
                c.month,
                c.week,
                c.weekday,
                c.seconds / 3600,
                c.seconds / 60 % 60,
                c.seconds % 60
            )
        };
        out.push_str(&format!(
            "DST{},{},{}",
            hours(-(rule.standard + save), true),
            at(on),
            at(off)
        ));
    }
    out
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

/// The name of a Polycom phone's own file, listed by its master configuration.
pub fn polycom_phone_file(mac: &str) -> String {
    format!("phone{mac}.cfg")
}

/// The enhanced-feature-key macro (Polycom UC Software "Macro Actions": digits then
/// `$Tinvite$` dial them, `$F<function>$` presses one of the phone's own function keys)
/// of a key that is neither a line nor a BLF, with the label it gets without one of
/// its own; `None` for an unassigned key. Digits are the validated dial strings (0-9 * #
/// +), which hold no `$`.
fn polycom_action(kind: &str, value: Option<&str>) -> Option<(String, &'static str)> {
    let dial = |digits: &str| format!("{digits}$Tinvite$");
    match (kind, value) {
        ("speedDial", Some(number)) => Some((dial(number), "Speed dial")),
        ("pagingGroup", Some(number)) => Some((dial(number), "Paging")),
        ("park", Some(slot)) => Some((dial(slot), "Park")),
        ("park", None) => Some(("$FPark$".to_owned(), "Park")),
        ("voicemail", _) => Some(("$FMessages$".to_owned(), "Voicemail")),
        ("dnd", _) => Some(("$FDoNotDisturb$".to_owned(), "DND")),
        _ => None,
    }
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
    let mut efk = Vec::new();
    let mut line_keys = vec![("lineKey.reassignment.enabled".to_owned(), "1".to_owned())];
    // Every key of the phone and of its expansion modules (which continue its
    // numbering), unused ones Unassigned.
    for index in 1..=model.max_keys {
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
            Some((kind, k)) => match polycom_action(kind, k.value.as_deref()) {
                Some((action, fallback)) => {
                    let n = efk.len() / 4 + 1;
                    let label = k.label.clone().unwrap_or_else(|| fallback.to_owned());
                    efk.push((format!("efk.efklist.{n}.mname"), format!("key{index}")));
                    efk.push((format!("efk.efklist.{n}.status"), "1".to_owned()));
                    efk.push((format!("efk.efklist.{n}.label"), label));
                    efk.push((format!("efk.efklist.{n}.action.string"), action));
                    ("EFK", n.to_string())
                }
                None => ("Unassigned", "0".to_owned()),
            },
            None => ("Unassigned", "0".to_owned()),
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
        comment_text(&config.name),
        model.id,
        config.config_version
    ));
    out.push_str("<polycomConfig>\n");
    out.push_str(&element("reg", &reg));
    if !attendant.is_empty() {
        out.push_str(&element("attendant", &attendant));
    }
    if !efk.is_empty() {
        out.push_str(&element(
            "feature",
            &[(
                "feature.enhancedFeatureKeys.enabled".to_owned(),
                "1".to_owned(),
            )],
        ));
        efk.insert(0, ("efk.version".to_owned(), "2".to_owned()));
        out.push_str(&element("efk", &efk));
    }
    out.push_str(&element("lineKey", &line_keys));
    out.push_str(&element("tcpIpApp", &clock));
    out.push_str("</polycomConfig>\n");
    out
}

/// Grandstream's P-values of SIP account `n` (1 to 6, GXP/GRP configuration templates):
/// active, account name, SIP server, SIP user id, authentication id, password, display
/// name.
fn grandstream_account(n: i64) -> Option<[u32; 7]> {
    let base = match n {
        1 => return Some([271, 270, 47, 35, 36, 34, 3]),
        2 => 400,
        3 => 500,
        4 => 600,
        5 => 1700,
        6 => 1800,
        _ => return None,
    };
    Some([1, 17, 2, 4, 5, 6, 7].map(|offset| base + offset))
}

/// Grandstream's key modes, as Grandstream's configuration template for the GRP261x
/// (firmware 1.0.5.15) lists them for virtual keys (VPKs), screen keys (MPKs) and the
/// GBX20's keys alike: None -1, Speed Dial 0, BLF 1, Voice Mail 6, Call Park 9, DND 22,
/// and Line 31 (virtual keys only; the layout rules keep lines on the fixed ones). A
/// paging group is a speed dial of its number, as on the other vendors (Grandstream's own
/// paging is RTP multicast).
fn grandstream_mode(kind: &str) -> i8 {
    match kind {
        "line" => 31,
        "speedDial" | "pagingGroup" => 0,
        "blf" => 1,
        "voicemail" => 6,
        "park" => 9,
        "dnd" => 22,
        _ => -1,
    }
}

/// The P-values of key `index` (from 1) of `model` — its mode, account, description and
/// value — as the GRP261x template numbers them: virtual keys 1–6 at `P1363+2n`,
/// `P1364+2n`, `P1465+2n`, `P1466+2n` and 7 on at `P23800+4n`…; then the screen keys
/// (MPK 1–7 at `P323+n` with `P301+3n`…, 8–18 at `P353+4n`…, 19–24 at `P1440+4n`…);
/// then the GBX20 keys, 40 a module, at `P23000+5n`….
fn grandstream_key(model: &DeviceModel, index: i64) -> Option<[u32; 4]> {
    let four = |base: i64| -> Option<[u32; 4]> {
        let base = u32::try_from(base).ok()?;
        Some([base, base + 1, base + 2, base + 3])
    };
    if index < 1 {
        return None;
    }
    if index <= model.virtual_keys {
        if index <= 6 {
            let n = u32::try_from(index - 1).ok()?;
            return Some([1363 + 2 * n, 1364 + 2 * n, 1465 + 2 * n, 1466 + 2 * n]);
        }
        return four(23800 + 4 * (index - 7));
    }
    if index <= model.line_keys {
        let m = index - model.virtual_keys;
        return match m {
            1..=7 => {
                let n = u32::try_from(m - 1).ok()?;
                Some([323 + n, 301 + 3 * n, 302 + 3 * n, 303 + 3 * n])
            }
            8..=18 => four(353 + 4 * (m - 8)),
            19..=24 => four(1440 + 4 * (m - 19)),
            _ => None,
        };
    }
    let e = index - model.line_keys;
    (e <= 160).then(|| four(23000 + 5 * (e - 1))).flatten()
}

/// Renders Grandstream's `cfg<mac>.xml` (the `gs_provision` XML of P-values) for `config`
/// on `model`: accounts, every key of the phone and of its expansion modules (unused
/// ones None, so a key removed from the layout is cleared on the phone too), and the
/// clock as a POSIX rule (`P64` `customize` with `P246`).
pub fn grandstream(config: &PhoneConfig, model: &DeviceModel) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<!-- Switchboard device {} \"{}\" ({}), configuration version {} -->\n",
        config.device_id,
        comment_text(&config.name),
        model.id,
        config.config_version
    ));
    out.push_str("<gs_provision version=\"1\">\n");
    out.push_str(&format!("  <mac>{}</mac>\n", config.mac));
    out.push_str("  <config version=\"1\">\n");
    let mut set = |p: u32, value: &str| {
        out.push_str(&format!("    <P{p}>{}</P{p}>\n", xml(value)));
    };
    for account in 1..=model.accounts {
        let Some([active, label, server, user, auth, password, name]) =
            grandstream_account(account)
        else {
            break;
        };
        let line = usize::try_from(account - 1)
            .ok()
            .and_then(|n| config.lines.get(n));
        let Some(line) = line else {
            set(active, "0");
            continue;
        };
        set(active, "1");
        set(label, &line.name);
        set(
            server,
            &format!("{}:{}", config.sip_server, config.sip_port),
        );
        set(user, &line.number);
        set(auth, &line.auth_name);
        set(password, &line.password);
        set(name, &line.name);
    }
    let rule = zone_rule(&config.timezone, Utc::now().year());
    set(64, "customize");
    set(246, &posix_tz(&rule));
    let keys = config.keys.clone().unwrap_or_else(|| default_keys(config));
    // Every key in order: the template warns that a dynamic virtual key left out drops
    // every one after it.
    for index in 1..=model.max_keys {
        let Some([mode, account, label, value]) = grandstream_key(model, index) else {
            break;
        };
        let key = keys.iter().find(|k| k.index == index);
        let kind = key.map_or("none", |k| k.kind.as_str());
        let (line, target) = match (kind, key.and_then(|k| k.value.as_deref())) {
            ("line", line) => (line.unwrap_or("1"), ""),
            ("none" | "voicemail" | "dnd", _) => ("1", ""),
            (_, target) => ("1", target.unwrap_or("")),
        };
        let line = line.parse::<u32>().unwrap_or(1).saturating_sub(1);
        set(mode, &grandstream_mode(kind).to_string());
        set(account, &line.to_string());
        set(label, key.and_then(|k| k.label.as_deref()).unwrap_or(""));
        set(value, target);
    }
    out.push_str("  </config>\n</gs_provision>\n");
    out
}

/// Cisco's `Time_Zone` notation of an offset: `GMT-05:00`, `GMT+05:30`.
fn cisco_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    format!("GMT{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

/// Cisco's `Daylight_Saving_Time_Rule` (`start=3/8/7/2:0:0;end=11/1/7/2:0:0;save=1`):
/// month, the day the weekday falls on or after (-1: the last of the month), weekday
/// (1 Monday to 7 Sunday), time.
fn cisco_dst(on: ClockChange, off: ClockChange, save: i32) -> String {
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

/// `text` fit for an XML comment: escaped, and never holding `--` (which ends one early),
/// however many dashes it runs to.
fn comment_text(text: &str) -> String {
    let mut text = xml(text);
    while text.contains("--") {
        text = text.replace("--", "- -");
    }
    text
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
    fn zone_rules_are_read_from_the_zone_database() {
        let york = zone_rule("America/New_York", 2026);
        assert_eq!(posix_tz(&york), "STD+5DST+4,M3.2.0/2:00:00,M11.1.0/2:00:00");
        let (on, off, save) = york.dst.expect("New York has daylight saving time");
        assert_eq!(
            cisco_dst(on, off, save),
            "start=3/8/7/2:0:0;end=11/1/7/2:0:0;save=1"
        );
        assert_eq!(cisco_offset(york.standard), "GMT-05:00");
        let london = zone_rule("Europe/London", 2026);
        assert_eq!(
            posix_tz(&london),
            "STD+0DST-1,M3.5.0/1:00:00,M10.5.0/2:00:00"
        );
        let sydney = zone_rule("Australia/Sydney", 2026);
        assert_eq!(
            posix_tz(&sydney),
            "STD-10DST-11,M10.1.0/2:00:00,M4.1.0/3:00:00"
        );
        let kolkata = zone_rule("Asia/Kolkata", 2026);
        assert_eq!(posix_tz(&kolkata), "STD-5:30");
        assert_eq!(cisco_offset(kolkata.standard), "GMT+05:30");
    }

    /// Anchors taken from Grandstream's GRP261x template (firmware 1.0.5.15).
    #[test]
    fn grandstream_keys_fall_on_the_templates_p_values() {
        let model = crate::records::device_model::find("grandstream-grp2614").expect("GRP2614");
        let key = |index| grandstream_key(model, index);
        assert_eq!(key(1), Some([1363, 1364, 1465, 1466]));
        assert_eq!(key(4), Some([1369, 1370, 1471, 1472]));
        assert_eq!(key(6), Some([1373, 1374, 1475, 1476]));
        assert_eq!(key(7), Some([23800, 23801, 23802, 23803]));
        assert_eq!(key(16), Some([23836, 23837, 23838, 23839]), "VPK 16");
        assert_eq!(key(17), Some([323, 301, 302, 303]), "MPK 1");
        assert_eq!(key(23), Some([329, 319, 320, 321]), "MPK 7");
        assert_eq!(key(24), Some([353, 354, 355, 356]), "MPK 8");
        assert_eq!(key(34), Some([393, 394, 395, 396]), "MPK 18");
        assert_eq!(key(35), Some([1440, 1441, 1442, 1443]), "MPK 19");
        assert_eq!(key(40), Some([1460, 1461, 1462, 1463]), "MPK 24");
        assert_eq!(key(41), Some([23000, 23001, 23002, 23003]), "EXT 1");
        assert_eq!(key(81), Some([23200, 23201, 23202, 23203]), "EXT 41");
        assert_eq!(key(200), Some([23795, 23796, 23797, 23798]), "EXT 160");
        assert_eq!(key(201), None);
        assert_eq!(key(0), None);
        let grp2615 = crate::records::device_model::find("grandstream-grp2615").expect("GRP2615");
        assert_eq!(
            grandstream_key(grp2615, 40),
            Some([23932, 23933, 23934, 23935]),
            "VPK 40"
        );
        assert_eq!(grandstream_mode("blf"), 1);
        assert_eq!(grandstream_mode("line"), 31);
        assert_eq!(grandstream_mode("none"), -1);
    }

    #[test]
    fn values_cannot_break_out_of_their_line_or_attribute() {
        assert_eq!(clean("a\nb\r=c"), "ab=c");
        assert_eq!(xml("a\"<b>&'"), "a&quot;&lt;b&gt;&amp;&apos;");
    }
}
