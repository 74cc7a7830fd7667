-- dotplan 0007 (postgresql): one "since" for everything that waits for a person, and when the wait times out.
-- Released migrations are never edited: add a new folder instead.

-- When the node last moved into awaiting_input, or the plan started waiting for its reviewer: written in
-- the same statement as the move (src/store/sql/persist-*.ts), with remind_at and timeout_at cleared.
-- Inbox, notices, reminders, answerTimeout and reviewTimeout all count from it.
ALTER TABLE "nodes" ADD COLUMN "waiting_since" BIGINT;
ALTER TABLE "plans" ADD COLUMN "waiting_since" BIGINT;
-- When the wait times out (answerTimeout, reviewTimeout), worked out by the first worker that sees the
-- wait (253402300799999, the end of 9999: never); NULL: not worked out yet (src/store/attention-queue.ts).
ALTER TABLE "nodes" ADD COLUMN "timeout_at" BIGINT;
ALTER TABLE "plans" ADD COLUMN "timeout_at" BIGINT;

-- What waits now: since the event that moved it into waiting (its last update, if the log has none).
UPDATE "nodes" SET "waiting_since" = COALESCE((SELECT MAX(e."at") FROM "events" e WHERE e."plan_id" = "nodes"."plan_id" AND e."node_id" = "nodes"."node_id" AND e."kind" = 'status' AND e."to_status" = 'awaiting_input'), "updated_at") WHERE "status" = 'awaiting_input';
UPDATE "plans" SET "waiting_since" = COALESCE((SELECT MAX(e."at") FROM "events" e WHERE e."plan_id" = "plans"."id" AND e."node_id" IS NULL AND e."kind" = 'status' AND e."to_status" = 'awaiting_review'), "updated_at") WHERE "status" = 'awaiting_review';
