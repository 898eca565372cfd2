-- A phone number's `in_use` is derived, never stored as sent (issue 29): 1 while
-- something routes to or from it — its calls' destination, or an extension its texts
-- reach — and 0 otherwise. Triggers keep it in the writing transaction whatever writes
-- the number, its destination list, or (ON DELETE SET NULL) the extension of its texts,
-- so `?inUse=0` never lists a number that rings somewhere; the counters of
-- `phone_number_counts` follow through their own trigger.
CREATE TRIGGER phone_numbers_in_use_insert AFTER INSERT ON phone_numbers BEGIN
    UPDATE phone_numbers SET in_use = CASE WHEN new.sms_ext_id IS NOT NULL OR EXISTS (
        SELECT 1 FROM destinations d
        WHERE d.owner_type = 'phone_number' AND d.owner_id = new.id) THEN 1 ELSE 0 END
    WHERE id = new.id;
END;
CREATE TRIGGER phone_numbers_in_use_update AFTER UPDATE OF sms_ext_id, in_use ON phone_numbers
WHEN new.in_use <> (CASE WHEN new.sms_ext_id IS NOT NULL OR EXISTS (
        SELECT 1 FROM destinations d
        WHERE d.owner_type = 'phone_number' AND d.owner_id = new.id) THEN 1 ELSE 0 END)
BEGIN
    UPDATE phone_numbers SET in_use = 1 - new.in_use WHERE id = new.id;
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
    WHERE id = old.owner_id;
END;
UPDATE phone_numbers SET in_use = CASE WHEN sms_ext_id IS NOT NULL OR EXISTS (
    SELECT 1 FROM destinations d
    WHERE d.owner_type = 'phone_number' AND d.owner_id = phone_numbers.id) THEN 1 ELSE 0 END;
