-- Faxes sent here (`POST /v2/admin/faxes`): their document in object storage, their
-- status (queued, sending, sent, failed) moved by the engine work queue; the attempts
-- are the results of their engine job (engine_job_results).
ALTER TABLE faxes ADD COLUMN document_key TEXT;
ALTER TABLE faxes ADD COLUMN document_type TEXT;
ALTER TABLE faxes ADD COLUMN document_bytes BIGINT;
CREATE INDEX faxes_tenant_time ON faxes (tenant_id, time);
-- A tenant's automatic retry of failed faxes: how many attempts in all, how long between
-- them, and which result codes are worth another (a JSON array; empty: every code).
CREATE TABLE fax_retry_policies (
    tenant_id BIGINT PRIMARY KEY REFERENCES tenants (id),
    max_attempts BIGINT NOT NULL,
    delay_seconds BIGINT NOT NULL,
    retry_codes TEXT NOT NULL DEFAULT '[]',
    updated_at BIGINT NOT NULL
);
