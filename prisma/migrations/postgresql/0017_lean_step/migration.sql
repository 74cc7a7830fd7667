-- dotplan 0017 (postgresql): a lean step — the check that ends its one statement when what it relied on changed,
-- and indexes on nodes that a node ending done does not write.
-- Released migrations are never edited: add a new folder instead.

-- A step is written in one statement whose UPDATEs carry what the step expects of each row in their own WHERE
-- (src/store/sql/persist-postgres.ts); a row that no longer holds it is not written, and this check, given
-- whether every row was, fails the whole statement (nothing of it is kept) with SQLSTATE DP409, which the
-- writer reads as "the plan changed while the step was computed" and hands the step to its locking path.
CREATE FUNCTION "dotplan_step_holds"("holds" boolean) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$ BEGIN IF holds IS NOT TRUE THEN RAISE EXCEPTION 'dotplan: the plan changed while the step was computed; nothing was written' USING ERRCODE = 'DP409'; END IF; RETURN true; END $$;

-- Index diet: a node's update is never HOT (its status is indexed), so every index of nodes gets an entry per
-- move — unless the index is partial and the moved row falls outside it. The two indexes looked up by status
-- now hold only the rows they are looked up for: (status, run_after, id) the active statuses the sweeps and
-- the outlook read (leases running out, questions waiting, the next due work); (plan_id, status) every status
-- but done (a plan's failed, pending or active nodes; a plan's counts by status read the plan's rows). A
-- node that ends done adds two index entries instead of four; pending nodes of a new plan add one fewer.
DROP INDEX "nodes_status_run_after_id_idx";
CREATE INDEX "nodes_status_run_after_id_idx" ON "nodes"("status", "run_after", "id") WHERE "status" IN ('ready', 'running', 'awaiting_input');
DROP INDEX "nodes_plan_id_status_idx";
CREATE INDEX "nodes_plan_id_status_idx" ON "nodes"("plan_id", "status") WHERE "status" <> 'done';
