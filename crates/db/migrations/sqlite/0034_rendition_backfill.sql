-- Telephony renditions for the media files stored before them (issue 14): files stored
-- before migration 0020, and Ogg Opus files stored before opusdec decoded them, have none.
-- The background work queues a `media.rendition` job for each (jobs, claimed under a
-- lease); the job makes the rendition, or records why the audio cannot have one.

-- Why the file has no rendition: the reason its audio could not be converted when the
-- backfill tried (NULL while it has one, or has not been tried). Such a file is not tried
-- again.
ALTER TABLE media_files ADD COLUMN rendition_error TEXT;

-- The files still owed a rendition: the backfill's sweep reads only these (none, once it
-- is done).
CREATE INDEX media_files_without_rendition ON media_files (id)
    WHERE rendition_key IS NULL AND rendition_error IS NULL;

-- At most one rendition job per media file, however many processes sweep at once: their
-- inserts meet this index (`ON CONFLICT DO NOTHING`). Its payload is `{"mediaFileId":N}`.
CREATE UNIQUE INDEX jobs_one_rendition_per_file ON jobs (payload)
    WHERE kind = 'media.rendition';
