-- A phone number's `in_use` is derived, never stored as sent (issue 29): 1 while
-- something routes to or from it — its calls' destination, or an extension its texts
-- reach — and 0 otherwise. Triggers keep it in the writing transaction whatever writes
-- the number, its destination list, or (ON DELETE SET NULL) the extension of its texts,
-- so `?inUse=0` never lists a number that rings somewhere; the counters of
-- `phone_number_counts` follow through their own trigger.
CREATE FUNCTION phone_number_in_use(number_id BIGINT, sms_ext_id BIGINT) RETURNS BIGINT
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN sms_ext_id IS NOT NULL OR EXISTS (
        SELECT 1 FROM destinations d
        WHERE d.owner_type = 'phone_number' AND d.owner_id = number_id) THEN 1 ELSE 0 END
$$;
-- BEFORE a number's insert, or a write naming `in_use`: whatever a writer sent, the
-- derived value is stored (and counted: the counters' trigger reads NEW).
CREATE FUNCTION phone_numbers_in_use_derive() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.in_use := phone_number_in_use(NEW.id, NEW.sms_ext_id);
    RETURN NEW;
END
$$;
CREATE TRIGGER phone_numbers_in_use_derive
    BEFORE INSERT OR UPDATE OF in_use ON phone_numbers
    FOR EACH ROW EXECUTE FUNCTION phone_numbers_in_use_derive();
-- AFTER its texts' extension changes (set, cleared, or its extension deleted): an UPDATE
-- naming `in_use`, so the counters' `UPDATE OF in_use` trigger follows (a BEFORE
-- trigger's change of a column the statement does not name would not fire it).
CREATE FUNCTION phone_numbers_in_use_texts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE phone_numbers p SET in_use = phone_number_in_use(p.id, p.sms_ext_id)
    WHERE p.id = NEW.id AND p.in_use <> phone_number_in_use(p.id, p.sms_ext_id);
    RETURN NULL;
END
$$;
CREATE TRIGGER phone_numbers_in_use_texts
    AFTER UPDATE OF sms_ext_id ON phone_numbers
    FOR EACH ROW EXECUTE FUNCTION phone_numbers_in_use_texts();
-- AFTER its destination list changes: the number is read again.
CREATE FUNCTION destinations_number_in_use() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    number_id BIGINT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        number_id := OLD.owner_id;
        IF OLD.owner_type <> 'phone_number' THEN RETURN NULL; END IF;
    ELSE
        number_id := NEW.owner_id;
        IF NEW.owner_type <> 'phone_number' THEN RETURN NULL; END IF;
    END IF;
    UPDATE phone_numbers p SET in_use = phone_number_in_use(p.id, p.sms_ext_id)
    WHERE p.id = number_id AND p.in_use <> phone_number_in_use(p.id, p.sms_ext_id);
    RETURN NULL;
END
$$;
CREATE TRIGGER destinations_number_in_use
    AFTER INSERT OR DELETE ON destinations
    FOR EACH ROW EXECUTE FUNCTION destinations_number_in_use();
UPDATE phone_numbers SET in_use = phone_number_in_use(id, sms_ext_id);
