-- The foundation: the tenancy hierarchy (partner -> tenant -> branch), extensions and users.
-- Ids are never reused, so a deleted record's id cannot come to name another.

CREATE TABLE partners (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE tenants (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    partner_id INTEGER NOT NULL REFERENCES partners (id),
    name TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX tenants_partner_id ON tenants (partner_id, id);

CREATE TABLE branches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX branches_tenant_id ON branches (tenant_id, id);

CREATE TABLE extensions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    branch_id INTEGER REFERENCES branches (id),
    number TEXT NOT NULL,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CONSTRAINT extensions_number_unique UNIQUE (tenant_id, number)
);
CREATE INDEX extensions_branch_id ON extensions (branch_id);

CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    email TEXT NOT NULL,
    -- The e-mail lowercased: logins and uniqueness ignore case.
    email_key TEXT NOT NULL CONSTRAINT users_email_unique UNIQUE,
    password_hash TEXT NOT NULL,
    role INTEGER NOT NULL CHECK (role BETWEEN 1 AND 5),
    partner_id INTEGER REFERENCES partners (id),
    tenant_id INTEGER REFERENCES tenants (id),
    branch_id INTEGER REFERENCES branches (id),
    ext_id INTEGER REFERENCES extensions (id) ON DELETE SET NULL,
    title TEXT NOT NULL DEFAULT '',
    timezone TEXT NOT NULL DEFAULT 'UTC',
    avatar_path TEXT NOT NULL DEFAULT '',
    avatar_thumbnail_path TEXT NOT NULL DEFAULT '',
    cover_photo TEXT NOT NULL DEFAULT '',
    caller_id_number TEXT NOT NULL DEFAULT '',
    peer_name TEXT NOT NULL DEFAULT '',
    peer_secret TEXT NOT NULL DEFAULT '',
    mfa_mode TEXT NOT NULL DEFAULT '',
    mfa_phone_number TEXT NOT NULL DEFAULT '',
    dnd TEXT NOT NULL DEFAULT 'no',
    outbound_record TEXT NOT NULL DEFAULT 'no',
    dark_mode INTEGER NOT NULL DEFAULT 0,
    mobile_dark_mode INTEGER NOT NULL DEFAULT 0,
    mfa_enabled INTEGER NOT NULL DEFAULT 0,
    mfa_sms_verified INTEGER NOT NULL DEFAULT 0,
    mfa_app_verified INTEGER NOT NULL DEFAULT 0,
    mfa_email_verified INTEGER NOT NULL DEFAULT 0,
    enable_call_notifications INTEGER NOT NULL DEFAULT 0,
    enable_chat_notifications INTEGER NOT NULL DEFAULT 0,
    enable_all_new_message_notifications INTEGER NOT NULL DEFAULT 0,
    enable_direct_message_notifications INTEGER NOT NULL DEFAULT 0,
    enable_text_notifications INTEGER NOT NULL DEFAULT 0,
    enable_post_call_notifications INTEGER NOT NULL DEFAULT 0,
    enable_mobile_text_notifications INTEGER NOT NULL DEFAULT 0,
    enable_mobile_call_notifications INTEGER NOT NULL DEFAULT 0,
    enable_mobile_chat_notifications INTEGER NOT NULL DEFAULT 0,
    enable_busy_lights INTEGER NOT NULL DEFAULT 0,
    is_google_calendar_authorized INTEGER NOT NULL DEFAULT 0,
    is_outlook_calendar_authorized INTEGER NOT NULL DEFAULT 0,
    enable_meetings INTEGER NOT NULL DEFAULT 0,
    enable_transcription INTEGER NOT NULL DEFAULT 0,
    -- Permissions granted beyond the role's defaults, a JSON array of names.
    extra_permissions TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX users_tenant_id ON users (tenant_id, id);
CREATE INDEX users_partner_id ON users (partner_id, id);
CREATE INDEX users_branch_id ON users (branch_id);
CREATE INDEX users_ext_id ON users (ext_id);
