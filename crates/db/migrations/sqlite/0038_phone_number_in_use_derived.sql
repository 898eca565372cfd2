-- A phone number's `in_use` is derived, never stored as sent (issue 29): 1 while
-- something routes to or from it — its calls' destination, or an extension its texts
-- reach — and 0 otherwise. Triggers keep it in the writing transaction whatever writes
-- the number, its destination list, or (ON DELETE SET NULL) the extension of its texts,
-- so `?inUse=0` never lists a number that rings somewhere. Each change of `in_use` is an
-- UPDATE naming the column, so the counters of `phone_number_counts` follow through
-- their own update trigger; a new number is counted as inserted first, then corrected,
-- in one trigger (SQLite runs triggers of one event in no promised order).
DROP TRIGGER phone_number_counts_insert;
CREATE TRIGGER phone_number_counts_insert AFTER INSERT ON phone_numbers BEGIN
    INSERT INTO phone_number_counts (tenant_id, branch_id, in_use, fax, numbers)
    VALUES (new.tenant_id, COALESCE(new.branch_id, 0), new.in_use, new.fax, 1)
    ON CONFLICT (tenant_id, branch_id, in_use, fax) DO UPDATE SET numbers = numbers + 1;
    UPDATE phone_numbers SET in_use = CASE WHEN sms_ext_id IS NOT NULL OR EXISTS (
        SELECT 1 FROM destinations d
        WHERE d.owner_type = 'phone_number' AND d.owner_id = new.id) THEN 1 ELSE 0 END
    WHERE id = new.id AND in_use <> CASE WHEN sms_ext_id IS NOT NULL OR EXISTS (
        SELECT 1 FROM destinations d
        WHERE d.owner_type = 'phone_number' AND d.owner_id = new.id) THEN 1 ELSE 0 END;
END;
CREATE TRIGGER phone_numbers_in_use_texts AFTER UPDATE OF sms_ext_id ON phone_numbers BEGIN
    UPDATE phone_numbers SET in_use = CASE WHEN new.sms_ext_id IS NOT NULL OR EXISTS (
        SELECT 1 FROM destinations d
        WHERE d.owner_type = 'phone_number' AND d.owner_id = new.id) THEN 1 ELSE 0 END
    WHERE id = new.id AND in_use <> CASE WHEN new.sms_ext_id IS NOT NULL OR EXISTS (
        SELECT 1 FROM destinations d
        WHERE d.owner_type = 'phone_number' AND d.owner_id = new.id) THEN 1 ELSE 0 END;
END;
CREATE TRIGGER destinations_number_in_use_insert AFTER INSERT ON destinations
WHEN new.owner_type = 'phone_number' BEGIN
    UPDATE phone_numbers SET in_use = 1 WHERE id = new.owner_id AND in_use <> 1;
END;
CREATE TRIGGER destinations_number_in_use_delete AFTER DELETE ON destinations
WHEN old.owner_type = 'phone_number' BEGIN
    UPDATE phone_numbers SET in_use = CASE WHEN sms_ext_id IS NOT NULL OR EXISTS (
        SELECT 1 FROM destinations d
        WHERE d.owner_type = 'phone_number' AND d.owner_id = old.owner_id) THEN 1 ELSE 0 END
    WHERE id = old.owner_id AND in_use <> CASE WHEN sms_ext_id IS NOT NULL OR EXISTS (
        SELECT 1 FROM destinations d
        WHERE d.owner_type = 'phone_number' AND d.owner_id = old.owner_id) THEN 1 ELSE 0 END;
END;
UPDATE phone_numbers SET in_use = CASE WHEN sms_ext_id IS NOT NULL OR EXISTS (
    SELECT 1 FROM destinations d
    WHERE d.owner_type = 'phone_number' AND d.owner_id = phone_numbers.id) THEN 1 ELSE 0 END;
