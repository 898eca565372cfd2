-- Seconds a queue's member rests after a call before the queue rings them again
-- (queues' wrapUpSeconds, 0 to 3600); 0, the default, rings them at once.
ALTER TABLE queues ADD COLUMN wrap_up_seconds BIGINT NOT NULL DEFAULT 0;
