-- Pharmacy agents: the refill line of a pharmacy tenant. An agent is dialable (the
-- tenant's one dial plan, kind 'pharmacy agent') and a destination (`PHARMACY_AGENT`).
-- Its pharmacist fallback and its after-hours destination are lists of the shared
-- `destinations` table (owner 'pharmacy_agent', lists 'fallback' and 'afterHours'); its
-- media files, after-hours schedule and pharmacy-system conduit are foreign keys, so a
-- used one cannot be deleted. Refill requests the engine reports are kept per agent, once
-- per (agent, requestId).

CREATE TABLE pharmacy_agents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    number TEXT NOT NULL,
    ivr_bulk INTEGER NOT NULL DEFAULT 0,
    refill_loop_attempts INTEGER NOT NULL DEFAULT 3,
    rx_number_length INTEGER NOT NULL DEFAULT 7,
    greeting_media_file_id INTEGER REFERENCES media_files (id),
    prompt_media_file_id INTEGER REFERENCES media_files (id),
    after_hours_business_hour_id INTEGER REFERENCES business_hours (id),
    conduit_id INTEGER REFERENCES conduits (id),
    created_at INTEGER NOT NULL
);
CREATE INDEX pharmacy_agents_tenant_id ON pharmacy_agents (tenant_id, id);
CREATE INDEX pharmacy_agents_greeting ON pharmacy_agents (greeting_media_file_id);
CREATE INDEX pharmacy_agents_prompt ON pharmacy_agents (prompt_media_file_id);
CREATE INDEX pharmacy_agents_after_hours ON pharmacy_agents (after_hours_business_hour_id);
CREATE INDEX pharmacy_agents_conduit_id ON pharmacy_agents (conduit_id);

-- Pharmacy agents join the tenant's one dial plan (migration 0013's triggers).
CREATE TRIGGER pharmacy_agents_dial_plan_insert AFTER INSERT ON pharmacy_agents BEGIN
    INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
        VALUES (NEW.tenant_id, NEW.number, 'pharmacy agent', NEW.id, NEW.name);
END;
CREATE TRIGGER pharmacy_agents_dial_plan_update AFTER UPDATE OF tenant_id, number, name ON pharmacy_agents BEGIN
    DELETE FROM dial_plan WHERE owner_kind = 'pharmacy agent' AND owner_id = OLD.id
        AND (NEW.number IS NOT OLD.number OR NEW.tenant_id IS NOT OLD.tenant_id);
    INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
        SELECT NEW.tenant_id, NEW.number, 'pharmacy agent', NEW.id, NEW.name
        WHERE NEW.number IS NOT OLD.number OR NEW.tenant_id IS NOT OLD.tenant_id;
    UPDATE dial_plan SET owner_name = NEW.name WHERE owner_kind = 'pharmacy agent' AND owner_id = NEW.id;
END;
CREATE TRIGGER pharmacy_agents_dial_plan_delete AFTER DELETE ON pharmacy_agents BEGIN
    DELETE FROM dial_plan WHERE owner_kind = 'pharmacy agent' AND owner_id = OLD.id;
END;

CREATE TABLE refill_requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    agent_id INTEGER NOT NULL REFERENCES pharmacy_agents (id) ON DELETE CASCADE,
    request_id TEXT NOT NULL,
    unique_id TEXT,
    caller_number TEXT NOT NULL,
    rx_numbers TEXT NOT NULL,
    outcome TEXT NOT NULL,
    time TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (agent_id, request_id)
);
CREATE INDEX refill_requests_agent_time ON refill_requests (agent_id, time);
CREATE INDEX refill_requests_tenant_id ON refill_requests (tenant_id);
