-- Leases of an engine job that ran out without a result (the engine holding it died or
-- hung): counted when the job is next claimable, and at the cap
-- (SWITCHBOARD_ENGINE_MAX_LEASES) the job fails with its record instead of being
-- reclaimed forever.
ALTER TABLE engine_jobs ADD COLUMN lapses BIGINT NOT NULL DEFAULT 0;
