-- The webhook outbox: events written in the same transaction as the records they
-- describe, one delivery per subscribed webhook, every attempt kept.

ALTER TABLE webhooks ADD COLUMN disabled_at INTEGER;
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;

CREATE TABLE webhook_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    -- One of the ten event types of CONTRACT §9.
    type TEXT NOT NULL,
    -- The JSON event as delivered: {"type", "timestamp", "tenantId", "data"}.
    payload TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX webhook_events_tenant ON webhook_events (tenant_id, id);

CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id INTEGER NOT NULL REFERENCES webhook_events (id),
    -- The webhook-id header: the same on every retry, so receivers can deduplicate.
    message_id TEXT NOT NULL CONSTRAINT webhook_deliveries_message_id UNIQUE,
    -- pending (due at next_attempt_at), delivered, failed (retries exhausted or the
    -- webhook disabled).
    state TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    -- A worker's claim: no other worker takes the delivery before lease_until.
    lease_owner TEXT,
    lease_until INTEGER,
    created_at INTEGER NOT NULL,
    completed_at INTEGER
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

CREATE TABLE webhook_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    -- Unix milliseconds.
    attempted_at INTEGER NOT NULL,
    -- The HTTP status, null when no answer came (refused, timed out, blocked).
    status_code INTEGER,
    latency_ms INTEGER NOT NULL,
    -- The first bytes of the answer, or what went wrong.
    response_excerpt TEXT NOT NULL DEFAULT '',
    error TEXT
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);
CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, id);
