-- Phone numbers (DIDs): provisioned to a tenant by platform and partner admins, their
-- routing settings edited by the tenant. A number belongs to one tenant platform-wide.

CREATE TABLE phone_numbers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    branch_id INTEGER REFERENCES branches (id),
    sms_ext_id INTEGER REFERENCES extensions (id) ON DELETE SET NULL,
    number TEXT NOT NULL CONSTRAINT phone_numbers_number_unique UNIQUE,
    in_use INTEGER NOT NULL DEFAULT 0,
    registered_cnam TEXT NOT NULL DEFAULT '',
    di_comment_name TEXT NOT NULL DEFAULT '',
    recording TEXT NOT NULL DEFAULT 'no',
    fax TEXT NOT NULL DEFAULT 'no',
    fax_email TEXT NOT NULL DEFAULT '',
    fax_store TEXT NOT NULL DEFAULT 'no',
    name_prefix TEXT NOT NULL DEFAULT '',
    unconditional_status TEXT NOT NULL DEFAULT '',
    email_recording TEXT NOT NULL DEFAULT 'no',
    store_and_forward_number TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
);
-- Every list filter and sort is served from an index scoped by tenant.
CREATE INDEX phone_numbers_tenant_id ON phone_numbers (tenant_id, id);
CREATE INDEX phone_numbers_tenant_number ON phone_numbers (tenant_id, number);
CREATE INDEX phone_numbers_tenant_branch ON phone_numbers (tenant_id, branch_id, id);
CREATE INDEX phone_numbers_tenant_in_use ON phone_numbers (tenant_id, in_use, id);
CREATE INDEX phone_numbers_tenant_fax ON phone_numbers (tenant_id, fax, id);
