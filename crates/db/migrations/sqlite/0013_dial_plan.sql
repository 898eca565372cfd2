-- One dial plan per tenant: every dialable record (extensions, IVRs, paging groups, and
-- every later one) holds its number here, so a number reaches exactly one thing. Rows are
-- kept by triggers on the records' tables, in the statement (and so the transaction) that
-- writes the record; the unique key is what settles two concurrent claims of one number.
CREATE TABLE dial_plan (
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    number TEXT NOT NULL,
    -- The owner's kind as the 409 names it ('extension', 'IVR', 'paging group').
    owner_kind TEXT NOT NULL,
    owner_id INTEGER NOT NULL,
    owner_name TEXT NOT NULL,
    CONSTRAINT dial_plan_number_unique UNIQUE (tenant_id, number),
    CONSTRAINT dial_plan_owner_unique UNIQUE (owner_kind, owner_id)
);

-- Backfill: extensions first, then IVRs, then paging groups, each by id. A number held
-- twice before this migration stays with the first holder; the later record is outside
-- the dial plan until it is renumbered (docs/decisions.md).
INSERT OR IGNORE INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
    SELECT tenant_id, number, 'extension', id, name FROM extensions ORDER BY id;
INSERT OR IGNORE INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
    SELECT tenant_id, number, 'IVR', id, name FROM ivrs ORDER BY id;
INSERT OR IGNORE INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
    SELECT tenant_id, number, 'paging group', id, name FROM paging_groups ORDER BY id;

-- The triggers of one dialable table (a new one copies these three, naming its kind).
CREATE TRIGGER extensions_dial_plan_insert AFTER INSERT ON extensions BEGIN
    INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
        VALUES (NEW.tenant_id, NEW.number, 'extension', NEW.id, NEW.name);
END;
CREATE TRIGGER extensions_dial_plan_update AFTER UPDATE OF tenant_id, number, name ON extensions BEGIN
    DELETE FROM dial_plan WHERE owner_kind = 'extension' AND owner_id = OLD.id
        AND (NEW.number IS NOT OLD.number OR NEW.tenant_id IS NOT OLD.tenant_id);
    INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
        SELECT NEW.tenant_id, NEW.number, 'extension', NEW.id, NEW.name
        WHERE NEW.number IS NOT OLD.number OR NEW.tenant_id IS NOT OLD.tenant_id;
    UPDATE dial_plan SET owner_name = NEW.name WHERE owner_kind = 'extension' AND owner_id = NEW.id;
END;
CREATE TRIGGER extensions_dial_plan_delete AFTER DELETE ON extensions BEGIN
    DELETE FROM dial_plan WHERE owner_kind = 'extension' AND owner_id = OLD.id;
END;

CREATE TRIGGER ivrs_dial_plan_insert AFTER INSERT ON ivrs BEGIN
    INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
        VALUES (NEW.tenant_id, NEW.number, 'IVR', NEW.id, NEW.name);
END;
CREATE TRIGGER ivrs_dial_plan_update AFTER UPDATE OF tenant_id, number, name ON ivrs BEGIN
    DELETE FROM dial_plan WHERE owner_kind = 'IVR' AND owner_id = OLD.id
        AND (NEW.number IS NOT OLD.number OR NEW.tenant_id IS NOT OLD.tenant_id);
    INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
        SELECT NEW.tenant_id, NEW.number, 'IVR', NEW.id, NEW.name
        WHERE NEW.number IS NOT OLD.number OR NEW.tenant_id IS NOT OLD.tenant_id;
    UPDATE dial_plan SET owner_name = NEW.name WHERE owner_kind = 'IVR' AND owner_id = NEW.id;
END;
CREATE TRIGGER ivrs_dial_plan_delete AFTER DELETE ON ivrs BEGIN
    DELETE FROM dial_plan WHERE owner_kind = 'IVR' AND owner_id = OLD.id;
END;

CREATE TRIGGER paging_groups_dial_plan_insert AFTER INSERT ON paging_groups BEGIN
    INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
        VALUES (NEW.tenant_id, NEW.number, 'paging group', NEW.id, NEW.name);
END;
CREATE TRIGGER paging_groups_dial_plan_update AFTER UPDATE OF tenant_id, number, name ON paging_groups BEGIN
    DELETE FROM dial_plan WHERE owner_kind = 'paging group' AND owner_id = OLD.id
        AND (NEW.number IS NOT OLD.number OR NEW.tenant_id IS NOT OLD.tenant_id);
    INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
        SELECT NEW.tenant_id, NEW.number, 'paging group', NEW.id, NEW.name
        WHERE NEW.number IS NOT OLD.number OR NEW.tenant_id IS NOT OLD.tenant_id;
    UPDATE dial_plan SET owner_name = NEW.name WHERE owner_kind = 'paging group' AND owner_id = NEW.id;
END;
CREATE TRIGGER paging_groups_dial_plan_delete AFTER DELETE ON paging_groups BEGIN
    DELETE FROM dial_plan WHERE owner_kind = 'paging group' AND owner_id = OLD.id;
END;
