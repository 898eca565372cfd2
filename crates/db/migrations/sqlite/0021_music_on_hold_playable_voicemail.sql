-- Music on hold: a tenant's named playlists of media files (kept in `destinations` as
-- MEDIA_FILE entries, owner type `music_on_hold`, list `files`), at most one of them the
-- tenant's default — enforced here by a partial unique index, not by a read before the
-- write, so two requests making two defaults at once cannot both succeed.

CREATE TABLE music_on_hold (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    -- NULL: the whole tenant's.
    branch_id INTEGER REFERENCES branches (id),
    name TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('sequential', 'random', 'randomStart')),
    is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX music_on_hold_tenant_id ON music_on_hold (tenant_id, id);
CREATE UNIQUE INDEX music_on_hold_one_default ON music_on_hold (tenant_id) WHERE is_default = 1;

-- Voicemail left in GSM (Asterisk's `gsm` and `wav49`), which no browser plays, is
-- served as the PCM WAV made from it when it was recorded (`audio_key`); the audio as the
-- engine wrote it is kept here.
ALTER TABLE voicemail_messages ADD COLUMN original_key TEXT;
ALTER TABLE voicemail_messages ADD COLUMN original_type TEXT;

-- Desk phones authenticate their provisioning fetches with HTTP Digest (RFC 7616) too:
-- H(username:realm:password) for MD5 and SHA-256, hex, made with the password (NULL for a
-- device whose password predates Digest: Basic only until it is rotated).
ALTER TABLE devices ADD COLUMN provisioning_digest_md5_secret TEXT;
ALTER TABLE devices ADD COLUMN provisioning_digest_sha256_secret TEXT;
