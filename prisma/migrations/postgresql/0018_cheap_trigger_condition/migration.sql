-- dotplan 0018 (postgresql): the remote-cancel trigger of 0016 asks the cheap half of its condition first.
-- Released migrations are never edited: add a new folder instead.

-- PostgreSQL reads a row trigger's WHEN condition from its stored text in every statement that updates the
-- table, before the first row: 0016's three-part condition cost every step's statement (which updates
-- nodes) about a tenth of its server time on this project's machines. The condition is now only whether
-- the node has a remote task at all (rarely: nodes of external agents), and the function checks the move.
CREATE OR REPLACE FUNCTION "dotplan_remote_cancel"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW."status" IN ('cancelled', 'skipped') AND OLD."status" IN ('ready', 'running', 'awaiting_input') THEN INSERT INTO "remote_cancels" ("plan_id", "node_id", "remote_task", "next_at", "created_at") VALUES (NEW."plan_id", NEW."node_id", NEW."remote_task", (extract(epoch FROM clock_timestamp()) * 1000)::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint); END IF; RETURN NULL; END $$;
DROP TRIGGER "nodes_remote_cancel" ON "nodes";
CREATE TRIGGER "nodes_remote_cancel" AFTER UPDATE OF "status" ON "nodes" FOR EACH ROW WHEN (NEW."remote_task" IS NOT NULL) EXECUTE FUNCTION "dotplan_remote_cancel"();
