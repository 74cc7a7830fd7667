-- dotplan 0012 (sqlite): a root plan counts what its tree has made.
-- Released migrations are never edited: add a new folder instead.

-- Starting a child counted the tree's child plans twice (all of them, then the agent's), reading a
-- row per child made so far: a tree that runs for weeks made each start slower. The root's row now
-- keeps the count and, per agent, the last instance number given; a start reads and writes that row.
ALTER TABLE "plans" ADD COLUMN "children_made" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "plans" ADD COLUMN "instances_made" TEXT;

UPDATE "plans"
SET "children_made" = (SELECT COUNT(*) FROM "plans" AS c WHERE c."root_plan_id" = "plans"."id"),
    "instances_made" = (
        SELECT json_group_object(a."agent_code", a."last") FROM (
            SELECT "root_plan_id", "agent_code", MAX(CAST(substr("instance", length("agent_code") + 2) AS INTEGER)) AS "last"
            FROM "plans" WHERE "root_plan_id" IS NOT NULL GROUP BY "root_plan_id", "agent_code"
        ) AS a WHERE a."root_plan_id" = "plans"."id"
    )
WHERE EXISTS (SELECT 1 FROM "plans" AS c WHERE c."root_plan_id" = "plans"."id");
