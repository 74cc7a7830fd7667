-- dotplan 0004 (sqlite): the LLM's work on reflection plans, and every call made to the model.
-- Released migrations are never edited: add a new folder instead.

-- LLM work of a plan (src/store/llm-queue.ts): how many requests for a rewrite (or the final
-- answer) are not served yet, the lease of the worker serving them, consecutive refused replies,
-- tokens spent, and the final answer.
ALTER TABLE "plans" ADD COLUMN "llm_due" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "plans" ADD COLUMN "llm_lease_owner" TEXT;
ALTER TABLE "plans" ADD COLUMN "llm_lease_token" TEXT;
ALTER TABLE "plans" ADD COLUMN "llm_lease_expires_at" BIGINT;
ALTER TABLE "plans" ADD COLUMN "llm_attempts" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "plans" ADD COLUMN "tokens_used" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "plans" ADD COLUMN "result" TEXT;

-- One call to the model: what for, the prompt and the reply, tokens, time, and what came of it.
CREATE TABLE "llm_calls" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "plan_id" TEXT NOT NULL,
    "node_id" TEXT,
    "purpose" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "reply" TEXT,
    "prompt_tokens" INTEGER NOT NULL DEFAULT 0,
    "completion_tokens" INTEGER NOT NULL DEFAULT 0,
    "ms" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "diagnostics" TEXT,
    "at" BIGINT NOT NULL,
    CONSTRAINT "llm_calls_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "llm_calls_plan_id_id_idx" ON "llm_calls"("plan_id", "id");
CREATE INDEX "plans_mode_status_llm_due_idx" ON "plans"("mode", "status", "llm_due");
