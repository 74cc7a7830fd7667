-- dotplan 0008 (sqlite): a failed exchange with the model backs off before the next call for the plan, on every worker.
-- Released migrations are never edited: add a new folder instead.

-- A reflection plan's LLM work is not claimed before this time (epoch ms): set with each failed exchange
-- (exponential backoff with jitter, src/llm/planner.ts), cleared when the work is served. NULL: no wait.
ALTER TABLE "plans" ADD COLUMN "llm_not_before" BIGINT;
