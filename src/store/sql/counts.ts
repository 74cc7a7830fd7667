import type { ActiveCounts } from '../types.js';
import type { Queryable } from './executor.js';

/** What keeps a worker busy (for `--until-idle`), over running plans, in one indexed scan. */
const COUNTS =
  `SELECT ` +
  `COALESCE(SUM(CASE WHEN n.status = 'ready' AND n.run_after <= NOW THEN 1 ELSE 0 END), 0) AS "ready", ` +
  `COALESCE(SUM(CASE WHEN n.status = 'running' THEN 1 ELSE 0 END), 0) AS "running", ` +
  `COALESCE(SUM(CASE WHEN n.status = 'ready' AND n.run_after > NOW THEN 1 ELSE 0 END), 0) AS "retryPending", ` +
  `COALESCE(SUM(CASE WHEN n.status = 'awaiting_input' THEN 1 ELSE 0 END), 0) AS "awaitingInput", ` +
  `MIN(CASE WHEN n.status = 'ready' AND n.run_after > NOW THEN n.run_after END) AS "nextDueAt" ` +
  `FROM nodes n JOIN plans p ON p.id = n.plan_id WHERE n.status IN ('ready', 'running', 'awaiting_input') AND p.status = 'running'`;

export async function countActive(q: Queryable): Promise<ActiveCounts> {
  const [row] = await q.all<{ ready: number; running: number; retryPending: number; awaitingInput: number; nextDueAt: number | null }>(COUNTS);
  const counts: ActiveCounts = {
    ready: Number(row?.ready ?? 0),
    running: Number(row?.running ?? 0),
    retryPending: Number(row?.retryPending ?? 0),
    awaitingInput: Number(row?.awaitingInput ?? 0),
  };
  if (row?.nextDueAt !== null && row?.nextDueAt !== undefined) counts.nextDueAt = new Date(Number(row.nextDueAt));
  return counts;
}
