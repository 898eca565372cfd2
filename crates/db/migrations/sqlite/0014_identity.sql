-- Scope by identity: a voicemail message belongs to the extension its mailbox was at
-- ingest, and a call to the extensions the engine identified as its parties (by id, by
-- channel, or by the internal number dialled, resolved when the call was reported).
-- Branch admins and users see what belongs to their extensions by these ids, so
-- creating or renumbering an extension later moves nothing, and an outside caller id
-- is never an identity.

-- The extension whose mailbox a message was left in, resolved at ingest (NULL: no
-- extension had the mailbox's number then; only tenant-wide roles see it). Extension
-- ids are never reused, so an id left behind by a deleted extension names nothing.
ALTER TABLE voicemail_messages ADD COLUMN extension_id INTEGER;
UPDATE voicemail_messages SET extension_id = (
    SELECT e.id FROM extensions e
    WHERE e.tenant_id = voicemail_messages.tenant_id AND e.number = voicemail_messages.mailbox_user
);
CREATE INDEX voicemail_messages_extension ON voicemail_messages (extension_id, date_unix, id);

-- The counters gain the owning extension (0 for none), so that a branch admin's or a
-- user's totals are read from them with the same condition as the rows.
DROP TRIGGER voicemail_counts_insert;
DROP TRIGGER voicemail_counts_delete;
DROP TRIGGER voicemail_counts_update;
DROP TABLE voicemail_counts;
CREATE TABLE voicemail_counts (
    tenant_id INTEGER NOT NULL,
    mailbox_user TEXT NOT NULL,
    dir TEXT NOT NULL,
    extension_id INTEGER NOT NULL,
    is_read INTEGER NOT NULL,
    messages INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, mailbox_user, dir, extension_id)
);
CREATE TRIGGER voicemail_counts_insert AFTER INSERT ON voicemail_messages BEGIN
    INSERT INTO voicemail_counts (tenant_id, mailbox_user, dir, extension_id, is_read, messages)
    VALUES (new.tenant_id, new.mailbox_user, new.dir, COALESCE(new.extension_id, 0), new.is_read, 1)
    ON CONFLICT (tenant_id, mailbox_user, dir, extension_id) DO UPDATE SET messages = messages + 1;
END;
CREATE TRIGGER voicemail_counts_delete AFTER DELETE ON voicemail_messages BEGIN
    UPDATE voicemail_counts SET messages = messages - 1
    WHERE tenant_id = old.tenant_id AND mailbox_user = old.mailbox_user AND dir = old.dir
      AND extension_id = COALESCE(old.extension_id, 0);
END;
CREATE TRIGGER voicemail_counts_update AFTER UPDATE OF tenant_id, mailbox_user, dir, extension_id ON voicemail_messages BEGIN
    UPDATE voicemail_counts SET messages = messages - 1
    WHERE tenant_id = old.tenant_id AND mailbox_user = old.mailbox_user AND dir = old.dir
      AND extension_id = COALESCE(old.extension_id, 0);
    INSERT INTO voicemail_counts (tenant_id, mailbox_user, dir, extension_id, is_read, messages)
    VALUES (new.tenant_id, new.mailbox_user, new.dir, COALESCE(new.extension_id, 0), new.is_read, 1)
    ON CONFLICT (tenant_id, mailbox_user, dir, extension_id) DO UPDATE SET messages = messages + 1;
END;
INSERT INTO voicemail_counts (tenant_id, mailbox_user, dir, extension_id, is_read, messages)
SELECT tenant_id, mailbox_user, dir, COALESCE(extension_id, 0), MAX(is_read), COUNT(*)
FROM voicemail_messages WHERE true GROUP BY tenant_id, mailbox_user, dir, COALESCE(extension_id, 0);

-- The extensions taking part in a call: `caller` (the extension that placed it) and
-- `callee` (an extension it reached). Written when a report names them; never
-- rewritten from numbers later.
CREATE TABLE call_parties (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    call_id INTEGER NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
    extension_id INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('caller', 'callee')),
    CONSTRAINT call_parties_identity UNIQUE (call_id, extension_id, role)
);
CREATE INDEX call_parties_extension ON call_parties (extension_id, call_id);

-- Existing calls, by the numbers as they are now: the extension numbered as the number
-- dialled (inbound or internal calls) is the callee; the extension numbered as the
-- caller id of a call the engine marked outbound or internal (so placed inside the
-- PBX) is the caller. An inbound caller id is never taken for an extension.
INSERT INTO call_parties (call_id, extension_id, role)
SELECT c.id, e.id, 'callee' FROM calls c
JOIN extensions e ON e.tenant_id = c.tenant_id AND e.number = c.dialed_num
WHERE c.direction IN ('inbound', 'internal') AND c.dialed_num <> '';
INSERT INTO call_parties (call_id, extension_id, role)
SELECT c.id, e.id, 'caller' FROM calls c
JOIN extensions e ON e.tenant_id = c.tenant_id AND e.number = c.caller_id_num
WHERE c.direction IN ('outbound', 'internal') AND c.caller_id_num <> '';

-- MMS media uploads as records of their tenant: who uploaded what, when, how large,
-- where it is stored, and when retention removes it. Deleting one (or its expiry)
-- removes the object through the job table, in the same transaction.
CREATE TABLE mms_media (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    -- The uploader (user ids are never reused) and its e-mail address then.
    user_id INTEGER NOT NULL,
    uploaded_by TEXT NOT NULL,
    object_key TEXT NOT NULL CONSTRAINT mms_media_object_key UNIQUE,
    content_type TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX mms_media_tenant ON mms_media (tenant_id, id);
CREATE INDEX mms_media_user ON mms_media (user_id, id);
CREATE INDEX mms_media_expires ON mms_media (expires_at);

-- Bytes of MMS media a tenant holds, reserved by a conditional update in the upload's
-- transaction (so concurrent uploads cannot together overshoot the quota) and released
-- when an upload is deleted or expires. quota_bytes NULL: the configured default.
CREATE TABLE mms_usage (
    tenant_id INTEGER PRIMARY KEY REFERENCES tenants (id),
    bytes INTEGER NOT NULL DEFAULT 0,
    quota_bytes INTEGER
);
