-- Inbound routing: call queues (their members, hold music and overflow), IVR menus
-- (greeting, digit options, timeout and invalid paths, direct dial) and the destination
-- of a phone number. Lists of destinations live in the shared `destinations` table
-- (owners 'queue', 'ivr', 'phone_number'); a queue's members, which carry a penalty,
-- in `queue_members`, whose foreign key keeps an extension in use while a queue names it.

CREATE TABLE queues (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    number TEXT NOT NULL,
    strategy TEXT NOT NULL DEFAULT 'ringAll',
    max_wait_seconds INTEGER NOT NULL DEFAULT 300,
    max_callers INTEGER NOT NULL DEFAULT 0,
    -- Music on hold: a media file of the tenant until music-on-hold classes exist.
    hold_media_file_id INTEGER REFERENCES media_files (id),
    announce_position INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX queues_tenant_id ON queues (tenant_id, id);
CREATE INDEX queues_hold_media_file_id ON queues (hold_media_file_id);

CREATE TABLE queue_members (
    queue_id INTEGER NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    extension_id INTEGER NOT NULL REFERENCES extensions (id),
    position INTEGER NOT NULL,
    penalty INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (queue_id, extension_id)
);
CREATE INDEX queue_members_extension_id ON queue_members (extension_id);
CREATE INDEX queue_members_tenant_id ON queue_members (tenant_id);

-- Queues join the tenant's one dial plan (migration 0013's triggers, kind 'queue').
CREATE TRIGGER queues_dial_plan_insert AFTER INSERT ON queues BEGIN
    INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
        VALUES (NEW.tenant_id, NEW.number, 'queue', NEW.id, NEW.name);
END;
CREATE TRIGGER queues_dial_plan_update AFTER UPDATE OF tenant_id, number, name ON queues BEGIN
    DELETE FROM dial_plan WHERE owner_kind = 'queue' AND owner_id = OLD.id
        AND (NEW.number IS NOT OLD.number OR NEW.tenant_id IS NOT OLD.tenant_id);
    INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
        SELECT NEW.tenant_id, NEW.number, 'queue', NEW.id, NEW.name
        WHERE NEW.number IS NOT OLD.number OR NEW.tenant_id IS NOT OLD.tenant_id;
    UPDATE dial_plan SET owner_name = NEW.name WHERE owner_kind = 'queue' AND owner_id = NEW.id;
END;
CREATE TRIGGER queues_dial_plan_delete AFTER DELETE ON queues BEGIN
    DELETE FROM dial_plan WHERE owner_kind = 'queue' AND owner_id = OLD.id;
END;

-- IVR menus. Existing IVRs keep working: no greeting, a 10-second timeout, 3 retries,
-- direct dial off, and no options until some are set.
ALTER TABLE ivrs ADD COLUMN greeting_media_file_id INTEGER REFERENCES media_files (id);
ALTER TABLE ivrs ADD COLUMN greeting_announcement_id INTEGER REFERENCES announcements (id);
ALTER TABLE ivrs ADD COLUMN timeout_seconds INTEGER NOT NULL DEFAULT 10;
ALTER TABLE ivrs ADD COLUMN invalid_retries INTEGER NOT NULL DEFAULT 3;
ALTER TABLE ivrs ADD COLUMN direct_dial INTEGER NOT NULL DEFAULT 0;
CREATE INDEX ivrs_greeting_media_file_id ON ivrs (greeting_media_file_id);
CREATE INDEX ivrs_greeting_announcement_id ON ivrs (greeting_announcement_id);

-- One destination per digit of an IVR (the digit is the option's `type_src`).
CREATE UNIQUE INDEX destinations_ivr_digit ON destinations (owner_id, type_src)
    WHERE owner_type = 'ivr' AND list = 'options';
-- The routing graph loads a tenant's lists at once.
CREATE INDEX destinations_tenant ON destinations (tenant_id, owner_type);
