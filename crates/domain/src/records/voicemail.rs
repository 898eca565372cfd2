//! Voicemail messages, with the fields Asterisk's `app_voicemail` gives them: read by
//! administrators (a user, its own mailbox), marked read or filed, deleted.

use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;
use utoipa::openapi::schema::Object;

use crate::declare::{Body, Filter, Listed};
use crate::ids::{ExtensionId, TenantId, VoicemailMessageId};
use crate::validation::{Among, Bool, ID, Int, ObjectReader, Switch, Text, among, int, text};

crate::closed_set! {
    /// The folders of an Asterisk mailbox.
    pub enum VoicemailFolder {
        /// New messages.
        Inbox = "INBOX",
        /// Messages listened to.
        Old = "Old",
        /// The `Work` folder.
        Work = "Work",
        /// The `Family` folder.
        Family = "Family",
        /// The `Friends` folder.
        Friends = "Friends",
        /// New messages marked urgent.
        Urgent = "Urgent",
        /// Custom folder 1.
        Cust1 = "Cust1",
        /// Custom folder 2.
        Cust2 = "Cust2",
        /// Custom folder 3.
        Cust3 = "Cust3",
        /// Custom folder 4.
        Cust4 = "Cust4",
        /// Custom folder 5.
        Cust5 = "Cust5",
    }
}

/// The folders that hold unread messages; a message is read once filed elsewhere, as in
/// Asterisk (listening moves a message from INBOX to Old).
pub const UNREAD_FOLDERS: &[&str] = &[
    VoicemailFolder::Inbox.as_str(),
    VoicemailFolder::Urgent.as_str(),
];

/// Whether a message in `dir` counts as read.
pub fn is_read_folder(dir: &str) -> bool {
    !UNREAD_FOLDERS.contains(&dir)
}

/// A folder name.
pub const FOLDER: Among<VoicemailFolder> = among();

/// A voicemail message, as the spec.
// `query` matches the caller id and the message id (Asterisk's `msg_id`). Newest first is
// the usual inbox order, but the default sort stays `id` like every list.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, date_unix, duration, caller_id, mailbox_user, message_number, dir, read), filter = VoicemailFilter, table = "v", search("caller_id", "msg_id", "transcript"),
       search_index(table = "voicemail_messages_search", id = "v.id"))]
pub struct VoicemailMessage {
    /// The message's id.
    pub id: VoicemailMessageId,
    /// Its number within its folder (Asterisk's `msgNNNN`).
    pub message_number: i64,
    /// When it was left, Unix seconds (`origtime`).
    #[list(alias = "date")]
    pub date_unix: i64,
    /// Its length in seconds.
    pub duration: i64,
    /// The mailbox (Asterisk's mailbox number, usually the extension).
    pub mailbox_user: String,
    /// The mailbox's voicemail context.
    pub mailbox_context: String,
    /// Who called (`"Name" <number>` as Asterisk writes it).
    pub caller_id: String,
    /// When it was left, as Asterisk wrote it (`origdate`).
    pub date: String,
    /// The extension that was dialled.
    pub ext_num: String,
    /// The id of the extension whose mailbox it was left in, as resolved when it was
    /// recorded (a later renumbering does not move it); null when no extension had it.
    pub extension_id: Option<ExtensionId>,
    /// A transcription, empty when there is none.
    pub transcript: String,
    /// A short-lived signed URL of the audio (with `Range` support); empty when the
    /// message has no audio.
    #[serde(rename = "mediaURL")]
    #[schema(rename = "mediaURL")]
    pub media_url: String,
    /// The folder (INBOX, Old, Work, …).
    pub dir: String,
    /// Whether it was listened to (filed out of INBOX/Urgent).
    #[list(column = "is_read")]
    pub read: bool,
}

/// `stats` of the voicemail list (with `stats=1`): counts over the whole filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct VoicemailStats {
    /// Messages matching the filter.
    pub total: i64,
    /// Of them, unread.
    pub unread: i64,
    /// Of them, read.
    pub read: i64,
}

/// The body of `PATCH /v2/admin/voicemail-messages/{id}`: `read` alone files an unread
/// message in `Old` (or a read one back in `INBOX`); `dir` moves it, and `read` follows
/// from the folder (sent together, they must agree).
#[derive(Clone, Debug, Default, Body)]
#[body(check = UpdateVoicemail::check, schema = UpdateVoicemail::schema_rules,
       example = UpdateVoicemail::example_body)]
pub struct UpdateVoicemail {
    /// `true` files an unread message in `Old`; `false` moves a read one back to `INBOX`.
    #[field(rule = Bool)]
    pub read: Option<bool>,
    /// The folder to move the message to; `read` follows from it.
    #[field(rule = FOLDER)]
    pub dir: Option<VoicemailFolder>,
}

impl UpdateVoicemail {
    /// Filing a message in `Old`, read.
    fn example_body() -> serde_json::Value {
        json!({"dir": "Old", "read": true})
    }

    /// The folder a message in `current` ends up in.
    pub fn folder_after(&self, current: &str) -> String {
        match (&self.dir, self.read) {
            (Some(dir), _) => dir.as_str().to_owned(),
            (None, Some(true)) if !is_read_folder(current) => "Old".into(),
            (None, Some(false)) if is_read_folder(current) => "INBOX".into(),
            _ => current.to_owned(),
        }
    }

    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        match (&self.dir, self.read) {
            (Some(dir), Some(read)) if is_read_folder(dir.as_str()) != read => {
                r.problem(
                    "read",
                    format!("must be {} for a message filed in {dir}", !read),
                );
                false
            }
            _ => true,
        }
    }

    /// `read` must agree with `dir` when both are sent.
    fn schema_rules(object: &mut Object) {
        let read_folders: Vec<&str> = VoicemailFolder::ALL
            .iter()
            .map(|f| f.as_str())
            .filter(|f| is_read_folder(f))
            .collect();
        for (folders, read) in [(UNREAD_FOLDERS.to_vec(), false), (read_folders, true)] {
            crate::declare::rule(
                object,
                json!({"if": {"required": ["dir", "read"], "properties": {"dir": {"enum": folders}}},
                       "then": {"properties": {"read": {"const": read}}}}),
            );
        }
    }
}

/// A message as the engine or an import reports it.
#[derive(Clone, Debug)]
pub struct NewVoicemail {
    /// The tenant.
    pub tenant: TenantId,
    /// Voicemail context.
    pub mailbox_context: String,
    /// Mailbox number.
    pub mailbox_user: String,
    /// Asterisk's msg_id: with the mailbox, the message's identity.
    pub msg_id: String,
    /// Number within its folder.
    pub message_number: i64,
    /// Folder.
    pub dir: String,
    /// Caller id.
    pub caller_id: String,
    /// Date as Asterisk wrote it.
    pub date: String,
    /// Date, Unix seconds.
    pub date_unix: i64,
    /// Seconds.
    pub duration: i64,
    /// Dialled extension.
    pub ext_num: String,
    /// Transcription.
    pub transcript: String,
    /// Object key and content type of the stored audio.
    pub audio: Option<(String, String)>,
    /// Object key and content type of the audio as the engine wrote it, when `audio` is a
    /// playable WAV made from it (GSM voicemail).
    pub original_audio: Option<(String, String)>,
    /// The extension whose mailbox it is, when the engine names it by id (otherwise the
    /// extension numbered as the mailbox when it is recorded).
    pub extension: Option<ExtensionId>,
}

/// Mailbox names and contexts.
const MAILBOX: Text = text(1, 80);
/// Short texts of a message.
const SHORT: Text = text(0, 255);

/// The `message` part of `POST /v2/ingest/voicemail-messages`: the fields of Asterisk's
/// `msgNNNN.txt`.
#[derive(Clone, Debug, Body)]
pub struct IngestVoicemail {
    /// The tenant whose mailbox it is.
    #[field(rule = ID)]
    pub tenant_id: TenantId,
    /// Voicemail context (default `default`).
    #[field(rule = MAILBOX, default = "default".to_owned())]
    pub mailbox_context: String,
    /// Mailbox number.
    #[field(rule = MAILBOX)]
    pub mailbox_user: String,
    /// Asterisk's msg_id; a second report with the same one changes nothing.
    #[field(rule = text(1, 255))]
    pub msg_id: String,
    /// Number within its folder.
    #[field(rule = int(0, 9999), default = 0)]
    pub message_number: i64,
    /// Folder (default INBOX).
    #[field(rule = FOLDER, default = VoicemailFolder::Inbox)]
    pub dir: VoicemailFolder,
    /// Caller id.
    #[field(rule = SHORT, default = String::new())]
    pub caller_id: String,
    /// Date as Asterisk writes it (`origdate`); made from `dateUnix` when left out.
    #[field(rule = SHORT)]
    pub date: Option<String>,
    /// Date, Unix seconds (`origtime`).
    #[field(rule = UNIX_TIME)]
    pub date_unix: i64,
    /// Seconds.
    #[field(rule = int(0, 86_400), default = 0)]
    pub duration: i64,
    /// Dialled extension.
    #[field(rule = text(0, 80), default = String::new())]
    pub ext_num: String,
    /// Transcription.
    #[field(rule = text(0, 20_000), default = String::new())]
    pub transcript: String,
    /// The id of the tenant's extension whose mailbox this is, when the engine knows it;
    /// otherwise the extension numbered as `mailboxUser` when the message is recorded.
    /// Either way the message stays with that extension if it is renumbered later.
    #[field(rule = ID)]
    pub extension_id: Option<ExtensionId>,
}

/// A Unix time within 32 bits, as Asterisk writes `origtime`.
const UNIX_TIME: Int = int(0, u32::MAX as i64);

impl IngestVoicemail {
    /// The message this body reports (its audio, if any, is attached by the caller).
    pub fn into_new(self) -> NewVoicemail {
        let date = self.date.unwrap_or_else(|| {
            chrono::DateTime::from_timestamp(self.date_unix, 0)
                .map(|t| t.to_rfc2822())
                .unwrap_or_default()
        });
        NewVoicemail {
            tenant: self.tenant_id,
            mailbox_context: self.mailbox_context,
            mailbox_user: self.mailbox_user,
            msg_id: self.msg_id,
            message_number: self.message_number,
            dir: self.dir.as_str().to_owned(),
            caller_id: self.caller_id,
            date,
            date_unix: self.date_unix,
            duration: self.duration,
            ext_num: self.ext_num,
            transcript: self.transcript,
            audio: None,
            original_audio: None,
            extension: self.extension_id,
        }
    }
}

/// Filters of the voicemail list (interface §6).
#[derive(Clone, Debug, Default, Filter)]
pub struct VoicemailFilter {
    /// Only this tenant's messages.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Only this mailbox's messages (its number).
    #[field(rule = MAILBOX)]
    pub mailbox: Option<String>,
    /// 1 read messages, 0 unread.
    #[field(rule = Switch)]
    pub read: Option<bool>,
    /// Only messages in this folder.
    #[field(rule = FOLDER)]
    pub dir: Option<VoicemailFolder>,
    /// 1 adds `stats: {total, unread, read}` over the whole filter.
    #[field(rule = Switch)]
    pub stats: bool,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::validation::{FromBody, Problems};
    use serde_json::Value;

    fn update(body: Value) -> Result<UpdateVoicemail, Vec<String>> {
        UpdateVoicemail::from_body(&body).map_err(Problems::into_messages)
    }

    #[test]
    fn read_files_the_message_as_asterisk_does() {
        let read = update(json!({"read": true})).unwrap();
        assert_eq!(read.folder_after("INBOX"), "Old");
        assert_eq!(read.folder_after("Work"), "Work");
        let unread = update(json!({"read": false})).unwrap();
        assert_eq!(unread.folder_after("Old"), "INBOX");
        assert_eq!(unread.folder_after("Urgent"), "Urgent");
        let moved = update(json!({"dir": "Family"})).unwrap();
        assert_eq!(moved.folder_after("INBOX"), "Family");
        let both = update(json!({"dir": "INBOX", "read": false})).unwrap();
        assert_eq!(both.folder_after("Old"), "INBOX");
    }

    #[test]
    fn contradictions_and_unknown_folders_are_refused() {
        assert_eq!(
            update(json!({"dir": "INBOX", "read": true})).unwrap_err(),
            vec!["'body/read' must be false for a message filed in INBOX"]
        );
        assert_eq!(
            update(json!({"dir": "Trash", "read": "yes"}))
                .unwrap_err()
                .len(),
            2
        );
    }
}
