-- Large tenants (a million voicemail messages, a hundred thousand numbers): every sort
-- of the lists is served from an index under the tenant, each filter with the id order
-- and the date order, and free-text search from trigram indexes (pg_trgm), which serve
-- the lists' case-insensitive substring match `lower(column) LIKE '%…%'`.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX voicemail_messages_tenant_duration ON voicemail_messages (tenant_id, duration, id);
CREATE INDEX voicemail_messages_tenant_caller ON voicemail_messages (tenant_id, caller_id, id);
CREATE INDEX voicemail_messages_tenant_number ON voicemail_messages (tenant_id, message_number, id);
CREATE INDEX voicemail_messages_tenant_mailbox_id ON voicemail_messages (tenant_id, mailbox_user, id);
CREATE INDEX voicemail_messages_tenant_read_id ON voicemail_messages (tenant_id, is_read, id);
CREATE INDEX voicemail_messages_tenant_dir_id ON voicemail_messages (tenant_id, dir, id);
CREATE INDEX voicemail_messages_caller_trgm ON voicemail_messages USING gin (lower(caller_id) gin_trgm_ops);
CREATE INDEX voicemail_messages_msg_id_trgm ON voicemail_messages USING gin (lower(msg_id) gin_trgm_ops);

CREATE INDEX phone_numbers_tenant_comment ON phone_numbers (tenant_id, di_comment_name, id);
CREATE INDEX phone_numbers_tenant_cnam ON phone_numbers (tenant_id, registered_cnam, id);
CREATE INDEX phone_numbers_number_trgm ON phone_numbers USING gin (lower(number) gin_trgm_ops);
CREATE INDEX phone_numbers_comment_trgm ON phone_numbers USING gin (lower(di_comment_name) gin_trgm_ops);
CREATE INDEX phone_numbers_cnam_trgm ON phone_numbers USING gin (lower(registered_cnam) gin_trgm_ops);

-- Message counts per tenant, mailbox and folder, kept by a trigger in the writing
-- transaction: a list's totalRecords and stats read a few hundred counters instead of
-- counting a million rows (searches still count their matches).
CREATE TABLE voicemail_counts (
    tenant_id BIGINT NOT NULL,
    mailbox_user TEXT NOT NULL,
    dir TEXT NOT NULL,
    is_read BIGINT NOT NULL,
    messages BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, mailbox_user, dir)
);
CREATE FUNCTION voicemail_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE voicemail_counts SET messages = messages - 1
        WHERE tenant_id = OLD.tenant_id AND mailbox_user = OLD.mailbox_user AND dir = OLD.dir;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO voicemail_counts (tenant_id, mailbox_user, dir, is_read, messages)
        VALUES (NEW.tenant_id, NEW.mailbox_user, NEW.dir, NEW.is_read, 1)
        ON CONFLICT (tenant_id, mailbox_user, dir)
        DO UPDATE SET messages = voicemail_counts.messages + 1;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER voicemail_counts_track
    AFTER INSERT OR DELETE OR UPDATE OF tenant_id, mailbox_user, dir ON voicemail_messages
    FOR EACH ROW EXECUTE FUNCTION voicemail_counts_track();
INSERT INTO voicemail_counts (tenant_id, mailbox_user, dir, is_read, messages)
SELECT tenant_id, mailbox_user, dir, MAX(is_read), COUNT(*)
FROM voicemail_messages GROUP BY tenant_id, mailbox_user, dir;
