-- dotplan 0010 (sqlite): claims skip the nodes of plans that are not running at index level.
-- Released migrations are never edited: add a new folder instead.

-- 1 while the node's plan is not running (paused, awaiting review, ended): the claim's index leaves it out,
-- so that the ready nodes of a paused plan cost the claims of running plans nothing. Kept by the trigger
-- below when a plan's status changes, and set when a node is inserted; 1 only while its plan is not
-- running (the claim still checks the plan's status, so a node not marked is never claimed wrongly).
ALTER TABLE "nodes" ADD COLUMN "held" INTEGER NOT NULL DEFAULT 0;
UPDATE "nodes" SET "held" = 1 WHERE "status" IN ('pending', 'ready') AND "plan_id" IN (SELECT "id" FROM "plans" WHERE "status" <> 'running');
-- What claims scan: ready nodes of running plans, in due order.
CREATE INDEX "nodes_claimable_idx" ON "nodes"("run_after", "id") WHERE "status" = 'ready' AND "held" = 0;
-- A plan leaving running holds its nodes that could still run; back to running, it lets all of them go.
CREATE TRIGGER "plans_hold_nodes" AFTER UPDATE OF "status" ON "plans" WHEN (OLD."status" = 'running') <> (NEW."status" = 'running')
BEGIN UPDATE "nodes" SET "held" = CASE WHEN NEW."status" = 'running' THEN 0 ELSE 1 END WHERE "plan_id" = NEW."id" AND CASE WHEN NEW."status" = 'running' THEN "held" = 1 ELSE "held" = 0 AND "status" IN ('pending', 'ready') END; END;
