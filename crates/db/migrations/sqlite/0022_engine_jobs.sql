-- The one queue of outbound work the telephony engine claims and reports on (a fax to
-- send, a text to send, a campaign call to place): written in the transaction of the
-- record it works for, claimed under a lease (`POST /v2/engine/jobs/claim`), ended by a
-- result (`POST /v2/engine/jobs/{id}/result`) recorded with its webhook event.
CREATE TABLE engine_jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    -- What to do ('fax', 'sms', 'campaign-call', …); the kind's module handles results.
    kind TEXT NOT NULL,
    -- The record the job works for (a fax, a text, a campaign record), when there is one.
    subject_id INTEGER,
    -- What the engine needs to do it, as JSON text.
    payload TEXT NOT NULL,
    -- pending (due at due_at), done, failed (given up), cancelled (no longer wanted).
    state TEXT NOT NULL DEFAULT 'pending',
    due_at INTEGER NOT NULL,
    -- Claims made: a claim is an attempt, and its number identifies the attempt's result.
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until INTEGER,
    -- The last result's outcome.
    outcome TEXT,
    created_at INTEGER NOT NULL,
    finished_at INTEGER
);
-- Claiming reads only pending rows of the kinds asked for, oldest due first.
CREATE INDEX engine_jobs_due ON engine_jobs (kind, due_at) WHERE state = 'pending';
CREATE INDEX engine_jobs_subject ON engine_jobs (kind, subject_id);
-- One result per attempt: a repeated report of an attempt finds its row and changes nothing.
CREATE TABLE engine_job_results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id INTEGER NOT NULL REFERENCES engine_jobs (id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    -- The reported facts (result code, pages, speed, reference, …) as JSON text.
    details TEXT NOT NULL DEFAULT '{}',
    started_at INTEGER,
    ended_at INTEGER,
    recorded_at INTEGER NOT NULL,
    CONSTRAINT engine_job_results_attempt UNIQUE (job_id, attempt)
);
-- Texts sent through the engine have a state; those the engine reports keep ''.
ALTER TABLE sms_messages ADD COLUMN status TEXT NOT NULL DEFAULT '';
