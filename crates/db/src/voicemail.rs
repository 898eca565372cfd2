//! Voicemail messages: listed with their stats, filed, deleted, and recorded once from
//! the engine or an import (with their VOICEMAIL_RECEIVED event, in one transaction).

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement};
use serde_json::json;
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{ExtensionId, TenantId, VoicemailMessageId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::voicemail::{
    NewVoicemail, UpdateVoicemail, VoicemailFilter, VoicemailMessage, VoicemailStats,
    is_read_folder,
};

use crate::backend::{Db, Tx};
use crate::crud::{self, Recorded};
use crate::error::Result;
use crate::events;
use crate::list::{self, Listing};
use crate::scope;

/// A voicemail message as stored.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct VoicemailRow {
    /// Id.
    pub id: VoicemailMessageId,
    /// Tenant.
    pub tenant_id: TenantId,
    /// Voicemail context.
    pub mailbox_context: String,
    /// Mailbox number.
    pub mailbox_user: String,
    /// Asterisk's msg_id.
    pub msg_id: String,
    /// Number within its folder.
    pub message_number: i64,
    /// Folder.
    pub dir: String,
    /// 1 when read.
    pub is_read: i64,
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
    /// Object key of the audio.
    pub audio_key: Option<String>,
    /// Content type of the audio.
    pub audio_type: Option<String>,
    /// Object key of the audio as the engine wrote it, when `audio_key` is a playable WAV
    /// made from it (GSM).
    pub original_key: Option<String>,
    /// Its content type.
    pub original_type: Option<String>,
    /// The extension whose mailbox it was left in, resolved when it was recorded.
    pub extension_id: Option<ExtensionId>,
}

impl VoicemailRow {
    /// The message as the API answers it, with the link to its audio the caller made.
    pub fn into_message(self, media_url: String) -> VoicemailMessage {
        VoicemailMessage {
            id: self.id,
            message_number: self.message_number,
            date_unix: self.date_unix,
            duration: self.duration,
            mailbox_user: self.mailbox_user,
            mailbox_context: self.mailbox_context,
            caller_id: self.caller_id,
            date: self.date,
            ext_num: self.ext_num,
            extension_id: self.extension_id,
            transcript: self.transcript,
            media_url,
            dir: self.dir,
            read: self.is_read == 1,
        }
    }
}

const COLUMNS: &[&str] = &[
    "id",
    "tenant_id",
    "mailbox_context",
    "mailbox_user",
    "msg_id",
    "message_number",
    "dir",
    "is_read",
    "caller_id",
    "date",
    "date_unix",
    "duration",
    "ext_num",
    "transcript",
    "audio_key",
    "audio_type",
    "original_key",
    "original_type",
    "extension_id",
];

/// The messages `scope` reaches that match `filter`, as conditions on the columns of
/// alias `v`: the messages themselves, or their counters (which share the columns).
fn conditions(scope: &Scope, filter: &VoicemailFilter) -> Condition {
    let mut all = Condition::all()
        .add(scope::tenants(scope, Expr::col(("v", "tenant_id"))))
        .add(scope::own_extension(
            scope,
            Expr::col(("v", "extension_id")),
        ));
    if let Some(tenant) = filter.tenant_id {
        all = all.add(Expr::col(("v", "tenant_id")).eq(tenant.get()));
    }
    if let Some(mailbox) = &filter.mailbox {
        all = all.add(Expr::col(("v", "mailbox_user")).eq(mailbox.as_str()));
    }
    if let Some(read) = filter.read {
        all = all.add(Expr::col(("v", "is_read")).eq(i64::from(read)));
    }
    if let Some(dir) = &filter.dir {
        all = all.add(Expr::col(("v", "dir")).eq(dir.as_str()));
    }
    all
}

fn select(condition: Condition) -> SelectStatement {
    let mut select = Query::select();
    select.from_as("voicemail_messages", "v");
    for column in COLUMNS {
        select.column(("v", *column));
    }
    select.cond_where(condition).take()
}

fn scoped(scope: &Scope) -> SelectStatement {
    select(conditions(scope, &VoicemailFilter::default()))
}

#[derive(switchboard_domain::declare::FromRow)]
struct Counts {
    total: i64,
    read: i64,
}

/// Counts of the messages matching `filter` and the search: from the counters the
/// database keeps per tenant, mailbox and folder when there is no search (so a page of a
/// million messages costs what a page of a thousand does), from the rows otherwise.
async fn counts(
    db: &Db,
    scope: &Scope,
    filter: &VoicemailFilter,
    query: &ListQuery,
) -> Result<Counts> {
    let counts = match list::search(db, VoicemailMessage::SPEC, query) {
        None => Query::select()
            .expr_as(
                Expr::cust("CAST(COALESCE(SUM(v.messages), 0) AS BIGINT)"),
                "total",
            )
            .expr_as(
                Expr::cust("CAST(COALESCE(SUM(v.messages * v.is_read), 0) AS BIGINT)"),
                "read",
            )
            .from_as("voicemail_counts", "v")
            .cond_where(conditions(scope, filter))
            .take(),
        Some(search) => Query::select()
            .expr_as(Expr::cust("COUNT(*)"), "total")
            .expr_as(
                Expr::cust("CAST(COALESCE(SUM(v.is_read), 0) AS BIGINT)"),
                "read",
            )
            .from_as("voicemail_messages", "v")
            .cond_where(conditions(scope, filter))
            .cond_where(search)
            .take(),
    };
    db.conn().fetch_one(&counts).await
}

/// Lists the messages the caller reaches, with their stats when the filter asks for
/// them (counted once for both the page's total and the stats).
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &VoicemailFilter,
    query: &ListQuery,
) -> Result<(Listing<VoicemailRow>, Option<VoicemailStats>)> {
    let counts = if query.paginated || filter.stats {
        Some(counts(db, scope, filter, query).await?)
    } else {
        None
    };
    let total = counts.as_ref().filter(|_| query.paginated).map(|c| c.total);
    let listing = list::run_counted(
        db,
        select(conditions(scope, filter)),
        VoicemailMessage::SPEC,
        query,
        total,
    )
    .await?;
    let stats = counts.filter(|_| filter.stats).map(|c| VoicemailStats {
        total: c.total,
        unread: c.total - c.read,
        read: c.read,
    });
    Ok((listing, stats))
}

/// One message.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: VoicemailMessageId) -> Result<VoicemailRow> {
    crud::get(db, scoped(scope), "v.id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it), without the link to its audio: it is signed for one reader and
/// expires.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<VoicemailMessage>> {
    let row: Option<VoicemailRow> = crud::find_on(tx, scoped(&Scope::Platform), "v.id", id).await?;
    Ok(row.map(|row| row.into_message(String::new())))
}

/// Files or marks a message as `update` says, answering it as it now is.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: VoicemailMessageId,
    update: &UpdateVoicemail,
) -> Result<VoicemailRow> {
    let mut tx = db.begin().await?;
    let mut visible = scoped(scope);
    visible.and_where(Expr::col(("v", "id")).eq(id.get()));
    let current: VoicemailRow = tx.fetch_one(&visible).await?;
    let dir = update.folder_after(&current.dir);
    let read = i64::from(is_read_folder(&dir));
    crud::update_in(
        &mut tx,
        "voicemail_messages",
        id.get(),
        vec![("dir", dir.into()), ("is_read", read.into())],
    )
    .await?;
    let row = tx.fetch_one(&visible).await?;
    tx.commit().await?;
    Ok(row)
}

/// Deletes a message, answering it as it was (its audio is the caller's to remove).
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: VoicemailMessageId) -> Result<VoicemailRow> {
    crud::delete_owning(
        db,
        scoped(scope),
        "v.id",
        "voicemail_messages",
        id.get(),
        |row: &VoicemailRow| {
            row.audio_key
                .as_deref()
                .into_iter()
                .chain(row.original_key.as_deref())
                .collect()
        },
    )
    .await
}

/// A message's identity: its tenant, context, mailbox and Asterisk msg_id.
fn identity(tenant: TenantId, context: &str, mailbox: &str, msg_id: &str) -> Condition {
    Condition::all()
        .add(Expr::col("tenant_id").eq(tenant.get()))
        .add(Expr::col("mailbox_context").eq(context))
        .add(Expr::col("mailbox_user").eq(mailbox))
        .add(Expr::col("msg_id").eq(msg_id))
}

/// Whether the message with this identity is already recorded.
#[boxed]
pub async fn exists(
    db: &Db,
    tenant: TenantId,
    context: &str,
    mailbox: &str,
    msg_id: &str,
) -> Result<bool> {
    let select = Query::select()
        .column("id")
        .from("voicemail_messages")
        .cond_where(identity(tenant, context, mailbox, msg_id))
        .take();
    let found: Option<(i64,)> = db.conn().fetch_optional(&select).await?;
    Ok(found.is_some())
}

/// The extension a message belongs to: the one the engine named, else the tenant's
/// extension numbered as the mailbox at this moment (none when no extension has that
/// number). Resolved once, when the message is recorded: a later renumbering or a new
/// extension with that number does not move it.
#[boxed]
pub async fn mailbox_owner(tx: &mut Tx, message: &NewVoicemail) -> Result<Option<i64>> {
    if let Some(extension) = message.extension {
        return Ok(Some(extension.get()));
    }
    crate::identity::extension_numbered(tx, message.tenant, &message.mailbox_user).await
}

/// Records `message` in `tx` unless a message with its identity (tenant, context,
/// mailbox, msg_id) exists, emitting VOICEMAIL_RECEIVED for a new one; recording twice
/// changes nothing.
#[boxed]
pub async fn record(tx: &mut Tx, message: NewVoicemail, now: i64) -> Result<Recorded> {
    let owner = mailbox_owner(tx, &message).await?;
    let (audio_key, audio_type) = message.audio.clone().unzip();
    let (original_key, original_type) = message.original_audio.clone().unzip();
    let read = i64::from(is_read_folder(&message.dir));
    let recorded = crud::insert_once(
        tx,
        "voicemail_messages",
        &["tenant_id", "mailbox_context", "mailbox_user", "msg_id"],
        vec![
            ("tenant_id", message.tenant.get().into()),
            ("mailbox_context", message.mailbox_context.into()),
            ("mailbox_user", message.mailbox_user.into()),
            ("msg_id", message.msg_id.into()),
            ("message_number", message.message_number.into()),
            ("dir", message.dir.into()),
            ("is_read", read.into()),
            ("caller_id", message.caller_id.into()),
            ("date", message.date.into()),
            ("date_unix", message.date_unix.into()),
            ("duration", message.duration.into()),
            ("ext_num", message.ext_num.into()),
            ("transcript", message.transcript.into()),
            ("audio_key", audio_key.clone().into()),
            ("audio_type", audio_type.into()),
            ("original_key", original_key.clone().into()),
            ("original_type", original_type.into()),
            ("extension_id", owner.into()),
            ("created_at", now.into()),
        ],
    )
    .await?;
    if !recorded.new {
        // A concurrent push recorded the message first, with its own audio: this one's
        // goes, with this transaction.
        for key in audio_key.iter().chain(original_key.iter()) {
            crate::jobs::delete_object(tx, key).await?;
        }
        return Ok(recorded);
    }
    let id = recorded.id;
    let mut inserted = scoped(&Scope::Platform);
    inserted.and_where(Expr::col(("v", "id")).eq(id));
    let row: VoicemailRow = tx.fetch_one(&inserted).await?;
    events::emit(
        tx,
        message.tenant,
        "VOICEMAIL_RECEIVED",
        event_data(&row),
        now,
    )
    .await?;
    Ok(Recorded { id, new: true })
}

/// What a VOICEMAIL_RECEIVED event carries: the message without a media URL (links
/// expire; receivers fetch the message through the API for a fresh one).
pub fn event_data(row: &VoicemailRow) -> serde_json::Value {
    json!({
        "id": row.id,
        "mailboxContext": row.mailbox_context,
        "mailboxUser": row.mailbox_user,
        "messageNumber": row.message_number,
        "msgId": row.msg_id,
        "callerId": row.caller_id,
        "date": row.date,
        "dateUnix": row.date_unix,
        "duration": row.duration,
        "extNum": row.ext_num,
        "dir": row.dir,
        "read": row.is_read == 1,
        "extensionId": row.extension_id,
    })
}
