-- dotplan 0009 (sqlite): the plan stack — an agent node runs a child plan; agent instances keep their own histories.
-- Released migrations are never edited: add a new folder instead.

-- A child plan names the agent node that runs it (plan, node, attempt: one child per attempt), its tree's root
-- and its depth (1 for a root's child), the agent it runs as and its instance id (<agentCode>_<NNN>, numbered per root).
-- NULL / 0 for a root plan.
ALTER TABLE "plans" ADD COLUMN "parent_plan_id" TEXT;
ALTER TABLE "plans" ADD COLUMN "parent_node_id" TEXT;
ALTER TABLE "plans" ADD COLUMN "parent_attempt" INTEGER;
ALTER TABLE "plans" ADD COLUMN "root_plan_id" TEXT;
ALTER TABLE "plans" ADD COLUMN "depth" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "plans" ADD COLUMN "agent_code" TEXT;
ALTER TABLE "plans" ADD COLUMN "instance" TEXT;
-- 1 while the plan is paused because an ancestor was (resume un-pauses only these).
ALTER TABLE "plans" ADD COLUMN "cascade_paused" INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX "plans_parent_attempt_key" ON "plans"("parent_plan_id", "parent_node_id", "parent_attempt");
CREATE UNIQUE INDEX "plans_root_instance_key" ON "plans"("root_plan_id", "instance");

-- A running agent node waits on this child plan: no lease, no polling; the child's last step finishes it.
ALTER TABLE "nodes" ADD COLUMN "child_plan_id" TEXT;

-- An agent instance's conversation with the model, one row per message, in order (seq from 1).
CREATE TABLE "agent_messages" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "plan_id" TEXT NOT NULL, "seq" INTEGER NOT NULL, "message" TEXT NOT NULL, "created_at" BIGINT NOT NULL);
CREATE UNIQUE INDEX "agent_messages_plan_id_seq_key" ON "agent_messages"("plan_id", "seq");
