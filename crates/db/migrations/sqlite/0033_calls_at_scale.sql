-- Calls at ten million a tenant (docs/scaling.md): a list's totalRecords from counters kept
-- in the writing transaction instead of a COUNT(*) over the tenant's history, substring
-- search through an FTS5 trigram table (SQLite's pg_trgm, as voicemail's) instead of a
-- scan, and an index under the tenant for every sort the calls and call-recordings lists
-- accept.

-- Calls per tenant, direction and whether recorded, kept by triggers; each key spread
-- over 16 slots (the call's id modulo 16) as on PostgreSQL, where it spares concurrent
-- ingests a shared counter row.
CREATE TABLE call_counts (
    tenant_id INTEGER NOT NULL,
    direction TEXT NOT NULL,
    recorded INTEGER NOT NULL,
    slot INTEGER NOT NULL,
    calls INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, direction, recorded, slot)
);
CREATE TRIGGER call_counts_insert AFTER INSERT ON calls BEGIN
    INSERT INTO call_counts (tenant_id, direction, recorded, slot, calls)
    VALUES (new.tenant_id, new.direction, new.recording_key IS NOT NULL, new.id % 16, 1)
    ON CONFLICT (tenant_id, direction, recorded, slot) DO UPDATE SET calls = calls + 1;
END;
CREATE TRIGGER call_counts_delete AFTER DELETE ON calls BEGIN
    UPDATE call_counts SET calls = calls - 1
    WHERE tenant_id = old.tenant_id AND direction = old.direction
      AND recorded = (old.recording_key IS NOT NULL) AND slot = old.id % 16;
END;
-- Only a real change of a counted column moves a call between counters: every report of
-- a call rewrites its direction with the same value.
CREATE TRIGGER call_counts_update AFTER UPDATE OF tenant_id, direction, recording_key ON calls
WHEN old.tenant_id IS NOT new.tenant_id OR old.direction IS NOT new.direction
  OR (old.recording_key IS NULL) <> (new.recording_key IS NULL)
BEGIN
    UPDATE call_counts SET calls = calls - 1
    WHERE tenant_id = old.tenant_id AND direction = old.direction
      AND recorded = (old.recording_key IS NOT NULL) AND slot = old.id % 16;
    INSERT INTO call_counts (tenant_id, direction, recorded, slot, calls)
    VALUES (new.tenant_id, new.direction, new.recording_key IS NOT NULL, new.id % 16, 1)
    ON CONFLICT (tenant_id, direction, recorded, slot) DO UPDATE SET calls = calls + 1;
END;
INSERT INTO call_counts (tenant_id, direction, recorded, slot, calls)
SELECT tenant_id, direction, recording_key IS NOT NULL, id % 16, COUNT(*)
FROM calls WHERE true GROUP BY 1, 2, 3, 4;

-- The searched columns of the calls and call-recordings lists, by trigrams.
CREATE VIRTUAL TABLE calls_search USING fts5 (
    caller_id_num, caller_id_name, dialed_num, unique_id, transcript_text,
    content = 'calls', content_rowid = 'id', tokenize = 'trigram'
);
CREATE TRIGGER calls_search_insert AFTER INSERT ON calls BEGIN
    INSERT INTO calls_search (rowid, caller_id_num, caller_id_name, dialed_num, unique_id, transcript_text)
    VALUES (new.id, new.caller_id_num, new.caller_id_name, new.dialed_num, new.unique_id, new.transcript_text);
END;
CREATE TRIGGER calls_search_delete AFTER DELETE ON calls BEGIN
    INSERT INTO calls_search (calls_search, rowid, caller_id_num, caller_id_name, dialed_num, unique_id, transcript_text)
    VALUES ('delete', old.id, old.caller_id_num, old.caller_id_name, old.dialed_num, old.unique_id, old.transcript_text);
END;
CREATE TRIGGER calls_search_update
AFTER UPDATE OF caller_id_num, caller_id_name, dialed_num, unique_id, transcript_text ON calls
WHEN old.caller_id_num IS NOT new.caller_id_num OR old.caller_id_name IS NOT new.caller_id_name
  OR old.dialed_num IS NOT new.dialed_num OR old.unique_id IS NOT new.unique_id
  OR old.transcript_text IS NOT new.transcript_text
BEGIN
    INSERT INTO calls_search (calls_search, rowid, caller_id_num, caller_id_name, dialed_num, unique_id, transcript_text)
    VALUES ('delete', old.id, old.caller_id_num, old.caller_id_name, old.dialed_num, old.unique_id, old.transcript_text);
    INSERT INTO calls_search (rowid, caller_id_num, caller_id_name, dialed_num, unique_id, transcript_text)
    VALUES (new.id, new.caller_id_num, new.caller_id_name, new.dialed_num, new.unique_id, new.transcript_text);
END;
INSERT INTO calls_search (calls_search) VALUES ('rebuild');

-- Every sort under the tenant, ties by id (`time` is calls_tenant_start).
CREATE INDEX calls_tenant_id ON calls (tenant_id, id);
CREATE INDEX calls_tenant_duration ON calls (tenant_id, duration, id);
CREATE INDEX calls_tenant_caller_num ON calls (tenant_id, caller_id_num, id);
CREATE INDEX calls_tenant_dialed ON calls (tenant_id, dialed_num, id);
CREATE INDEX calls_tenant_unique_id ON calls (tenant_id, unique_id, id);
