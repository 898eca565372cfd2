-- The console's refreshes of an API session, shared by every `serve` process (issue
-- 34): the first process to claim a refresh token (by its SHA-256, hex) spends it at the
-- API and leaves the answer here, sealed; another process given the same token meanwhile
-- — two requests of one browser landing on two processes — waits for that answer instead
-- of spending the token again, which the API would take for a stolen token and end the
-- session. A row is kept a few seconds (the console's grace window), then removed by the
-- next claim.
CREATE TABLE console_refreshes (
    token_hash TEXT PRIMARY KEY,
    -- Unix milliseconds.
    claimed_at BIGINT NOT NULL,
    -- Sealed (the console's own key); null while the refresh is under way.
    answer TEXT
);
CREATE INDEX console_refreshes_claimed_at ON console_refreshes (claimed_at);
