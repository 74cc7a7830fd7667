-- dotplan 0011 (sqlite): the audit log has no foreign key to plans.
-- Released migrations are never edited: add a new folder instead.

-- Every step inserts events; a foreign key made each insert look its plan up (and, on PostgreSQL,
-- share-lock the plan's row). Events are only ever written with their plan, in the same transaction,
-- and plans are never deleted; a tool that deletes a plan deletes its events itself.
-- SQLite cannot drop a constraint: the table is made again, ids kept (AUTOINCREMENT carries on from them).
CREATE TABLE "events_new" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "plan_id" TEXT NOT NULL,
    "node_id" TEXT,
    "driver" TEXT NOT NULL,
    "from_status" TEXT NOT NULL,
    "to_status" TEXT NOT NULL,
    "reason" TEXT,
    "at" BIGINT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'status',
    "actor" TEXT,
    "detail" TEXT
);
INSERT INTO "events_new" ("id", "plan_id", "node_id", "driver", "from_status", "to_status", "reason", "at", "kind", "actor", "detail")
    SELECT "id", "plan_id", "node_id", "driver", "from_status", "to_status", "reason", "at", "kind", "actor", "detail" FROM "events";
DROP TABLE "events";
ALTER TABLE "events_new" RENAME TO "events";
CREATE INDEX "events_plan_id_id_idx" ON "events"("plan_id", "id");
