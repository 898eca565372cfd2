-- Calls at ten million a tenant (docs/scaling.md): a list's totalRecords from counters kept
-- in the writing transaction instead of a COUNT(*) over the tenant's history, substring
-- search served by trigram indexes instead of a scan, and an index under the tenant for
-- every sort the calls and call-recordings lists accept.

-- Calls per tenant, direction and whether recorded, kept by a trigger. Each key is spread
-- over 16 slots (the call's id modulo 16), so concurrent ingests of one tenant rarely wait
-- for one another's counter row; a list sums at most 96 rows a tenant.
CREATE TABLE call_counts (
    tenant_id BIGINT NOT NULL,
    direction TEXT NOT NULL,
    recorded BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    calls BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, direction, recorded, slot)
);
CREATE FUNCTION call_counts_add(t BIGINT, d TEXT, r BIGINT, s BIGINT, n BIGINT)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO call_counts (tenant_id, direction, recorded, slot, calls)
    VALUES (t, d, r, s, n)
    ON CONFLICT (tenant_id, direction, recorded, slot)
    DO UPDATE SET calls = call_counts.calls + EXCLUDED.calls;
$$;
CREATE FUNCTION call_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_recorded BIGINT;
    new_recorded BIGINT;
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM call_counts_add(NEW.tenant_id, NEW.direction,
            (NEW.recording_key IS NOT NULL)::int, NEW.id % 16, 1);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM call_counts_add(OLD.tenant_id, OLD.direction,
            (OLD.recording_key IS NOT NULL)::int, OLD.id % 16, -1);
    ELSE
        old_recorded := (OLD.recording_key IS NOT NULL)::int;
        new_recorded := (NEW.recording_key IS NOT NULL)::int;
        -- The two counters are touched in key order, whichever way the call moves, so two
        -- transactions moving calls in opposite directions (a recording attached, another
        -- deleted) cannot deadlock on them.
        IF (OLD.tenant_id, OLD.direction, old_recorded) < (NEW.tenant_id, NEW.direction, new_recorded) THEN
            PERFORM call_counts_add(OLD.tenant_id, OLD.direction, old_recorded, OLD.id % 16, -1);
            PERFORM call_counts_add(NEW.tenant_id, NEW.direction, new_recorded, NEW.id % 16, 1);
        ELSE
            PERFORM call_counts_add(NEW.tenant_id, NEW.direction, new_recorded, NEW.id % 16, 1);
            PERFORM call_counts_add(OLD.tenant_id, OLD.direction, old_recorded, OLD.id % 16, -1);
        END IF;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER call_counts_insert_delete
    AFTER INSERT OR DELETE ON calls
    FOR EACH ROW EXECUTE FUNCTION call_counts_track();
-- Only a real change of a counted column moves a call between counters: every report of
-- a call rewrites its direction with the same value.
CREATE TRIGGER call_counts_update
    AFTER UPDATE OF tenant_id, direction, recording_key ON calls
    FOR EACH ROW
    WHEN (OLD.tenant_id IS DISTINCT FROM NEW.tenant_id
        OR OLD.direction IS DISTINCT FROM NEW.direction
        OR (OLD.recording_key IS NULL) <> (NEW.recording_key IS NULL))
    EXECUTE FUNCTION call_counts_track();
INSERT INTO call_counts (tenant_id, direction, recorded, slot, calls)
SELECT tenant_id, direction, (recording_key IS NOT NULL)::int, id % 16, COUNT(*)
FROM calls GROUP BY 1, 2, 3, 4;

-- Substring search (`lower(column) LIKE '%…%'`) through pg_trgm, one index a searched
-- column (transcript_text has its own since 0025).
CREATE INDEX calls_caller_num_trgm ON calls USING gin (lower(caller_id_num) gin_trgm_ops);
CREATE INDEX calls_caller_name_trgm ON calls USING gin (lower(caller_id_name) gin_trgm_ops);
CREATE INDEX calls_dialed_trgm ON calls USING gin (lower(dialed_num) gin_trgm_ops);
CREATE INDEX calls_unique_id_trgm ON calls USING gin (lower(unique_id) gin_trgm_ops);

-- Every sort under the tenant, ties by id (`time` is calls_tenant_start).
CREATE INDEX calls_tenant_id ON calls (tenant_id, id);
CREATE INDEX calls_tenant_duration ON calls (tenant_id, duration, id);
CREATE INDEX calls_tenant_caller_num ON calls (tenant_id, caller_id_num, id);
CREATE INDEX calls_tenant_dialed ON calls (tenant_id, dialed_num, id);
CREATE INDEX calls_tenant_unique_id ON calls (tenant_id, unique_id, id);
