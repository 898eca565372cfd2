-- Conduits: a tenant's external connections (SIP trunks, carrier connections, integration
-- endpoints such as a pharmacy system or a CRM). Credentials are sealed bound to their row
-- (db/src/seal.rs), like webhook credentials, and never read back into an answer. A phone
-- number may name the conduit it is routed through (numbersCount).

CREATE TABLE conduits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    direction TEXT NOT NULL,
    status TEXT NOT NULL,
    address TEXT NOT NULL DEFAULT '',
    username_sealed TEXT,
    secret_sealed TEXT,
    last_checked_at INTEGER,
    created_at INTEGER NOT NULL
);
CREATE INDEX conduits_tenant_id ON conduits (tenant_id, id);
CREATE INDEX conduits_tenant_kind ON conduits (tenant_id, kind, id);

ALTER TABLE phone_numbers ADD COLUMN conduit_id INTEGER REFERENCES conduits (id) ON DELETE SET NULL;
CREATE INDEX phone_numbers_conduit_id ON phone_numbers (conduit_id);
