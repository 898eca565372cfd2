-- Voicemail messages and call records, with the fields Asterisk gives them
-- (app_voicemail's msgNNNN.txt, cdr_csv's rows); their audio lives in object storage.

CREATE TABLE voicemail_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    mailbox_context TEXT NOT NULL,
    mailbox_user TEXT NOT NULL,
    -- Asterisk's msg_id: with the mailbox, the identity that makes imports idempotent.
    msg_id TEXT NOT NULL,
    message_number INTEGER NOT NULL,
    -- The folder (INBOX, Old, Work, …); read is "not in INBOX", as in Asterisk.
    dir TEXT NOT NULL,
    is_read INTEGER NOT NULL DEFAULT 0,
    caller_id TEXT NOT NULL DEFAULT '',
    date TEXT NOT NULL DEFAULT '',
    date_unix INTEGER NOT NULL,
    duration INTEGER NOT NULL DEFAULT 0,
    ext_num TEXT NOT NULL DEFAULT '',
    transcript TEXT NOT NULL DEFAULT '',
    audio_key TEXT,
    audio_type TEXT,
    created_at INTEGER NOT NULL,
    CONSTRAINT voicemail_messages_identity UNIQUE (tenant_id, mailbox_context, mailbox_user, msg_id)
);
CREATE INDEX voicemail_messages_tenant_id ON voicemail_messages (tenant_id, id);
CREATE INDEX voicemail_messages_tenant_date ON voicemail_messages (tenant_id, date_unix, id);
CREATE INDEX voicemail_messages_tenant_mailbox ON voicemail_messages (tenant_id, mailbox_user, date_unix, id);
CREATE INDEX voicemail_messages_tenant_read ON voicemail_messages (tenant_id, is_read, date_unix, id);
CREATE INDEX voicemail_messages_tenant_dir ON voicemail_messages (tenant_id, dir, date_unix, id);

-- Calls: one row per call (Asterisk's uniqueid), its state pushed live by the engine or
-- imported from cdr_csv; a recording, when there is one, is an MP3 in object storage.
CREATE TABLE calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    unique_id TEXT NOT NULL,
    -- inbound, outbound or internal.
    direction TEXT NOT NULL,
    -- started, answered, ended (answered and hung up) or missed (ended unanswered).
    status TEXT NOT NULL,
    caller_id_num TEXT NOT NULL DEFAULT '',
    caller_id_name TEXT NOT NULL DEFAULT '',
    dialed_num TEXT NOT NULL DEFAULT '',
    -- Start as ISO 8601 UTC, and as Unix seconds for sorting and filtering.
    time TEXT NOT NULL,
    start_unix INTEGER NOT NULL,
    answer_unix INTEGER,
    end_unix INTEGER,
    duration INTEGER NOT NULL DEFAULT 0,
    billsec INTEGER NOT NULL DEFAULT 0,
    disposition TEXT NOT NULL DEFAULT '',
    channel TEXT NOT NULL DEFAULT '',
    dst_channel TEXT NOT NULL DEFAULT '',
    last_app TEXT NOT NULL DEFAULT '',
    account_code TEXT NOT NULL DEFAULT '',
    userfield TEXT NOT NULL DEFAULT '',
    recording_key TEXT,
    recording_bytes INTEGER,
    created_at INTEGER NOT NULL,
    CONSTRAINT calls_identity UNIQUE (tenant_id, unique_id)
);
CREATE INDEX calls_unique_id ON calls (unique_id);
CREATE INDEX calls_tenant_start ON calls (tenant_id, start_unix, id);
CREATE INDEX calls_recorded ON calls (tenant_id, start_unix, id) WHERE recording_key IS NOT NULL;
