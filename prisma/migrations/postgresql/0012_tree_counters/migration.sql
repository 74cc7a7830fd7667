-- dotplan 0012 (postgresql): a root plan counts what its tree has made.
-- Released migrations are never edited: add a new folder instead.

-- Starting a child counted the tree's child plans twice (all of them, then the agent's), reading a
-- row per child made so far: a tree that runs for weeks made each start slower. The root's row now
-- keeps the count and, per agent, the last instance number given; a start reads and writes that row
-- under the tree's lock.
ALTER TABLE "plans" ADD COLUMN "children_made" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "plans" ADD COLUMN "instances_made" TEXT;

UPDATE "plans" AS r
SET "children_made" = c."made", "instances_made" = c."instances"
FROM (
    SELECT "root_plan_id", SUM("n") AS "made", json_object_agg("agent_code", "last")::text AS "instances"
    FROM (
        SELECT "root_plan_id", "agent_code", COUNT(*) AS "n", MAX(CAST(substr("instance", length("agent_code") + 2) AS INTEGER)) AS "last"
        FROM "plans" WHERE "root_plan_id" IS NOT NULL GROUP BY "root_plan_id", "agent_code"
    ) AS a
    GROUP BY "root_plan_id"
) AS c
WHERE r."id" = c."root_plan_id";
