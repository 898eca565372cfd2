-- A recording's own length, measured from its audio, beside the engine's figures of the
-- call (`duration`, `billsec`), which are facts and are no longer rewritten by it.
-- Until now attaching a recording overwrote `billsec` with that length (and `duration`
-- with the ringing plus it), so for the calls recorded so far `billsec` holds exactly
-- the measured length: it is copied here. The engine's talk time of those calls was lost.
ALTER TABLE calls ADD COLUMN recording_seconds BIGINT;
UPDATE calls SET recording_seconds = billsec WHERE recording_key IS NOT NULL;
