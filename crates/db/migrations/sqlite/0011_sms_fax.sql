-- Text messages and faxes the engine reports (through /v2/ingest/…), kept so that their
-- SMS_* and FAX_* webhook events are written in the same transaction as a record.
CREATE TABLE sms_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    -- The carrier's or engine's id: what makes a repeated report change nothing.
    message_id TEXT NOT NULL,
    direction TEXT NOT NULL,
    from_number TEXT NOT NULL,
    to_number TEXT NOT NULL,
    body TEXT NOT NULL DEFAULT '',
    media_urls TEXT NOT NULL DEFAULT '[]',
    time TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    CONSTRAINT sms_messages_identity UNIQUE (tenant_id, message_id)
);
CREATE TABLE faxes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    fax_id TEXT NOT NULL,
    direction TEXT NOT NULL,
    from_number TEXT NOT NULL,
    to_number TEXT NOT NULL,
    pages INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT '',
    time TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    CONSTRAINT faxes_identity UNIQUE (tenant_id, fax_id)
);
