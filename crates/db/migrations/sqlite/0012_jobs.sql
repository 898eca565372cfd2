-- Background work that must happen after a commit and may have to wait or be retried
-- (deleting an object from storage after its record is gone, the engine's work queue):
-- written in the same transaction as the change that asks for it, claimed by one
-- worker at a time under a lease, retried on a schedule until done or given up.
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    -- What to do, e.g. 'object.delete'; the worker that knows the kind runs it.
    kind TEXT NOT NULL,
    -- The job's arguments, as JSON text.
    payload TEXT NOT NULL,
    -- pending (due at run_at), failed (given up; kept with its last error).
    state TEXT NOT NULL DEFAULT 'pending',
    run_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    -- A worker's claim: no other worker takes the job before lease_until.
    lease_owner TEXT,
    lease_until INTEGER,
    created_at INTEGER NOT NULL
);
CREATE INDEX jobs_due ON jobs (run_at) WHERE state = 'pending';
