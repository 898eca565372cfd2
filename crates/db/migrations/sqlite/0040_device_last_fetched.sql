-- When a desk phone last fetched its configuration file (issue 34: the console shows
-- it): set by each successful `GET /provisioning/{file}`, ISO 8601 like
-- `last_registered_at`; null until the phone first fetches.
ALTER TABLE devices ADD COLUMN last_fetched_at TEXT;
