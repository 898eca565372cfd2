-- Large tenants (a million voicemail messages, a hundred thousand numbers): every sort
-- of the lists is served from an index under the tenant, each filter with the id order
-- and the date order. Free-text search uses FTS5 tables with the trigram tokenizer
-- (SQLite's equivalent of pg_trgm), kept in step with their tables by triggers; the
-- lists match through them (see Db::substring_search).

CREATE INDEX voicemail_messages_tenant_duration ON voicemail_messages (tenant_id, duration, id);
CREATE INDEX voicemail_messages_tenant_caller ON voicemail_messages (tenant_id, caller_id, id);
CREATE INDEX voicemail_messages_tenant_number ON voicemail_messages (tenant_id, message_number, id);
CREATE INDEX voicemail_messages_tenant_mailbox_id ON voicemail_messages (tenant_id, mailbox_user, id);
CREATE INDEX voicemail_messages_tenant_read_id ON voicemail_messages (tenant_id, is_read, id);
CREATE INDEX voicemail_messages_tenant_dir_id ON voicemail_messages (tenant_id, dir, id);

CREATE INDEX phone_numbers_tenant_comment ON phone_numbers (tenant_id, di_comment_name, id);
CREATE INDEX phone_numbers_tenant_cnam ON phone_numbers (tenant_id, registered_cnam, id);

CREATE VIRTUAL TABLE voicemail_messages_search USING fts5 (
    caller_id, msg_id,
    content = 'voicemail_messages', content_rowid = 'id', tokenize = 'trigram'
);
CREATE TRIGGER voicemail_messages_search_insert AFTER INSERT ON voicemail_messages BEGIN
    INSERT INTO voicemail_messages_search (rowid, caller_id, msg_id)
    VALUES (new.id, new.caller_id, new.msg_id);
END;
CREATE TRIGGER voicemail_messages_search_delete AFTER DELETE ON voicemail_messages BEGIN
    INSERT INTO voicemail_messages_search (voicemail_messages_search, rowid, caller_id, msg_id)
    VALUES ('delete', old.id, old.caller_id, old.msg_id);
END;
CREATE TRIGGER voicemail_messages_search_update AFTER UPDATE OF caller_id, msg_id ON voicemail_messages BEGIN
    INSERT INTO voicemail_messages_search (voicemail_messages_search, rowid, caller_id, msg_id)
    VALUES ('delete', old.id, old.caller_id, old.msg_id);
    INSERT INTO voicemail_messages_search (rowid, caller_id, msg_id)
    VALUES (new.id, new.caller_id, new.msg_id);
END;

CREATE VIRTUAL TABLE phone_numbers_search USING fts5 (
    number, di_comment_name, registered_cnam,
    content = 'phone_numbers', content_rowid = 'id', tokenize = 'trigram'
);
CREATE TRIGGER phone_numbers_search_insert AFTER INSERT ON phone_numbers BEGIN
    INSERT INTO phone_numbers_search (rowid, number, di_comment_name, registered_cnam)
    VALUES (new.id, new.number, new.di_comment_name, new.registered_cnam);
END;
CREATE TRIGGER phone_numbers_search_delete AFTER DELETE ON phone_numbers BEGIN
    INSERT INTO phone_numbers_search (phone_numbers_search, rowid, number, di_comment_name, registered_cnam)
    VALUES ('delete', old.id, old.number, old.di_comment_name, old.registered_cnam);
END;
CREATE TRIGGER phone_numbers_search_update AFTER UPDATE OF number, di_comment_name, registered_cnam ON phone_numbers BEGIN
    INSERT INTO phone_numbers_search (phone_numbers_search, rowid, number, di_comment_name, registered_cnam)
    VALUES ('delete', old.id, old.number, old.di_comment_name, old.registered_cnam);
    INSERT INTO phone_numbers_search (rowid, number, di_comment_name, registered_cnam)
    VALUES (new.id, new.number, new.di_comment_name, new.registered_cnam);
END;
-- Numbers provisioned before this migration.
INSERT INTO phone_numbers_search (phone_numbers_search) VALUES ('rebuild');
INSERT INTO voicemail_messages_search (voicemail_messages_search) VALUES ('rebuild');

-- Message counts per tenant, mailbox and folder, kept by triggers in the writing
-- transaction: a list's totalRecords and stats read a few hundred counters instead of
-- counting a million rows (searches still count their matches).
CREATE TABLE voicemail_counts (
    tenant_id INTEGER NOT NULL,
    mailbox_user TEXT NOT NULL,
    dir TEXT NOT NULL,
    is_read INTEGER NOT NULL,
    messages INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, mailbox_user, dir)
);
CREATE TRIGGER voicemail_counts_insert AFTER INSERT ON voicemail_messages BEGIN
    INSERT INTO voicemail_counts (tenant_id, mailbox_user, dir, is_read, messages)
    VALUES (new.tenant_id, new.mailbox_user, new.dir, new.is_read, 1)
    ON CONFLICT (tenant_id, mailbox_user, dir) DO UPDATE SET messages = messages + 1;
END;
CREATE TRIGGER voicemail_counts_delete AFTER DELETE ON voicemail_messages BEGIN
    UPDATE voicemail_counts SET messages = messages - 1
    WHERE tenant_id = old.tenant_id AND mailbox_user = old.mailbox_user AND dir = old.dir;
END;
CREATE TRIGGER voicemail_counts_update AFTER UPDATE OF tenant_id, mailbox_user, dir ON voicemail_messages BEGIN
    UPDATE voicemail_counts SET messages = messages - 1
    WHERE tenant_id = old.tenant_id AND mailbox_user = old.mailbox_user AND dir = old.dir;
    INSERT INTO voicemail_counts (tenant_id, mailbox_user, dir, is_read, messages)
    VALUES (new.tenant_id, new.mailbox_user, new.dir, new.is_read, 1)
    ON CONFLICT (tenant_id, mailbox_user, dir) DO UPDATE SET messages = messages + 1;
END;
INSERT INTO voicemail_counts (tenant_id, mailbox_user, dir, is_read, messages)
SELECT tenant_id, mailbox_user, dir, MAX(is_read), COUNT(*)
FROM voicemail_messages WHERE true GROUP BY tenant_id, mailbox_user, dir;
