-- The object keys of a sent text's MMS media (a JSON array): the engine's claim and the
-- text's answers sign them afresh, so a text queued or read days later never carries a
-- link that has expired. `media_urls` keeps what ingest reported (a carrier's links) and,
-- for texts sent here, the links signed when the text was queued (its SMS_SENT event's).
ALTER TABLE sms_messages ADD COLUMN media_keys TEXT NOT NULL DEFAULT '[]';
