-- dotplan 0013 (sqlite): a plan's row and revision 1 write fewer pages; an agent node's child is a plan made on a worker's path.
-- Released migrations are never edited: add a new folder instead.

-- The LLM queue looks up plans with requests due (llm_due > 0) only: a plan without any (a workflow plan,
-- a reflection plan between exchanges) has no entry, so inserting it and ending it write no page of this index.
DROP INDEX "plans_mode_status_llm_due_idx";
CREATE INDEX "plans_mode_status_llm_due_idx" ON "plans"("mode", "status", "llm_due") WHERE "llm_due" > 0;

-- Plans are looked up by status only while they wait for a review (the inbox, reminders, timeouts; a listing
-- by status reads the table): a plan that never waits for one (an agent node's child) has no entry.
DROP INDEX "plans_status_idx";
CREATE INDEX "plans_status_idx" ON "plans"("status") WHERE "status" = 'awaiting_review';

-- Revisions are read by (plan_id, number) only: kept in that key's order (WITHOUT ROWID), a revision is one
-- b-tree entry instead of a row and an entry in the primary key's index.
CREATE TABLE "revisions_new" (
    "plan_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "dot" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "update_log" TEXT,
    "parent" INTEGER,
    "created_at" BIGINT NOT NULL,

    PRIMARY KEY ("plan_id", "number"),
    CONSTRAINT "revisions_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans" ("id") ON DELETE CASCADE ON UPDATE CASCADE
) WITHOUT ROWID;
INSERT INTO "revisions_new" ("plan_id", "number", "dot", "author", "update_log", "parent", "created_at")
SELECT "plan_id", "number", "dot", "author", "update_log", "parent", "created_at" FROM "revisions";
DROP TABLE "revisions";
ALTER TABLE "revisions_new" RENAME TO "revisions";
