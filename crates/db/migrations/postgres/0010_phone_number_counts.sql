-- Phone-number counts per tenant, branch (0 for none), in-use and fax state, kept by a
-- trigger in the writing transaction: a list's totalRecords reads a handful of counters
-- instead of counting a hundred thousand rows (number and text searches still count
-- their matches).
CREATE TABLE phone_number_counts (
    tenant_id BIGINT NOT NULL,
    branch_id BIGINT NOT NULL,
    in_use BIGINT NOT NULL,
    fax TEXT NOT NULL,
    numbers BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, branch_id, in_use, fax)
);
CREATE FUNCTION phone_number_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE phone_number_counts SET numbers = numbers - 1
        WHERE tenant_id = OLD.tenant_id AND branch_id = COALESCE(OLD.branch_id, 0)
          AND in_use = OLD.in_use AND fax = OLD.fax;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO phone_number_counts (tenant_id, branch_id, in_use, fax, numbers)
        VALUES (NEW.tenant_id, COALESCE(NEW.branch_id, 0), NEW.in_use, NEW.fax, 1)
        ON CONFLICT (tenant_id, branch_id, in_use, fax)
        DO UPDATE SET numbers = phone_number_counts.numbers + 1;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER phone_number_counts_track
    AFTER INSERT OR DELETE OR UPDATE OF tenant_id, branch_id, in_use, fax ON phone_numbers
    FOR EACH ROW EXECUTE FUNCTION phone_number_counts_track();
INSERT INTO phone_number_counts (tenant_id, branch_id, in_use, fax, numbers)
SELECT tenant_id, COALESCE(branch_id, 0), in_use, fax, COUNT(*)
FROM phone_numbers GROUP BY tenant_id, COALESCE(branch_id, 0), in_use, fax;
