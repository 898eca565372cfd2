-- The lists of paging groups, IVRs and extensions page a tenant's rows in id order: an
-- index on (tenant_id, id) serves a page from the index, where the tenant's unique
-- (tenant_id, number) index left every page sorting all the tenant's rows first (25 ms a
-- page at 100,000 paging groups, bench/list_latency.py --suite routing; issue 32).
CREATE INDEX paging_groups_tenant_id ON paging_groups (tenant_id, id);
CREATE INDEX ivrs_tenant_id ON ivrs (tenant_id, id);
CREATE INDEX extensions_tenant_id ON extensions (tenant_id, id);
