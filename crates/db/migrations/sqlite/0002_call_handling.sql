-- Call-handling records: media files, IVRs, paging groups, business hours with holidays,
-- announcements, and the destination lists they route calls to.

CREATE TABLE media_files (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    -- Where the audio lives in object storage; generated, never taken from the client.
    object_key TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    duration_seconds REAL NOT NULL,
    language TEXT,
    text TEXT,
    -- A JSON array of {language, text}, or NULL.
    multilingual_text TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX media_files_tenant_id ON media_files (tenant_id, id);

CREATE TABLE ivrs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    number TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CONSTRAINT ivrs_number_unique UNIQUE (tenant_id, number)
);

CREATE TABLE paging_groups (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    number TEXT NOT NULL,
    name TEXT NOT NULL,
    check_in_use TEXT,
    two_way_audio TEXT,
    intro_media_file_id INTEGER REFERENCES media_files (id),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CONSTRAINT paging_groups_number_unique UNIQUE (tenant_id, number)
);
CREATE INDEX paging_groups_intro_media_file_id ON paging_groups (intro_media_file_id);

CREATE TABLE business_hours (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    branch_id INTEGER NOT NULL REFERENCES branches (id),
    name TEXT NOT NULL,
    timezone TEXT NOT NULL,
    -- The weekly hours as JSON: {"0": [{"from": "09:00", "to": "17:00"}], …}.
    hours TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX business_hours_tenant_id ON business_hours (tenant_id, id);
CREATE INDEX business_hours_branch_id ON business_hours (branch_id);

CREATE TABLE holidays (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    business_hour_id INTEGER NOT NULL REFERENCES business_hours (id) ON DELETE CASCADE,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    -- Local to the business hour's time zone: a whole day, or a from/to range of
    -- dates (inclusive) or date-times (end exclusive), as written by the client.
    date TEXT,
    starts TEXT,
    ends TEXT,
    media_file_id INTEGER REFERENCES media_files (id),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX holidays_business_hour_id ON holidays (business_hour_id, id);
CREATE INDEX holidays_media_file_id ON holidays (media_file_id);

CREATE TABLE announcements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    branch_id INTEGER NOT NULL REFERENCES branches (id),
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    media_file_id INTEGER NOT NULL REFERENCES media_files (id),
    active INTEGER NOT NULL,
    start_date TEXT NOT NULL,
    end_date TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX announcements_tenant_id ON announcements (tenant_id, id);
CREATE INDEX announcements_media_file_id ON announcements (media_file_id);

CREATE TABLE announcement_ivrs (
    announcement_id INTEGER NOT NULL REFERENCES announcements (id) ON DELETE CASCADE,
    ivr_id INTEGER NOT NULL REFERENCES ivrs (id),
    position INTEGER NOT NULL,
    PRIMARY KEY (announcement_id, ivr_id)
);
CREATE INDEX announcement_ivrs_ivr_id ON announcement_ivrs (ivr_id);

-- Ordered destination lists: a paging group's members, a business hour's inside-hours
-- ("match") and outside-hours ("notMatch") lists. `target_id` names a record of
-- `dest_type` in the same tenant (checked on write); EXTERNAL carries `number` instead.
CREATE TABLE destinations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    owner_type TEXT NOT NULL,
    owner_id INTEGER NOT NULL,
    list TEXT NOT NULL,
    position INTEGER NOT NULL,
    sort_order INTEGER NOT NULL,
    dest_type TEXT NOT NULL,
    target_id INTEGER NOT NULL,
    number TEXT,
    type_src TEXT
);
CREATE INDEX destinations_owner ON destinations (owner_type, owner_id, list, sort_order, position);
CREATE INDEX destinations_target ON destinations (dest_type, target_id);
