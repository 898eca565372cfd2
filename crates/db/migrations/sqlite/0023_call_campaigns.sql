-- Call campaigns: a tenant's outbound calling lists, their records (numbers to call, each
-- with its attempts and outcome), the do-not-call (opt-out) lists at platform, tenant and
-- campaign level, and the tenant's call outcomes (dispositions). Times are ISO 8601 UTC
-- text with seconds (`2026-11-25T08:00:00Z`), so they compare as text on both backends.

-- The country a tenant's national numbers are read in (ISO 3166 alpha-2).
ALTER TABLE tenants ADD COLUMN default_country TEXT NOT NULL DEFAULT 'US';

CREATE TABLE call_outcomes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    ends_record INTEGER NOT NULL DEFAULT 0,
    opts_out INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT call_outcomes_name_unique UNIQUE (tenant_id, name)
);

CREATE TABLE call_campaigns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    branch_id INTEGER REFERENCES branches (id),
    name TEXT NOT NULL,
    caller_id_number TEXT NOT NULL,
    -- Calling window: weekdays as a comma list (0 Sunday .. 6 Saturday), local HH:MM.
    window_days TEXT NOT NULL,
    window_from TEXT NOT NULL,
    window_to TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    max_attempts INTEGER NOT NULL,
    retry_delay_minutes INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'draft',
    start_at TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX call_campaigns_tenant_id ON call_campaigns (tenant_id, id);
CREATE INDEX call_campaigns_status ON call_campaigns (status, id);

CREATE TABLE campaign_records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    campaign_id INTEGER NOT NULL REFERENCES call_campaigns (id) ON DELETE CASCADE,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    number TEXT NOT NULL,
    name TEXT,
    -- pending, dialing, completed, failed, opted-out, skipped
    status TEXT NOT NULL DEFAULT 'pending',
    outcome TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_attempt_at TEXT,
    next_attempt_at TEXT,
    created_at TEXT NOT NULL,
    -- One record per number per campaign: concurrent imports of a number resolve here.
    CONSTRAINT campaign_records_number_unique UNIQUE (campaign_id, number)
);
CREATE INDEX campaign_records_campaign_id ON campaign_records (campaign_id, id);
CREATE INDEX campaign_records_due ON campaign_records (campaign_id, status, next_attempt_at);

CREATE TABLE opt_outs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    -- platform, tenant or campaign
    level TEXT NOT NULL,
    tenant_id INTEGER REFERENCES tenants (id),
    campaign_id INTEGER REFERENCES call_campaigns (id) ON DELETE CASCADE,
    -- `platform`, `tenant:{id}` or `campaign:{id}`: one entry per number per list.
    list_key TEXT NOT NULL,
    number TEXT NOT NULL,
    source TEXT NOT NULL,
    reason TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    CONSTRAINT opt_outs_number_unique UNIQUE (list_key, number)
);
CREATE INDEX opt_outs_number ON opt_outs (number);
CREATE INDEX opt_outs_tenant_id ON opt_outs (tenant_id, id);
