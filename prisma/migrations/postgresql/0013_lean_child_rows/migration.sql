-- dotplan 0013 (postgresql): a plan's row writes fewer index entries; an agent node's child is a plan made on a worker's path.
-- Released migrations are never edited: add a new folder instead.

-- The LLM queue looks up plans with requests due (llm_due > 0) only: a plan without any (a workflow plan,
-- a reflection plan between exchanges) has no entry, so inserting it and ending it add nothing to this index.
DROP INDEX "plans_mode_status_llm_due_idx";
CREATE INDEX "plans_mode_status_llm_due_idx" ON "plans"("mode", "status", "llm_due") WHERE "llm_due" > 0;

-- Plans are looked up by status only while they wait for a review (the inbox, reminders, timeouts; a listing
-- by status reads the table): a plan that never waits for one (an agent node's child) has no entry.
DROP INDEX "plans_status_idx";
CREATE INDEX "plans_status_idx" ON "plans"("status") WHERE "status" = 'awaiting_review';
