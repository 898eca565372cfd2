-- Searching a partial MAC of 6 hex digits or more (a vendor's prefix, say) at 100,000
-- phones a tenant: a prefix match is a range of the MAC index and its number a sum of
-- counters; a match elsewhere in the MAC is found through the 6-digit windows after the
-- first digit. The trigram index served both but read every one of a vendor's phones,
-- twice (page and count).

-- The devices per MAC prefix of 6 to 11 digits, tenant and branch (0 for none).
CREATE TABLE device_prefix_counts (
    prefix TEXT COLLATE "C" NOT NULL,
    tenant_id BIGINT NOT NULL,
    branch_id BIGINT NOT NULL,
    devices BIGINT NOT NULL,
    PRIMARY KEY (prefix, tenant_id, branch_id)
);

-- The 6-digit windows of each MAC starting at its 2nd to 7th digit.
CREATE TABLE device_mac_windows (
    win TEXT COLLATE "C" NOT NULL,
    device_id BIGINT NOT NULL,
    PRIMARY KEY (win, device_id)
);

CREATE FUNCTION device_vendor_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE device_prefix_counts SET devices = devices - 1
        WHERE prefix IN (SELECT substr(OLD.mac, 1, len) FROM generate_series(6, 11) AS len)
          AND tenant_id = OLD.tenant_id AND branch_id = COALESCE(OLD.branch_id, 0);
        DELETE FROM device_mac_windows
        WHERE win IN (SELECT substr(OLD.mac, start, 6) FROM generate_series(2, 7) AS start)
          AND device_id = OLD.id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO device_prefix_counts (prefix, tenant_id, branch_id, devices)
        SELECT substr(NEW.mac, 1, len), NEW.tenant_id, COALESCE(NEW.branch_id, 0), 1
        FROM generate_series(6, 11) AS len
        ON CONFLICT (prefix, tenant_id, branch_id)
        DO UPDATE SET devices = device_prefix_counts.devices + 1;
        INSERT INTO device_mac_windows (win, device_id)
        SELECT DISTINCT substr(NEW.mac, start, 6), NEW.id FROM generate_series(2, 7) AS start
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER device_vendor_track
AFTER INSERT OR DELETE OR UPDATE OF tenant_id, branch_id, mac ON devices
FOR EACH ROW EXECUTE FUNCTION device_vendor_track();

INSERT INTO device_prefix_counts (prefix, tenant_id, branch_id, devices)
SELECT substr(d.mac, 1, len), d.tenant_id, COALESCE(d.branch_id, 0), COUNT(*)
FROM devices d, generate_series(6, 11) AS len
GROUP BY 1, 2, 3;
INSERT INTO device_mac_windows (win, device_id)
SELECT DISTINCT substr(d.mac, start, 6), d.id FROM devices d, generate_series(2, 7) AS start;
