//! app_voicemail's file spool (`/var/spool/asterisk/voicemail`): every stored message with its
//! metadata (`msgNNNN.txt`) and its audio (`msgNNNN.wav`, `.WAV` or `.gsm`).
//!
//! Layout: `DIR/<context>/<mailbox>/<folder>/msgNNNN.<ext>`. Beside the folders, a mailbox holds its
//! greetings (`busy`, `unavail`, `greet`, `temp` in each recorded format) and a `tmp` folder for
//! recordings in progress; neither is a message and both are skipped, as are hidden files such as
//! Asterisk's `.lock` and the `Deleted` folder (messages kept by `backupdeleted`, deleted for the user).

use std::collections::{BTreeMap, btree_map::Entry};
use std::fs;
use std::path::{Path, PathBuf};

use crate::ImportError;
use crate::caller_id::{self, CallerId};

/// A voicemail folder of app_voicemail, in Asterisk's own order (which is also the sort order here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Folder {
    /// `INBOX`: new messages.
    Inbox,
    /// `Old`: messages listened to.
    Old,
    /// `Work`.
    Work,
    /// `Family`.
    Family,
    /// `Friends`.
    Friends,
    /// `Cust1`.
    Cust1,
    /// `Cust2`.
    Cust2,
    /// `Cust3`.
    Cust3,
    /// `Cust4`.
    Cust4,
    /// `Cust5`.
    Cust5,
    /// `Urgent`: new messages the caller marked urgent.
    Urgent,
}

impl Folder {
    /// Every folder, in Asterisk's order.
    pub const ALL: [Folder; 11] = [
        Folder::Inbox,
        Folder::Old,
        Folder::Work,
        Folder::Family,
        Folder::Friends,
        Folder::Cust1,
        Folder::Cust2,
        Folder::Cust3,
        Folder::Cust4,
        Folder::Cust5,
        Folder::Urgent,
    ];

    /// The folder's directory name, e.g. `INBOX`, `Old`, `Cust3` (case matters, as in Asterisk).
    pub fn as_str(self) -> &'static str {
        match self {
            Folder::Inbox => "INBOX",
            Folder::Old => "Old",
            Folder::Work => "Work",
            Folder::Family => "Family",
            Folder::Friends => "Friends",
            Folder::Cust1 => "Cust1",
            Folder::Cust2 => "Cust2",
            Folder::Cust3 => "Cust3",
            Folder::Cust4 => "Cust4",
            Folder::Cust5 => "Cust5",
            Folder::Urgent => "Urgent",
        }
    }

    /// The folder named `name` exactly (`INBOX`, not `inbox`); None for any other name.
    pub fn from_dir_name(name: &str) -> Option<Folder> {
        Folder::ALL
            .into_iter()
            .find(|folder| folder.as_str() == name)
    }

    /// Whether messages here were listened to: every folder but `INBOX` and `Urgent` (Asterisk moves
    /// a message out of those two once it is heard).
    pub fn is_read(self) -> bool {
        !matches!(self, Folder::Inbox | Folder::Urgent)
    }
}

/// How a message's audio is encoded, told by its file extension as Asterisk names its formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AudioFormat {
    /// `.wav`: 16-bit PCM WAV (Asterisk's `wav`, 8 kHz mono; `wav16` writes `.wav16`, not read here).
    Wav,
    /// `.WAV`: GSM 6.10 inside a Microsoft WAV (Asterisk's `wav49`).
    Wav49,
    /// `.gsm`: raw GSM 6.10 frames (Asterisk's `gsm`).
    Gsm,
}

impl AudioFormat {
    /// The audio extensions read, in order of preference, with their format.
    const BY_PREFERENCE: [(&'static str, AudioFormat); 3] = [
        ("wav", AudioFormat::Wav),
        ("WAV", AudioFormat::Wav49),
        ("gsm", AudioFormat::Gsm),
    ];
}

/// A message's audio file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpoolAudio {
    /// The audio file.
    pub path: PathBuf,
    /// Its encoding, from the extension.
    pub format: AudioFormat,
}

/// One voicemail message of the spool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpoolMessage {
    /// The voicemail context (first folder level), e.g. `default`.
    pub context: String,
    /// The mailbox (second folder level), e.g. `101`.
    pub mailbox: String,
    /// The folder the message is filed in.
    pub folder: Folder,
    /// NNNN of `msgNNNN.txt`: the message's position in its folder (0 first).
    pub message_number: u32,
    /// Asterisk's `msg_id` (`<origtime>-<counter>`), or, for spools written before Asterisk 11 had none,
    /// [`derived_msg_id`] of this message: the same on every import of an unchanged spool.
    pub msg_id: String,
    /// Whether `msg_id` was derived rather than read from the file.
    pub msg_id_derived: bool,
    /// The `callerid` line as written, e.g. `"Alice" <101>`; empty when unknown.
    pub caller_id: String,
    /// The `origdate` line as written (Asterisk writes e.g. `Mon Nov 13 07:05:34 PM UTC 2023`).
    pub orig_date: String,
    /// When the message was left: `origtime`, unix seconds.
    pub orig_time: i64,
    /// Length of the recording in seconds, as Asterisk measured it (`duration`).
    pub duration: i64,
    /// The extension dialled to reach the mailbox (`exten`).
    pub exten: String,
    /// `flag`: `Urgent`, `PRIORITY` or None when empty.
    pub flag: Option<String>,
    /// The audio: `.wav` when present, else `.WAV`, else `.gsm`; None when the message has none of them.
    pub audio: Option<SpoolAudio>,
    /// The metadata file `msgNNNN.txt`.
    pub source: PathBuf,
    /// Every `key=value` of the `[message]` section as written (origmailbox, callerchan, rdnis, …).
    pub fields: BTreeMap<String, String>,
}

impl SpoolMessage {
    /// Whether the message was listened to (its folder is neither `INBOX` nor `Urgent`).
    pub fn is_read(&self) -> bool {
        self.folder.is_read()
    }

    /// The caller ID split into name and number.
    pub fn caller(&self) -> CallerId {
        caller_id::split(&self.caller_id)
    }
}

/// Folders beside the mail folders that hold no messages for the user.
const SKIPPED_FOLDERS: [&str; 2] = ["tmp", "Deleted"];

/// Reads every message of the spool at `dir` (the folder holding the contexts), sorted by context,
/// mailbox, folder (Asterisk's order) and number. Validates everything first: a bad `msgNNNN.txt`,
/// an unknown folder or an unreadable directory fails the whole read, naming the file and line.
pub fn read_spool(dir: &Path) -> Result<Vec<SpoolMessage>, ImportError> {
    let mut messages = Vec::new();
    for (context, context_dir) in subdirectories(dir)? {
        for (mailbox, mailbox_dir) in subdirectories(&context_dir)? {
            for (name, folder_dir) in subdirectories(&mailbox_dir)? {
                if SKIPPED_FOLDERS.contains(&name.as_str()) {
                    continue;
                }
                let folder = Folder::from_dir_name(&name).ok_or_else(|| {
                    ImportError::new(
                        &folder_dir,
                        None,
                        format!(
                            "unknown voicemail folder {name:?} (expected one of INBOX, Old, Work, Family, \
                             Friends, Cust1-Cust5, Urgent)"
                        ),
                    )
                })?;
                let mailbox_key = Mailbox {
                    context: &context,
                    mailbox: &mailbox,
                    folder,
                };
                read_folder(&mailbox_key, &folder_dir, &mut messages)?;
            }
        }
    }
    messages.sort_by(|a, b| {
        (&a.context, &a.mailbox, a.folder, a.message_number).cmp(&(
            &b.context,
            &b.mailbox,
            b.folder,
            b.message_number,
        ))
    });
    Ok(messages)
}

/// The msg id given to a message whose file has none (spools of Asterisk before 11):
/// `<origtime>-<16 hex digits>`, the digits a 64-bit FNV-1a hash of `context/mailbox/folder/msgNNNN`.
/// Stable across imports of the same spool (the hash is fixed, not Rust's randomised one), shaped like
/// Asterisk's own ids, and distinct for every message file of a spool.
pub fn derived_msg_id(
    orig_time: i64,
    context: &str,
    mailbox: &str,
    folder: Folder,
    message_number: u32,
) -> String {
    let identity = format!(
        "{context}/{mailbox}/{}/msg{message_number:04}",
        folder.as_str()
    );
    format!("{orig_time}-{:016x}", fnv1a64(identity.as_bytes()))
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

struct Mailbox<'a> {
    context: &'a str,
    mailbox: &'a str,
    folder: Folder,
}

/// The files of one message found in a folder.
#[derive(Default)]
struct MessageFiles {
    text: Option<PathBuf>,
    audio: Vec<(PathBuf, AudioFormat)>,
}

fn read_folder(
    mailbox: &Mailbox<'_>,
    dir: &Path,
    messages: &mut Vec<SpoolMessage>,
) -> Result<(), ImportError> {
    let mut found: BTreeMap<u32, MessageFiles> = BTreeMap::new();
    for entry in entries(dir)? {
        let Listed { name, path, is_dir } = entry;
        if is_dir {
            continue;
        }
        let Some((number, extension)) = message_file_name(&name) else {
            // Lock files, editor leftovers, other formats' audio (msgNNNN.ulaw, …).
            continue;
        };
        let files = found.entry(number).or_default();
        if extension == "txt" {
            if let Some(other) = &files.text {
                return Err(ImportError::new(
                    &path,
                    None,
                    format!(
                        "message number {number} has two metadata files (also {})",
                        other.display()
                    ),
                ));
            }
            files.text = Some(path);
        } else if let Some((_, format)) = AudioFormat::BY_PREFERENCE
            .iter()
            .find(|(ext, _)| *ext == extension)
        {
            files.audio.push((path, *format));
        }
    }
    for (number, files) in found {
        // Audio without its msgNNNN.txt is a recording Asterisk never finished filing: no message.
        let Some(text) = files.text else { continue };
        let audio = AudioFormat::BY_PREFERENCE.iter().find_map(|(_, wanted)| {
            files
                .audio
                .iter()
                .find(|(_, format)| format == wanted)
                .map(|(path, format)| SpoolAudio {
                    path: path.clone(),
                    format: *format,
                })
        });
        messages.push(read_message(mailbox, number, &text, audio)?);
    }
    Ok(())
}

/// `msg0012.txt` → (12, "txt"). None for any other name.
fn message_file_name(name: &str) -> Option<(u32, &str)> {
    let rest = name.strip_prefix("msg")?;
    let (digits, extension) = rest.split_once('.')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, extension))
}

fn read_message(
    mailbox: &Mailbox<'_>,
    number: u32,
    path: &Path,
    audio: Option<SpoolAudio>,
) -> Result<SpoolMessage, ImportError> {
    let bytes = fs::read(path)
        .map_err(|error| ImportError::new(path, None, format!("cannot read: {error}")))?;
    // Caller names arrive from trunks in whatever encoding; an invalid byte becomes U+FFFD.
    let text = String::from_utf8_lossy(&bytes);
    let fields = parse_message_file(path, &text)?;
    let field = |key: &str| fields.get(key).map(|(_, value)| value.as_str());
    let number_field = |key: &str| -> Result<i64, ImportError> {
        let (line, value) = fields.get(key).ok_or_else(|| {
            ImportError::new(
                path,
                None,
                format!("no {key}= line in the [message] section"),
            )
        })?;
        match value.parse::<i64>() {
            Ok(n) if n >= 0 && value.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
            _ => Err(ImportError::new(
                path,
                Some(*line),
                format!("{key} must be a whole number of seconds, not {value:?}"),
            )),
        }
    };
    let orig_time = number_field("origtime")?;
    let duration = number_field("duration")?;
    let (msg_id, msg_id_derived) = match field("msg_id") {
        Some(id) if !id.is_empty() => (id.to_owned(), false),
        _ => (
            derived_msg_id(
                orig_time,
                mailbox.context,
                mailbox.mailbox,
                mailbox.folder,
                number,
            ),
            true,
        ),
    };
    let text_field = |key: &str| field(key).unwrap_or_default().to_owned();
    Ok(SpoolMessage {
        context: mailbox.context.to_owned(),
        mailbox: mailbox.mailbox.to_owned(),
        folder: mailbox.folder,
        message_number: number,
        msg_id,
        msg_id_derived,
        caller_id: text_field("callerid"),
        orig_date: text_field("origdate"),
        orig_time,
        duration,
        exten: text_field("exten"),
        flag: field("flag")
            .filter(|flag| !flag.is_empty())
            .map(str::to_owned),
        audio,
        source: path.to_owned(),
        fields: fields
            .into_iter()
            .map(|(key, (_, value))| (key, value))
            .collect(),
    })
}

/// Parses a `msgNNNN.txt` the way Asterisk's config reader does: `;` starts a comment (`\;` is a
/// literal semicolon), `[name]` opens a section, `key=value` (or `key => value`) sets a value, blanks
/// around keys and values are trimmed. Answers the `[message]` section's values with their line
/// numbers; refuses a file without that section, a value outside any section, a line of no known form
/// and a key given twice.
fn parse_message_file(
    path: &Path,
    text: &str,
) -> Result<BTreeMap<String, (usize, String)>, ImportError> {
    let mut fields = BTreeMap::new();
    let mut section: Option<String> = None;
    let mut seen_message = false;
    for (index, raw) in text.lines().enumerate() {
        let line_number = index + 1;
        let error = |message: String| ImportError::new(path, Some(line_number), message);
        let line = strip_comment(raw);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or_else(|| error(format!("unclosed section header {line:?}")))?;
            seen_message |= name == "message";
            section = Some(name.to_owned());
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(error(format!("expected key=value, found {line:?}")));
        };
        let value = value.strip_prefix('>').unwrap_or(value);
        let (key, value) = (key.trim(), value.trim());
        if key.is_empty() {
            return Err(error(format!("expected key=value, found {line:?}")));
        }
        match section.as_deref() {
            None => return Err(error(format!("{key}= before the [message] section"))),
            Some("message") => match fields.entry(key.to_owned()) {
                Entry::Vacant(slot) => {
                    slot.insert((line_number, value.to_owned()));
                }
                Entry::Occupied(first) => {
                    return Err(error(format!(
                        "{key}= given twice (first on line {})",
                        first.get().0
                    )));
                }
            },
            // Not written by app_voicemail; nothing in it is read.
            Some(_) => {}
        }
    }
    if !seen_message {
        return Err(ImportError::new(
            path,
            None,
            "no [message] section: not an Asterisk voicemail message file",
        ));
    }
    Ok(fields)
}

/// The line up to its first unescaped `;`, with `\;` turned into `;`.
fn strip_comment(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&';') => {
                out.push(';');
                chars.next();
            }
            ';' => break,
            c => out.push(c),
        }
    }
    out
}

/// A visible entry of a folder.
struct Listed {
    name: String,
    path: PathBuf,
    is_dir: bool,
}

/// The entries of `dir` that are not hidden (no `.lock`, `.DS_Store`, …), by name; names must be UTF-8.
fn entries(dir: &Path) -> Result<Vec<Listed>, ImportError> {
    let read_error = |error: std::io::Error| {
        ImportError::new(dir, None, format!("cannot read the folder: {error}"))
    };
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(read_error)? {
        let entry = entry.map_err(read_error)?;
        let path = entry.path();
        let name = entry
            .file_name()
            .into_string()
            .map_err(|_| ImportError::new(&path, None, "the file name is not valid UTF-8"))?;
        if name.starts_with('.') {
            continue;
        }
        // Follows symbolic links, as Asterisk does (spools are sometimes linked between contexts).
        let is_dir = fs::metadata(&path)
            .map_err(|error| ImportError::new(&path, None, format!("cannot read: {error}")))?
            .is_dir();
        out.push(Listed { name, path, is_dir });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The visible subdirectories of `dir` as (name, path); files beside them (greetings) are left out.
fn subdirectories(dir: &Path) -> Result<Vec<(String, PathBuf)>, ImportError> {
    Ok(entries(dir)?
        .into_iter()
        .filter(|entry| entry.is_dir)
        .map(|entry| (entry.name, entry.path))
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const MESSAGE: &str = "\
;
; Message Information file
;
[message]
origmailbox=101
context=from-internal
macrocontext=
exten=101
rdnis=unknown
priority=2
callerchan=PJSIP/102-00000001
callerid=\"Bob\" <102>
origdate=Sun Nov 12 02:40:00 PM UTC 2023
origtime=1699800000
category=
msg_id=1699800000-00000000
flag=
duration=7
";

    fn parse(text: &str) -> Result<BTreeMap<String, (usize, String)>, ImportError> {
        parse_message_file(Path::new("msg0000.txt"), text)
    }

    #[test]
    fn message_files_parse_with_line_numbers() {
        let fields = parse(MESSAGE).unwrap();
        assert_eq!(fields["origtime"], (14, "1699800000".to_owned()));
        assert_eq!(fields["callerid"].1, "\"Bob\" <102>");
        assert_eq!(fields["macrocontext"].1, "");
        assert_eq!(fields.len(), 14);
    }

    #[test]
    fn comments_spaces_and_arrows_follow_asterisk_config_rules() {
        let fields = parse(
            "[message] ; trailing comment\n  callerid = \"A\\;B\" <1> ; who\norigtime => 5\n\n",
        )
        .unwrap();
        assert_eq!(fields["callerid"].1, "\"A;B\" <1>");
        assert_eq!(fields["origtime"].1, "5");
    }

    #[test]
    fn bad_message_files_are_refused_with_their_line() {
        let cases: [(&str, Option<usize>, &str); 6] = [
            (
                "origtime=1\n[message]\n",
                Some(1),
                "before the [message] section",
            ),
            ("[message]\norigtime 5\n", Some(2), "expected key=value"),
            ("[message]\n=5\n", Some(2), "expected key=value"),
            ("[message\n", Some(1), "unclosed section"),
            (
                "[message]\norigtime=1\norigtime=2\n",
                Some(3),
                "given twice (first on line 2)",
            ),
            (";\n; only comments\n", None, "no [message] section"),
        ];
        for (text, line, message) in cases {
            let error = parse(text).unwrap_err();
            assert_eq!(error.line, line, "{text:?}: {error}");
            assert!(error.message.contains(message), "{text:?}: {error}");
        }
    }

    #[test]
    fn message_file_names() {
        assert_eq!(message_file_name("msg0000.txt"), Some((0, "txt")));
        assert_eq!(message_file_name("msg0123.WAV"), Some((123, "WAV")));
        assert_eq!(message_file_name("msg9999.gsm"), Some((9999, "gsm")));
        for other in [
            "msg.txt",
            "msgA001.txt",
            "msg0001",
            "unavail.wav",
            "greet.txt",
            "msg-1.txt",
        ] {
            assert_eq!(message_file_name(other), None, "{other}");
        }
    }

    #[test]
    fn folders() {
        for folder in Folder::ALL {
            assert_eq!(Folder::from_dir_name(folder.as_str()), Some(folder));
        }
        assert_eq!(Folder::from_dir_name("inbox"), None);
        assert_eq!(Folder::from_dir_name("tmp"), None);
        let unread: Vec<_> = Folder::ALL.into_iter().filter(|f| !f.is_read()).collect();
        assert_eq!(unread, [Folder::Inbox, Folder::Urgent]);
        assert!(Folder::Inbox < Folder::Old && Folder::Cust5 < Folder::Urgent);
    }

    #[test]
    fn derived_ids_are_stable_and_distinct() {
        let id = derived_msg_id(1699543200, "default", "102", Folder::Old, 0);
        // Fixed forever: re-imports of old spools must find their earlier messages.
        assert_eq!(
            id,
            derived_msg_id(1699543200, "default", "102", Folder::Old, 0)
        );
        assert!(
            id.starts_with("1699543200-") && id.len() == "1699543200-".len() + 16,
            "{id}"
        );
        let others = [
            derived_msg_id(1699543201, "default", "102", Folder::Old, 0),
            derived_msg_id(1699543200, "other", "102", Folder::Old, 0),
            derived_msg_id(1699543200, "default", "101", Folder::Old, 0),
            derived_msg_id(1699543200, "default", "102", Folder::Inbox, 0),
            derived_msg_id(1699543200, "default", "102", Folder::Old, 1),
        ];
        assert!(others.iter().all(|other| *other != id));
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
