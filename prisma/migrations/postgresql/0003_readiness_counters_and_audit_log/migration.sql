-- dotplan 0003 (PostgreSQL): readiness counters on nodes, and events as a general audit log.
-- Released migrations are never edited: add a new folder instead.

-- How many incoming edges of a node have a source that has not finished, and how many were taken
-- (the engine's incremental readiness, src/engine/readiness.ts).
ALTER TABLE "nodes" ADD COLUMN "waiting" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "nodes" ADD COLUMN "taken" INTEGER NOT NULL DEFAULT 0;

-- An event's kind (status, answer, revision, notice, review), who exactly (a worker id, a person),
-- and a JSON detail.
ALTER TABLE "events" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'status';
ALTER TABLE "events" ADD COLUMN "actor" TEXT;
ALTER TABLE "events" ADD COLUMN "detail" TEXT;

-- Counters of stored plans. Edges with a `when` condition are counted by the data step of this
-- migration (src/store/migrations-data.ts), which evaluates the condition as the engine does.
UPDATE "nodes" SET "waiting" = (SELECT count(*) FROM "edges" e JOIN "nodes" s ON s."plan_id" = e."plan_id" AND s."node_id" = e."from_node" WHERE e."plan_id" = "nodes"."plan_id" AND e."to_node" = "nodes"."node_id" AND s."status" NOT IN ('done', 'failed', 'skipped', 'cancelled'));
UPDATE "nodes" SET "taken" = (SELECT count(*) FROM "edges" e JOIN "nodes" s ON s."plan_id" = e."plan_id" AND s."node_id" = e."from_node" WHERE e."plan_id" = "nodes"."plan_id" AND e."to_node" = "nodes"."node_id" AND (s."status" = 'done' OR (s."status" = 'skipped' AND s."skipped_by" = 'operator')) AND (e."when_match" IS NULL OR e."when_match" = ''));
