-- dotplan 0005 (sqlite): when the next notice of a question or a review is due.
-- Released migrations are never edited: add a new folder instead.

-- NULL: never announced (due at once). Workers claim a due notice by moving this time forward in one
-- conditional UPDATE, so that however many workers run, each notice is sent once (src/store/attention-queue.ts).
ALTER TABLE "nodes" ADD COLUMN "remind_at" BIGINT;
ALTER TABLE "plans" ADD COLUMN "remind_at" BIGINT;
