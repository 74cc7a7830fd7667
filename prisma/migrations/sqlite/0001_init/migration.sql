-- dotplan 0001_init (SQLite). Released migrations are never edited: add a new folder instead.

-- CreateTable
CREATE TABLE "plans" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "title" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "template" TEXT,
    "params" TEXT NOT NULL,
    "attributes" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "error" TEXT,
    "created_at" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "revisions" (
    "plan_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "dot" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "update_log" TEXT,
    "parent" INTEGER,
    "created_at" BIGINT NOT NULL,

    PRIMARY KEY ("plan_id", "number"),
    CONSTRAINT "revisions_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "nodes" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "plan_id" TEXT NOT NULL,
    "node_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "label" TEXT,
    "attributes" TEXT NOT NULL,
    "cluster" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "output" TEXT,
    "answer" TEXT,
    "error" TEXT,
    "run_after" BIGINT NOT NULL DEFAULT 0,
    "lease_owner" TEXT,
    "lease_token" TEXT,
    "lease_expires_at" BIGINT,
    "started_at" BIGINT,
    "finished_at" BIGINT,
    "updated_at" BIGINT NOT NULL,
    CONSTRAINT "nodes_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "edges" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "plan_id" TEXT NOT NULL,
    "from_node" TEXT NOT NULL,
    "to_node" TEXT NOT NULL,
    "when_match" TEXT,
    CONSTRAINT "edges_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "events" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "plan_id" TEXT NOT NULL,
    "node_id" TEXT,
    "driver" TEXT NOT NULL,
    "from_status" TEXT NOT NULL,
    "to_status" TEXT NOT NULL,
    "reason" TEXT,
    "at" BIGINT NOT NULL,
    CONSTRAINT "events_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "plans_status_idx" ON "plans"("status");

-- CreateIndex
CREATE INDEX "nodes_status_run_after_id_idx" ON "nodes"("status", "run_after", "id");

-- CreateIndex
CREATE INDEX "nodes_plan_id_status_idx" ON "nodes"("plan_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "nodes_plan_id_node_id_key" ON "nodes"("plan_id", "node_id");

-- CreateIndex
CREATE INDEX "edges_plan_id_from_node_idx" ON "edges"("plan_id", "from_node");

-- CreateIndex
CREATE INDEX "edges_plan_id_to_node_idx" ON "edges"("plan_id", "to_node");

-- CreateIndex
CREATE INDEX "events_plan_id_id_idx" ON "events"("plan_id", "id");
