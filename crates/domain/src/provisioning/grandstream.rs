//! Grandstream's XML configuration: P-value parameters under `<gs_provision>`.

use chrono::{Datelike, Utc};

use super::time_zone::{posix_tz, zone_rule};
use super::{PhoneConfig, comment_text, default_keys, xml};
use crate::records::device_model::DeviceModel;

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
pub(super) fn grandstream_mode(kind: &str) -> i8 {
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
pub(super) fn grandstream_key(model: &DeviceModel, index: i64) -> Option<[u32; 4]> {
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
