-- Phone-number counts per tenant, branch (0 for none), in-use and fax state, kept by
-- triggers in the writing transaction: a list's totalRecords reads a handful of counters
-- instead of counting a hundred thousand rows (number and text searches still count
-- their matches).
CREATE TABLE phone_number_counts (
    tenant_id INTEGER NOT NULL,
    branch_id INTEGER NOT NULL,
    in_use INTEGER NOT NULL,
    fax TEXT NOT NULL,
    numbers INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, branch_id, in_use, fax)
);
CREATE TRIGGER phone_number_counts_insert AFTER INSERT ON phone_numbers BEGIN
    INSERT INTO phone_number_counts (tenant_id, branch_id, in_use, fax, numbers)
    VALUES (new.tenant_id, COALESCE(new.branch_id, 0), new.in_use, new.fax, 1)
    ON CONFLICT (tenant_id, branch_id, in_use, fax) DO UPDATE SET numbers = numbers + 1;
END;
CREATE TRIGGER phone_number_counts_delete AFTER DELETE ON phone_numbers BEGIN
    UPDATE phone_number_counts SET numbers = numbers - 1
    WHERE tenant_id = old.tenant_id AND branch_id = COALESCE(old.branch_id, 0)
      AND in_use = old.in_use AND fax = old.fax;
END;
CREATE TRIGGER phone_number_counts_update AFTER UPDATE OF tenant_id, branch_id, in_use, fax ON phone_numbers BEGIN
    UPDATE phone_number_counts SET numbers = numbers - 1
    WHERE tenant_id = old.tenant_id AND branch_id = COALESCE(old.branch_id, 0)
      AND in_use = old.in_use AND fax = old.fax;
    INSERT INTO phone_number_counts (tenant_id, branch_id, in_use, fax, numbers)
    VALUES (new.tenant_id, COALESCE(new.branch_id, 0), new.in_use, new.fax, 1)
    ON CONFLICT (tenant_id, branch_id, in_use, fax) DO UPDATE SET numbers = numbers + 1;
END;
INSERT INTO phone_number_counts (tenant_id, branch_id, in_use, fax, numbers)
SELECT tenant_id, COALESCE(branch_id, 0), in_use, fax, COUNT(*)
FROM phone_numbers WHERE true GROUP BY tenant_id, COALESCE(branch_id, 0), in_use, fax;
