-- Text-to-speech: tenants' custom voices (presets over an engine voice), the voice a media
-- file was rendered with, and each media file's telephony rendition.

CREATE TABLE custom_voices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    -- An engine voice of the catalogue (`en-us`); checked when written.
    base_voice_id TEXT NOT NULL,
    rate INTEGER,
    pitch INTEGER,
    volume INTEGER,
    language TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX custom_voices_tenant_id ON custom_voices (tenant_id, id);

-- An engine voice id or `custom-{n}`; NULL for recorded audio.
ALTER TABLE media_files ADD COLUMN voice_id TEXT;
-- The 8 kHz 16-bit mono WAV made at upload; NULL only for files stored before renditions.
ALTER TABLE media_files ADD COLUMN rendition_key TEXT;
