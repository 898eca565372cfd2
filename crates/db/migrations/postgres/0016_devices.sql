-- Desk phones: button layouts (per tenant and model) with their keys, devices with their
-- ordered lines, and the tenant's time zone the phones' clocks are set to.

ALTER TABLE tenants ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC';

CREATE TABLE button_layouts (
    id BIGSERIAL PRIMARY KEY,
    tenant_id BIGINT NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    device_model TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX button_layouts_tenant_id ON button_layouts (tenant_id, id);
CREATE INDEX button_layouts_tenant_name ON button_layouts (tenant_id, name, id);

-- A key's target is held by a foreign key where it is a record (a BLF's extension, a
-- paging group), so such a record cannot be deleted while a layout points at it.
CREATE TABLE button_layout_keys (
    id BIGSERIAL PRIMARY KEY,
    layout_id BIGINT NOT NULL REFERENCES button_layouts (id) ON DELETE CASCADE,
    key_index BIGINT NOT NULL,
    kind TEXT NOT NULL,
    value TEXT,
    label TEXT,
    extension_id BIGINT REFERENCES extensions (id),
    paging_group_id BIGINT REFERENCES paging_groups (id),
    CONSTRAINT button_layout_keys_index_unique UNIQUE (layout_id, key_index)
);
CREATE INDEX button_layout_keys_extension ON button_layout_keys (extension_id);
CREATE INDEX button_layout_keys_paging_group ON button_layout_keys (paging_group_id);

CREATE TABLE devices (
    id BIGSERIAL PRIMARY KEY,
    tenant_id BIGINT NOT NULL REFERENCES tenants (id),
    branch_id BIGINT REFERENCES branches (id),
    name TEXT NOT NULL,
    -- 12 lowercase hex digits, unique on the whole platform: two tenants claiming one
    -- phone would provision it with the wrong tenant's lines. Byte order (COLLATE "C")
    -- so prefix matches use the index.
    mac TEXT COLLATE "C" NOT NULL CONSTRAINT devices_mac_unique UNIQUE,
    model TEXT NOT NULL,
    button_layout_id BIGINT REFERENCES button_layouts (id),
    description TEXT NOT NULL DEFAULT '',
    registered BIGINT NOT NULL DEFAULT 0,
    last_registered_at TEXT,
    ip_address TEXT,
    user_agent TEXT,
    config_version BIGINT NOT NULL DEFAULT 1,
    provisioning_username TEXT NOT NULL,
    -- SHA-256 (hex) of the generated provisioning password: 144 random bits, so a fast
    -- hash is as safe as a slow one and a phone's fetch costs no hashing time.
    provisioning_secret_hash TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
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
-- Substring search of names and MACs (pg_trgm, created by 0009).
CREATE INDEX devices_name_trgm ON devices USING gin (lower(name) gin_trgm_ops);
CREATE INDEX devices_mac_trgm ON devices USING gin (mac gin_trgm_ops);

CREATE TABLE device_lines (
    id BIGSERIAL PRIMARY KEY,
    device_id BIGINT NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    -- No cascade: deleting an extension a phone registers as is refused (409).
    extension_id BIGINT NOT NULL REFERENCES extensions (id),
    CONSTRAINT device_lines_position_unique UNIQUE (device_id, position)
);
CREATE INDEX device_lines_extension ON device_lines (extension_id, device_id);

-- Device counts per tenant, branch (0 for none), model and registration state, kept by
-- a trigger in the writing transaction: a list's totalRecords reads a few counters
-- instead of counting a hundred thousand rows (searches still count their matches).
CREATE TABLE device_counts (
    tenant_id BIGINT NOT NULL,
    branch_id BIGINT NOT NULL,
    model TEXT NOT NULL,
    registered BIGINT NOT NULL,
    devices BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, branch_id, model, registered)
);
CREATE FUNCTION device_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE device_counts SET devices = devices - 1
        WHERE tenant_id = OLD.tenant_id AND branch_id = COALESCE(OLD.branch_id, 0)
          AND model = OLD.model AND registered = OLD.registered;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO device_counts (tenant_id, branch_id, model, registered, devices)
        VALUES (NEW.tenant_id, COALESCE(NEW.branch_id, 0), NEW.model, NEW.registered, 1)
        ON CONFLICT (tenant_id, branch_id, model, registered)
        DO UPDATE SET devices = device_counts.devices + 1;
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER device_counts_track
AFTER INSERT OR DELETE OR UPDATE OF tenant_id, branch_id, model, registered ON devices
FOR EACH ROW EXECUTE FUNCTION device_counts_track();
