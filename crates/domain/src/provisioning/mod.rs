//! The files desk phones fetch their configuration from, rendered in each vendor's own
//! format, one file per vendor (Yealink, Polycom, Grandstream, Cisco SPA) beside the
//! time-zone maths some of them need. Pure functions of what the store holds, so golden
//! files test them.

mod cisco;
mod grandstream;
mod polycom;
mod time_zone;
mod yealink;

pub use cisco::cisco_spa;
pub use grandstream::grandstream;
pub use polycom::{polycom_master, polycom_phone, polycom_phone_file};
pub use time_zone::{ClockChange, ZoneRule, posix_tz, zone_offsets, zone_rule};
pub use yealink::yealink;

use crate::ids::DeviceId;

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
    pub device_id: DeviceId,
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

/// Escapes a value for an XML attribute (all five of XML's special characters, by
/// quick-xml).
fn xml(value: &str) -> String {
    quick_xml::escape::escape(clean(value)).into_owned()
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
    use super::cisco::{cisco_dst, cisco_offset};
    use super::grandstream::{grandstream_key, grandstream_mode};
    use super::yealink::yealink_offset;
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
