-- When a webhook's current run of failed attempts began (Unix seconds); null while its
-- deliveries succeed. A webhook failing without a break for 5 days is disabled.
ALTER TABLE webhooks ADD COLUMN failing_since INTEGER;
