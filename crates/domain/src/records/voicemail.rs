//! Voicemail messages, with the fields Asterisk's `app_voicemail` gives them: read by
//! administrators (a user, its own mailbox), marked read or filed, deleted.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::ids::TenantId;
use crate::list::{FilterDoc, FilterKind, ListSpec, SearchIndex, SortField};
use crate::validation::{
    Bool, FLAG, FromBody, FromQuery, ID, Location, ObjectReader, OneOf, Problems, QueryReader, int,
    text,
};

/// The folders of an Asterisk mailbox.
pub const FOLDERS: &[&str] = &[
    "INBOX", "Old", "Work", "Family", "Friends", "Urgent", "Cust1", "Cust2", "Cust3", "Cust4",
    "Cust5",
];

/// The folders that hold unread messages; a message is read once filed elsewhere, as in
/// Asterisk (listening moves a message from INBOX to Old).
pub const UNREAD_FOLDERS: &[&str] = &["INBOX", "Urgent"];

/// Whether a message in `dir` counts as read.
pub fn is_read_folder(dir: &str) -> bool {
    !UNREAD_FOLDERS.contains(&dir)
}

/// A folder name.
pub const FOLDER: OneOf = OneOf(FOLDERS);

/// A voicemail message, as the spec.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoicemailMessage {
    /// The message's id.
    pub id: i64,
    /// Its number within its folder (Asterisk's `msgNNNN`).
    pub message_number: i64,
    /// When it was left, Unix seconds (`origtime`).
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

/// The body of `PATCH /v2/admin/voicemail-messages/{id}`, resolved to the folder the
/// message ends up in: `read` alone files it (`Old`) or back (`INBOX`); `dir` alone
/// moves it and sets `read` from the folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VoicemailChange {
    /// Mark read (`true`) or unread.
    Read(bool),
    /// Move to a folder.
    Dir(String),
}

/// The parsed PATCH body: the changes asked for, in order.
#[derive(Clone, Debug)]
pub struct UpdateVoicemail(pub Vec<VoicemailChange>);

impl UpdateVoicemail {
    /// The folder a message in `current` ends up in.
    pub fn folder_after(&self, current: &str) -> String {
        let mut dir = current.to_owned();
        for change in &self.0 {
            match change {
                VoicemailChange::Dir(d) => dir = d.clone(),
                VoicemailChange::Read(true) if !is_read_folder(&dir) => dir = "Old".into(),
                VoicemailChange::Read(false) if is_read_folder(&dir) => dir = "INBOX".into(),
                VoicemailChange::Read(_) => {}
            }
        }
        dir
    }
}

impl FromBody for UpdateVoicemail {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems)
            .map(|mut r| (r.optional("dir", &FOLDER), r.optional("read", &Bool)));
        if let Some((Ok(Some(dir)), Ok(Some(read)))) = &fields
            && is_read_folder(dir) != *read
        {
            problems.add(
                Location::Body,
                "read",
                format!("must be {} for a message filed in {dir}", !read),
            );
        }
        problems.finish(|| {
            let (dir, read) = fields?;
            let mut changes = Vec::new();
            if let Some(read) = read.ok()? {
                changes.push(VoicemailChange::Read(read));
            }
            if let Some(dir) = dir.ok()? {
                changes.push(VoicemailChange::Dir(dir));
            }
            Some(UpdateVoicemail(changes))
        })
    }
}

/// The voicemail PATCH body, for the API document.
#[derive(Clone, Debug, ToSchema)]
pub struct UpdateVoicemailBody {
    /// `true` files an unread message in `Old`; `false` moves a read one back to `INBOX`.
    #[schema(nullable = false)]
    pub read: Option<bool>,
    /// The folder to move the message to; `read` follows from it.
    #[schema(
        nullable = false,
        pattern = "^(INBOX|Old|Work|Family|Friends|Urgent|Cust[1-5])$"
    )]
    pub dir: Option<String>,
}

documented_as!(UpdateVoicemailBody => UpdateVoicemail);

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
}

/// The `message` part of `POST /v2/ingest/voicemail-messages`: the fields of Asterisk's
/// `msgNNNN.txt`.
#[derive(Clone, Debug)]
pub struct IngestVoicemail(pub NewVoicemail);

impl FromBody for IngestVoicemail {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let short = text(0, 255);
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.required("tenantId", &ID),
                r.optional("mailboxContext", &text(1, 80)),
                r.required("mailboxUser", &text(1, 80)),
                r.required("msgId", &text(1, 255)),
                r.optional("messageNumber", &int(0, 9999)),
                r.optional("dir", &FOLDER),
                r.optional("callerId", &short),
                r.optional("date", &short),
                r.required("dateUnix", &int(0, i64::from(u32::MAX))),
                r.optional("duration", &int(0, 86_400)),
                r.optional("extNum", &text(0, 80)),
                r.optional("transcript", &text(0, 20_000)),
            )
        });
        problems.finish(|| {
            let (
                tenant,
                context,
                mailbox,
                msg_id,
                number,
                dir,
                caller,
                date,
                unix,
                duration,
                ext,
                transcript,
            ) = fields?;
            let date_unix = unix?;
            Some(IngestVoicemail(NewVoicemail {
                tenant: TenantId(tenant?),
                mailbox_context: context.ok()?.unwrap_or_else(|| "default".into()),
                mailbox_user: mailbox?,
                msg_id: msg_id?,
                message_number: number.ok()?.unwrap_or(0),
                dir: dir.ok()?.unwrap_or_else(|| "INBOX".into()),
                caller_id: caller.ok()?.unwrap_or_default(),
                date: date.ok()?.unwrap_or_else(|| {
                    chrono::DateTime::from_timestamp(date_unix, 0)
                        .map(|t| t.to_rfc2822())
                        .unwrap_or_default()
                }),
                date_unix,
                duration: duration.ok()?.unwrap_or(0),
                ext_num: ext.ok()?.unwrap_or_default(),
                transcript: transcript.ok()?.unwrap_or_default(),
                audio: None,
            }))
        })
    }
}

/// The voicemail-ingest `message` part, for the API document.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct IngestVoicemailBody {
    /// The tenant whose mailbox it is.
    #[schema(minimum = 1)]
    pub tenant_id: i64,
    /// Voicemail context (default `default`).
    #[schema(nullable = false, min_length = 1, max_length = 80)]
    pub mailbox_context: Option<String>,
    /// Mailbox number.
    #[schema(min_length = 1, max_length = 80)]
    pub mailbox_user: String,
    /// Asterisk's msg_id; a second report with the same one changes nothing.
    #[schema(min_length = 1, max_length = 255)]
    pub msg_id: String,
    /// Number within its folder.
    #[schema(nullable = false, minimum = 0, maximum = 9999)]
    pub message_number: Option<i64>,
    /// Folder (default INBOX).
    #[schema(
        nullable = false,
        pattern = "^(INBOX|Old|Work|Family|Friends|Urgent|Cust[1-5])$"
    )]
    pub dir: Option<String>,
    /// Caller id.
    #[schema(nullable = false, max_length = 255)]
    pub caller_id: Option<String>,
    /// Date as Asterisk writes it (`origdate`).
    #[schema(nullable = false, max_length = 255)]
    pub date: Option<String>,
    /// Date, Unix seconds (`origtime`).
    #[schema(minimum = 0, maximum = 4294967295i64)]
    pub date_unix: i64,
    /// Seconds.
    #[schema(nullable = false, minimum = 0, maximum = 86400)]
    pub duration: Option<i64>,
    /// Dialled extension.
    #[schema(nullable = false, max_length = 80)]
    pub ext_num: Option<String>,
    /// Transcription.
    #[schema(nullable = false, max_length = 20000)]
    pub transcript: Option<String>,
}

documented_as!(IngestVoicemailBody => IngestVoicemail);

/// Filters of the voicemail list (CONTRACT §6).
#[derive(Clone, Debug, Default)]
pub struct VoicemailFilter {
    /// Only this tenant's messages.
    pub tenant_id: Option<TenantId>,
    /// Only this mailbox's messages.
    pub mailbox: Option<String>,
    /// 1 read, 0 unread.
    pub read: Option<i64>,
    /// Only this folder.
    pub dir: Option<String>,
    /// Add `stats` to the answer.
    pub stats: bool,
}

impl FromQuery for VoicemailFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mut q = QueryReader::new(params, &mut problems);
        let tenant_id = q.optional("tenantId", &ID).map(TenantId);
        let mailbox = q.optional("mailbox", &text(1, 80));
        let read = q.optional("read", &FLAG);
        let dir = q.optional("dir", &FOLDER);
        let stats = q.optional("stats", &FLAG) == Some(1);
        problems.finish(|| {
            Some(VoicemailFilter {
                tenant_id,
                mailbox,
                read,
                dir,
                stats,
            })
        })
    }
}

/// Sorting and search of the voicemail list: `query` matches the caller id and the
/// message id (Asterisk's `msg_id`; a number matches the record's id too). Newest
/// first by default is the usual inbox order, so `dateUnix` leads the whitelist only
/// as a choice; the default sort stays `id` like every list.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "v.id",
        },
        SortField {
            name: "dateUnix",
            column: "v.date_unix",
        },
        SortField {
            name: "date",
            column: "v.date_unix",
        },
        SortField {
            name: "duration",
            column: "v.duration",
        },
        SortField {
            name: "callerId",
            column: "v.caller_id",
        },
        SortField {
            name: "mailboxUser",
            column: "v.mailbox_user",
        },
        SortField {
            name: "messageNumber",
            column: "v.message_number",
        },
        SortField {
            name: "dir",
            column: "v.dir",
        },
        SortField {
            name: "read",
            column: "v.is_read",
        },
    ],
    search_columns: &["v.caller_id", "v.msg_id"],
    search_index: Some(SearchIndex {
        table: "voicemail_messages_search",
        id_column: "v.id",
    }),
};

impl crate::list::ListFilter for VoicemailFilter {
    const SPEC: &'static ListSpec = &LIST;
    const FILTERS: &'static [FilterDoc] = &[
        FilterDoc {
            name: "tenantId",
            description: "Only this tenant's messages.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "mailbox",
            description: "Only this mailbox's messages (its number).",
            kind: FilterKind::Text(80),
        },
        FilterDoc {
            name: "read",
            description: "1 read messages, 0 unread.",
            kind: FilterKind::Int(0, 1),
        },
        FilterDoc {
            name: "dir",
            description: "Only messages in this folder.",
            kind: FilterKind::OneOf(FOLDERS),
        },
        FilterDoc {
            name: "stats",
            description: "1 adds `stats: {total, unread, read}` over the whole filter.",
            kind: FilterKind::Int(0, 1),
        },
    ];
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

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
