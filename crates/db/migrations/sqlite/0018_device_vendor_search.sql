-- Searching a partial MAC of 6 hex digits or more (a vendor's prefix, say) at 100,000
-- phones a tenant: a prefix match is a range of the MAC index and its number a sum of
-- counters; a match elsewhere in the MAC is found through the 6-digit windows after the
-- first digit. The trigram index served both but read every one of a vendor's phones,
-- twice (page and count).

-- The devices per MAC prefix of 6 to 11 digits, tenant and branch (0 for none).
CREATE TABLE device_prefix_counts (
    prefix TEXT NOT NULL,
    tenant_id INTEGER NOT NULL,
    branch_id INTEGER NOT NULL,
    devices INTEGER NOT NULL,
    PRIMARY KEY (prefix, tenant_id, branch_id)
) WITHOUT ROWID;

-- The 6-digit windows of each MAC starting at its 2nd to 7th digit.
CREATE TABLE device_mac_windows (
    win TEXT NOT NULL,
    device_id INTEGER NOT NULL,
    PRIMARY KEY (win, device_id)
) WITHOUT ROWID;

CREATE TRIGGER device_vendor_insert AFTER INSERT ON devices BEGIN
    INSERT INTO device_prefix_counts (prefix, tenant_id, branch_id, devices)
    SELECT substr(new.mac, 1, n.len), new.tenant_id, COALESCE(new.branch_id, 0), 1
    FROM (SELECT 6 AS len UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9
          UNION ALL SELECT 10 UNION ALL SELECT 11) AS n
    WHERE true
    ON CONFLICT (prefix, tenant_id, branch_id) DO UPDATE SET devices = devices + 1;
    INSERT OR IGNORE INTO device_mac_windows (win, device_id)
    SELECT substr(new.mac, n.start, 6), new.id
    FROM (SELECT 2 AS start UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5
          UNION ALL SELECT 6 UNION ALL SELECT 7) AS n;
END;
CREATE TRIGGER device_vendor_delete AFTER DELETE ON devices BEGIN
    UPDATE device_prefix_counts SET devices = devices - 1
    WHERE prefix IN (substr(old.mac, 1, 6), substr(old.mac, 1, 7), substr(old.mac, 1, 8),
                     substr(old.mac, 1, 9), substr(old.mac, 1, 10), substr(old.mac, 1, 11))
      AND tenant_id = old.tenant_id AND branch_id = COALESCE(old.branch_id, 0);
    DELETE FROM device_mac_windows
    WHERE win IN (substr(old.mac, 2, 6), substr(old.mac, 3, 6), substr(old.mac, 4, 6),
                  substr(old.mac, 5, 6), substr(old.mac, 6, 6), substr(old.mac, 7, 6))
      AND device_id = old.id;
END;
CREATE TRIGGER device_vendor_update AFTER UPDATE OF tenant_id, branch_id, mac ON devices BEGIN
    UPDATE device_prefix_counts SET devices = devices - 1
    WHERE prefix IN (substr(old.mac, 1, 6), substr(old.mac, 1, 7), substr(old.mac, 1, 8),
                     substr(old.mac, 1, 9), substr(old.mac, 1, 10), substr(old.mac, 1, 11))
      AND tenant_id = old.tenant_id AND branch_id = COALESCE(old.branch_id, 0);
    DELETE FROM device_mac_windows
    WHERE win IN (substr(old.mac, 2, 6), substr(old.mac, 3, 6), substr(old.mac, 4, 6),
                  substr(old.mac, 5, 6), substr(old.mac, 6, 6), substr(old.mac, 7, 6))
      AND device_id = old.id;
    INSERT INTO device_prefix_counts (prefix, tenant_id, branch_id, devices)
    SELECT substr(new.mac, 1, n.len), new.tenant_id, COALESCE(new.branch_id, 0), 1
    FROM (SELECT 6 AS len UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9
          UNION ALL SELECT 10 UNION ALL SELECT 11) AS n
    WHERE true
    ON CONFLICT (prefix, tenant_id, branch_id) DO UPDATE SET devices = devices + 1;
    INSERT OR IGNORE INTO device_mac_windows (win, device_id)
    SELECT substr(new.mac, n.start, 6), new.id
    FROM (SELECT 2 AS start UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5
          UNION ALL SELECT 6 UNION ALL SELECT 7) AS n;
END;

INSERT INTO device_prefix_counts (prefix, tenant_id, branch_id, devices)
SELECT substr(d.mac, 1, n.len), d.tenant_id, COALESCE(d.branch_id, 0), COUNT(*)
FROM devices d,
     (SELECT 6 AS len UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9
      UNION ALL SELECT 10 UNION ALL SELECT 11) AS n
GROUP BY 1, 2, 3;
INSERT OR IGNORE INTO device_mac_windows (win, device_id)
SELECT substr(d.mac, n.start, 6), d.id
FROM devices d,
     (SELECT 2 AS start UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5
      UNION ALL SELECT 6 UNION ALL SELECT 7) AS n;
