//! Polycom UC Software: the master `<mac>.cfg` naming the per-phone file, and
//! `phone<mac>.cfg` with parameters as attributes under `polycomConfig`.

use chrono::{Datelike, Utc};

use super::time_zone::zone_offsets;
use super::{PhoneConfig, comment_text, default_keys, xml};
use crate::records::device_model::DeviceModel;

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
