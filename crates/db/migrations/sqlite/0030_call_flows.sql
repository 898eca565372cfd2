-- Call flows (issue 16, the rest): the transfers the engine reports on a call, the queue
-- a call passed through, and the conduits' health checks.
--
-- A transfer is recorded once: the same call, instant, kind and parties reported again
-- (an engine retry) is the same transfer. Its parties are numbers as the engine knows
-- them, with the tenant's extension when the engine names one by id (checked at ingest,
-- no foreign key: like call_parties, a call's history outlives the extension).
CREATE TABLE call_transfers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    call_id INTEGER NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    at_unix INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('blind', 'attended')),
    from_number TEXT NOT NULL,
    to_number TEXT NOT NULL,
    from_extension_id INTEGER,
    to_extension_id INTEGER,
    created_at INTEGER NOT NULL,
    CONSTRAINT call_transfers_identity UNIQUE (call_id, at_unix, kind, from_number, to_number)
);

-- The queue a call passed through: a fact of the call's history, kept when the queue is
-- deleted (no foreign key, as call_parties), checked to be the tenant's at ingest. The
-- reports filtered by queue read a queue's calls by start time from this index alone.
ALTER TABLE calls ADD COLUMN queue_id INTEGER;
CREATE INDEX calls_queue_report ON calls (queue_id, start_unix, tenant_id, status, answer_unix, duration, billsec)
    WHERE queue_id IS NOT NULL;

-- The last health check the engine reported for a conduit: whether it passed and what
-- it said (last_checked_at exists since 0026).
ALTER TABLE conduits ADD COLUMN last_check_ok INTEGER;
ALTER TABLE conduits ADD COLUMN last_check_detail TEXT NOT NULL DEFAULT '';
