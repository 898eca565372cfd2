-- Account security: sessions with rotating refresh tokens, multi-factor login, recovery
-- codes, failed-login counting, the audit trail, and disabling accounts.
-- Times are Unix seconds (milliseconds for the audit trail), the same on both backends.

ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
-- TOTP secrets, sealed (XChaCha20-Poly1305) with a key derived from the master key.
ALTER TABLE users ADD COLUMN mfa_secret TEXT;
ALTER TABLE users ADD COLUMN mfa_pending_secret TEXT;
-- The last TOTP step accepted: a code is accepted once (RFC 6238 §5.2).
ALTER TABLE users ADD COLUMN mfa_last_step INTEGER NOT NULL DEFAULT 0;

-- A session is one login: the family of refresh tokens that rotate from it.
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_address TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER,
    revoked_reason TEXT
);
CREATE INDEX sessions_user_id ON sessions (user_id);

-- Refresh tokens are stored as SHA-256 hashes; each is used once.
CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    used_at INTEGER
);
CREATE INDEX refresh_tokens_session_id ON refresh_tokens (session_id);

CREATE TABLE recovery_codes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at INTEGER
);
CREATE INDEX recovery_codes_user_id ON recovery_codes (user_id);

-- Failed logins, by account (lowercased e-mail) and by client address.
CREATE TABLE login_failures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_key TEXT NOT NULL,
    client_address TEXT NOT NULL,
    at INTEGER NOT NULL
);
CREATE INDEX login_failures_account ON login_failures (account_key, at);
CREATE INDEX login_failures_address ON login_failures (client_address, at);

-- Who did what, when, from where. Kept when users and tenants go.
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    tenant_id INTEGER,
    user_id INTEGER,
    user_email TEXT NOT NULL,
    action TEXT NOT NULL,
    entity TEXT NOT NULL,
    entity_id TEXT,
    client_address TEXT NOT NULL,
    details TEXT NOT NULL
);
CREATE INDEX audit_log_tenant_id ON audit_log (tenant_id, id);
CREATE INDEX audit_log_entity ON audit_log (entity, id);
