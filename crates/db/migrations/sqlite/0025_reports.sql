-- Call reports: a call's transcript, recorded once per call with its channel legend (the
-- legend is fixed when the transcript arrives, never guessed at read time), its text kept
-- on the call as well so the call and recording lists' `query` can match what was said;
-- voicemail search matches the message's transcript too (its FTS5 table is rebuilt with
-- the column). The reporting aggregates read a tenant's calls by start time through a
-- covering index.

CREATE TABLE call_transcripts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    call_id INTEGER NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    -- JSON: [{channel, role, party}] and [{channel, startMs, endMs, text, confidence, language}].
    channels TEXT NOT NULL,
    segments TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    CONSTRAINT call_transcripts_call UNIQUE (call_id)
);

ALTER TABLE calls ADD COLUMN transcript_text TEXT NOT NULL DEFAULT '';

DROP TRIGGER voicemail_messages_search_insert;
DROP TRIGGER voicemail_messages_search_delete;
DROP TRIGGER voicemail_messages_search_update;
DROP TABLE voicemail_messages_search;
CREATE VIRTUAL TABLE voicemail_messages_search USING fts5 (
    caller_id, msg_id, transcript,
    content = 'voicemail_messages', content_rowid = 'id', tokenize = 'trigram'
);
CREATE TRIGGER voicemail_messages_search_insert AFTER INSERT ON voicemail_messages BEGIN
    INSERT INTO voicemail_messages_search (rowid, caller_id, msg_id, transcript)
    VALUES (new.id, new.caller_id, new.msg_id, new.transcript);
END;
CREATE TRIGGER voicemail_messages_search_delete AFTER DELETE ON voicemail_messages BEGIN
    INSERT INTO voicemail_messages_search (voicemail_messages_search, rowid, caller_id, msg_id, transcript)
    VALUES ('delete', old.id, old.caller_id, old.msg_id, old.transcript);
END;
CREATE TRIGGER voicemail_messages_search_update AFTER UPDATE OF caller_id, msg_id, transcript ON voicemail_messages BEGIN
    INSERT INTO voicemail_messages_search (voicemail_messages_search, rowid, caller_id, msg_id, transcript)
    VALUES ('delete', old.id, old.caller_id, old.msg_id, old.transcript);
    INSERT INTO voicemail_messages_search (rowid, caller_id, msg_id, transcript)
    VALUES (new.id, new.caller_id, new.msg_id, new.transcript);
END;
INSERT INTO voicemail_messages_search (voicemail_messages_search) VALUES ('rebuild');

-- Everything the aggregates read, so a range of a tenant's calls is answered from the
-- index alone.
CREATE INDEX calls_tenant_report ON calls (tenant_id, start_unix, status, answer_unix, duration, billsec);
