-- Webhooks: where a tenant's events are posted, with credentials sealed at rest.

CREATE TABLE webhooks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    type TEXT NOT NULL,
    url TEXT NOT NULL,
    username TEXT NOT NULL DEFAULT '',
    -- Sealed (XChaCha20-Poly1305); answered masked.
    password_sealed TEXT,
    authtoken_sealed TEXT,
    -- The Standard Webhooks signing secret (whsec_…), sealed; after a rotation the
    -- previous one keeps signing beside it until previous_secret_expires_at (Unix seconds).
    signing_secret_sealed TEXT NOT NULL,
    previous_secret_sealed TEXT,
    previous_secret_expires_at INTEGER,
    created_at INTEGER NOT NULL
);
CREATE INDEX webhooks_tenant_id ON webhooks (tenant_id, id);
CREATE INDEX webhooks_type ON webhooks (tenant_id, type);
