-- Who skipped a node: NULL (an untaken branch, skipped by the engine) or the driver that skipped it
-- by hand ("operator", "llm"). An operator's skip lets the plan go on past the node.
ALTER TABLE "nodes" ADD COLUMN "skipped_by" TEXT;
