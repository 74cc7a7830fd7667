-- dotplan 0016 (sqlite): agent nodes whose work is a task of an external agent (A2A).
-- Released migrations are never edited: add a new folder instead.

-- The remote task an agent node stands for (JSON: agent, taskId, contextId, state, the ids of the messages
-- sent), written under the node's lease before and after each exchange, so that a worker taking the node
-- over resumes that task instead of sending it again.
ALTER TABLE "nodes" ADD COLUMN "remote_task" TEXT;

-- The outbox of cancels owed to external agents: a row is written in the same transaction as the move
-- that ends a node whose remote task is open (the plan cancelled, the node skipped), by the trigger below,
-- and delivered by any worker with retries (src/agents/a2a/cancels.ts).
CREATE TABLE "remote_cancels" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "plan_id" TEXT NOT NULL,
    "node_id" TEXT NOT NULL,
    "remote_task" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_at" BIGINT NOT NULL,
    "last_error" TEXT,
    "created_at" BIGINT NOT NULL
);
CREATE INDEX "remote_cancels_next_at_idx" ON "remote_cancels"("next_at");
CREATE TRIGGER "nodes_remote_cancel" AFTER UPDATE OF "status" ON "nodes"
WHEN NEW."remote_task" IS NOT NULL AND NEW."status" IN ('cancelled', 'skipped') AND OLD."status" IN ('ready', 'running', 'awaiting_input')
BEGIN INSERT INTO "remote_cancels" ("plan_id", "node_id", "remote_task", "next_at", "created_at")
VALUES (NEW."plan_id", NEW."node_id", NEW."remote_task", CAST(unixepoch('subsec') * 1000 AS INTEGER), CAST(unixepoch('subsec') * 1000 AS INTEGER)); END;
