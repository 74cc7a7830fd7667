-- dotplan 0011 (postgresql): the audit log has no foreign key to plans.
-- Released migrations are never edited: add a new folder instead.

-- Every step inserts events; the foreign key made each insert look its plan up and share-lock the
-- plan's row (under concurrency: MultiXacts). Events are only ever written with their plan, in the
-- same transaction, and plans are never deleted; a tool that deletes a plan deletes its events itself.
ALTER TABLE "events" DROP CONSTRAINT "events_plan_id_fkey";
