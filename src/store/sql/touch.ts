/**
 * A plan's `updated_at` follows its nodes: every write that moves a node or records an event of the
 * plan — a claim, a step, a command — sets it to the database clock, after the node rows (so it is
 * never older than any of them). A plan whose status the same write moves has it set by that move.
 * Revisions set it with the revision's rows (revisions.ts).
 *
 * On PostgreSQL the plan row is touched inside the writing statement (`pgTouch`), and only if no
 * other transaction holds it (SKIP LOCKED): a writer never waits for the plan row, so steps of one
 * plan by several workers do not queue behind each other, and a step (which locks node rows first)
 * cannot deadlock with a command (which locks the plan row first). The holder is itself writing the
 * plan — a command's step or a plan move — and sets `updated_at` too (a step racing with a command on
 * the same plan may so leave it a moment older than that step's nodes).
 */

/**
 * SQLite, inside the write transaction (one writer at a time, so nothing is skipped): a step's plan
 * is touched by the statement that checks it is still in the status the step was computed on, run
 * after the node rows; a claim's plans by the statement that reads their columns for the worker.
 */
export const TOUCH_SQLITE = `UPDATE plans SET updated_at = NOW WHERE id = ? RETURNING status, revision`;

/**
 * PostgreSQL: CTEs for a statement whose other CTEs wrote the nodes; `ids` is a query for the plan
 * ids to touch (reading the writing CTEs' RETURNING, so the touch follows their rows). The ids are
 * gathered into an array first (`= ANY(ARRAY(…))`), so that the plan rows are found through the primary
 * key: as `IN (…)` and a join, the planner, expecting many ids from the CTEs, hashed them against a
 * scan of every plan — a chain step took 3.5 ms instead of 0.9 with 10,000 plans stored.
 */
export const pgTouch = (ids: string): string =>
  `pt AS (SELECT p.id FROM plans p WHERE p.id = ANY(ARRAY(${ids})) ORDER BY p.id FOR NO KEY UPDATE OF p SKIP LOCKED), ` +
  `ptu AS (UPDATE plans SET updated_at = NOW WHERE plans.id = ANY(ARRAY(SELECT id FROM pt)))`;
