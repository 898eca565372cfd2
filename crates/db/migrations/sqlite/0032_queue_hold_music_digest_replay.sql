-- A queue's hold music may be a music on hold of its tenant (issue 14): a playlist rather
-- than one file. Nullable; deleting a music on hold a queue names is refused (409, by
-- in_use::IN_USE), the foreign key standing behind that check.
ALTER TABLE queues ADD COLUMN music_on_hold_id INTEGER REFERENCES music_on_hold (id);
CREATE INDEX queues_music_on_hold_id ON queues (music_on_hold_id);

-- Provisioning Digest answers seen (issue 13): one row per (nonce, nc) accepted, so a
-- captured answer replayed within its nonce's five minutes is refused. Shared by every
-- process on the database; rows past their nonce's expiry (unix seconds) are pruned.
CREATE TABLE provisioning_digest_uses (
    nonce TEXT NOT NULL,
    nc TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (nonce, nc)
);
CREATE INDEX provisioning_digest_uses_expires_at ON provisioning_digest_uses (expires_at);
