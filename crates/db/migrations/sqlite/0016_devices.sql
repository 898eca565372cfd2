-- Desk phones: button layouts (per tenant and model) with their keys, devices with their
-- ordered lines, and the tenant's time zone the phones' clocks are set to.

ALTER TABLE tenants ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC';

CREATE TABLE button_layouts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    device_model TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX button_layouts_tenant_id ON button_layouts (tenant_id, id);
CREATE INDEX button_layouts_tenant_name ON button_layouts (tenant_id, name, id);

-- A key's target is held by a foreign key where it is a record (a BLF's extension, a
-- paging group), so such a record cannot be deleted while a layout points at it.
CREATE TABLE button_layout_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    layout_id INTEGER NOT NULL REFERENCES button_layouts (id) ON DELETE CASCADE,
    key_index INTEGER NOT NULL,
    kind TEXT NOT NULL,
    value TEXT,
    label TEXT,
    extension_id INTEGER REFERENCES extensions (id),
    paging_group_id INTEGER REFERENCES paging_groups (id),
    CONSTRAINT button_layout_keys_index_unique UNIQUE (layout_id, key_index)
);
CREATE INDEX button_layout_keys_extension ON button_layout_keys (extension_id);
CREATE INDEX button_layout_keys_paging_group ON button_layout_keys (paging_group_id);

CREATE TABLE devices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    branch_id INTEGER REFERENCES branches (id),
    name TEXT NOT NULL,
    -- 12 lowercase hex digits, unique on the whole platform: two tenants claiming one
    -- phone would provision it with the wrong tenant's lines.
    mac TEXT NOT NULL CONSTRAINT devices_mac_unique UNIQUE,
    model TEXT NOT NULL,
    button_layout_id INTEGER REFERENCES button_layouts (id),
    description TEXT NOT NULL DEFAULT '',
    registered INTEGER NOT NULL DEFAULT 0,
    last_registered_at TEXT,
    ip_address TEXT,
    user_agent TEXT,
    config_version INTEGER NOT NULL DEFAULT 1,
    provisioning_username TEXT NOT NULL,
    -- SHA-256 (hex) of the generated provisioning password: 144 random bits, so a fast
    -- hash is as safe as a slow one and a phone's fetch costs no hashing time.
    provisioning_secret_hash TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX devices_tenant_id ON devices (tenant_id, id);
CREATE INDEX devices_tenant_name ON devices (tenant_id, name, id);
CREATE INDEX devices_tenant_mac ON devices (tenant_id, mac);
CREATE INDEX devices_tenant_model ON devices (tenant_id, model, id);
CREATE INDEX devices_tenant_registered ON devices (tenant_id, registered, id);
CREATE INDEX devices_tenant_last_registered ON devices (tenant_id, last_registered_at, id);
CREATE INDEX devices_tenant_version ON devices (tenant_id, config_version, id);
CREATE INDEX devices_branch_id ON devices (branch_id, id);
CREATE INDEX devices_button_layout_id ON devices (button_layout_id);

CREATE TABLE device_lines (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    -- No cascade: deleting an extension a phone registers as is refused (409).
    extension_id INTEGER NOT NULL REFERENCES extensions (id),
    CONSTRAINT device_lines_position_unique UNIQUE (device_id, position)
);
CREATE INDEX device_lines_extension ON device_lines (extension_id, device_id);

-- Name and MAC search by trigrams (any substring of 3 or more characters), as the other
-- large lists do; kept in step by triggers.
CREATE VIRTUAL TABLE devices_search USING fts5 (
    name, mac,
    content = 'devices', content_rowid = 'id', tokenize = 'trigram'
);
CREATE TRIGGER devices_search_insert AFTER INSERT ON devices BEGIN
    INSERT INTO devices_search (rowid, name, mac) VALUES (new.id, new.name, new.mac);
END;
CREATE TRIGGER devices_search_delete AFTER DELETE ON devices BEGIN
    INSERT INTO devices_search (devices_search, rowid, name, mac)
    VALUES ('delete', old.id, old.name, old.mac);
END;
CREATE TRIGGER devices_search_update AFTER UPDATE OF name, mac ON devices BEGIN
    INSERT INTO devices_search (devices_search, rowid, name, mac)
    VALUES ('delete', old.id, old.name, old.mac);
    INSERT INTO devices_search (rowid, name, mac) VALUES (new.id, new.name, new.mac);
END;

-- Device counts per tenant, branch (0 for none), model and registration state, kept by
-- triggers in the writing transaction: a list's totalRecords reads a few counters
-- instead of counting a hundred thousand rows (searches still count their matches).
CREATE TABLE device_counts (
    tenant_id INTEGER NOT NULL,
    branch_id INTEGER NOT NULL,
    model TEXT NOT NULL,
    registered INTEGER NOT NULL,
    devices INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, branch_id, model, registered)
);
CREATE TRIGGER device_counts_insert AFTER INSERT ON devices BEGIN
    INSERT INTO device_counts (tenant_id, branch_id, model, registered, devices)
    VALUES (new.tenant_id, COALESCE(new.branch_id, 0), new.model, new.registered, 1)
    ON CONFLICT (tenant_id, branch_id, model, registered) DO UPDATE SET devices = devices + 1;
END;
CREATE TRIGGER device_counts_delete AFTER DELETE ON devices BEGIN
    UPDATE device_counts SET devices = devices - 1
    WHERE tenant_id = old.tenant_id AND branch_id = COALESCE(old.branch_id, 0)
      AND model = old.model AND registered = old.registered;
END;
CREATE TRIGGER device_counts_update AFTER UPDATE OF tenant_id, branch_id, model, registered ON devices BEGIN
    UPDATE device_counts SET devices = devices - 1
    WHERE tenant_id = old.tenant_id AND branch_id = COALESCE(old.branch_id, 0)
      AND model = old.model AND registered = old.registered;
    INSERT INTO device_counts (tenant_id, branch_id, model, registered, devices)
    VALUES (new.tenant_id, COALESCE(new.branch_id, 0), new.model, new.registered, 1)
    ON CONFLICT (tenant_id, branch_id, model, registered) DO UPDATE SET devices = devices + 1;
END;
