-- One dial plan per tenant: every dialable record (extensions, IVRs, paging groups, and
-- every later one) holds its number here, so a number reaches exactly one thing. Rows are
-- kept by a trigger on the records' tables, in the statement (and so the transaction) that
-- writes the record; the unique key is what settles two concurrent claims of one number.
CREATE TABLE dial_plan (
    tenant_id BIGINT NOT NULL REFERENCES tenants (id),
    number TEXT NOT NULL,
    -- The owner's kind as the 409 names it ('extension', 'IVR', 'paging group').
    owner_kind TEXT NOT NULL,
    owner_id BIGINT NOT NULL,
    owner_name TEXT NOT NULL,
    CONSTRAINT dial_plan_number_unique UNIQUE (tenant_id, number),
    CONSTRAINT dial_plan_owner_unique UNIQUE (owner_kind, owner_id)
);

-- Backfill: extensions first, then IVRs, then paging groups, each by id. A number held
-- twice before this migration stays with the first holder; the later record is outside
-- the dial plan until it is renumbered (docs/decisions.md).
INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
    SELECT tenant_id, number, 'extension', id, name FROM extensions ORDER BY id
    ON CONFLICT DO NOTHING;
INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
    SELECT tenant_id, number, 'IVR', id, name FROM ivrs ORDER BY id
    ON CONFLICT DO NOTHING;
INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
    SELECT tenant_id, number, 'paging group', id, name FROM paging_groups ORDER BY id
    ON CONFLICT DO NOTHING;

-- Keeps the dial plan row of a dialable table's row; the trigger's argument is the kind.
-- A new dialable table joins with one statement:
--   CREATE TRIGGER <table>_dial_plan AFTER INSERT OR UPDATE OR DELETE ON <table>
--       FOR EACH ROW EXECUTE FUNCTION dial_plan_sync('<kind>');
CREATE FUNCTION dial_plan_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    moved boolean := TG_OP = 'UPDATE'
        AND (NEW.number IS DISTINCT FROM OLD.number OR NEW.tenant_id IS DISTINCT FROM OLD.tenant_id);
BEGIN
    IF TG_OP = 'DELETE' OR moved THEN
        DELETE FROM dial_plan WHERE owner_kind = TG_ARGV[0] AND owner_id = OLD.id;
    END IF;
    IF TG_OP = 'INSERT' OR moved THEN
        INSERT INTO dial_plan (tenant_id, number, owner_kind, owner_id, owner_name)
            VALUES (NEW.tenant_id, NEW.number, TG_ARGV[0], NEW.id, NEW.name);
    ELSIF TG_OP = 'UPDATE' AND NEW.name IS DISTINCT FROM OLD.name THEN
        UPDATE dial_plan SET owner_name = NEW.name WHERE owner_kind = TG_ARGV[0] AND owner_id = NEW.id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER extensions_dial_plan AFTER INSERT OR UPDATE OR DELETE ON extensions
    FOR EACH ROW EXECUTE FUNCTION dial_plan_sync('extension');
CREATE TRIGGER ivrs_dial_plan AFTER INSERT OR UPDATE OR DELETE ON ivrs
    FOR EACH ROW EXECUTE FUNCTION dial_plan_sync('IVR');
CREATE TRIGGER paging_groups_dial_plan AFTER INSERT OR UPDATE OR DELETE ON paging_groups
    FOR EACH ROW EXECUTE FUNCTION dial_plan_sync('paging group');
