-- Each finished `switchboard backup`, so that every process (on any host) can report the
-- last backup's age in its metrics and an alert can fire when backups stop (issue 30).
CREATE TABLE backups (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    finished_at INTEGER NOT NULL,
    database_bytes INTEGER NOT NULL
);
