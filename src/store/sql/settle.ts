import { ACTIVE_NODE_STATUSES } from './waits.js';
import type { PlanFacts } from '../../engine/plan-steps.js';
import { decodeText } from '../text.js';
import { marks, type Queryable } from './executor.js';

/** Failed nodes read for a plan's error: the first ones named, one more to know whether others follow. */
const FAILURES_READ = 4;

/**
 * What settling a plan needs to know, read after the write that may have finished it: of several
 * writers finishing a plan's last nodes at once, the one committing last sees every result. When
 * nothing is active and nodes failed (the plan is about to fail), the first ones to fail too, for
 * the plan's error — a second read on that path only.
 */
export async function planFacts(q: Queryable, planId: string): Promise<PlanFacts> {
  const facts: PlanFacts = await factsBesides(q, planId, []);
  if (facts.active || !facts.failed) return facts;
  const [count] = await q.all<{ n: number | string }>(`SELECT count(*) AS "n" FROM nodes WHERE plan_id = ? AND status = 'failed'`, [planId]);
  // In the order they failed, as the audit log recorded it: `finished_at` has millisecond steps, and
  // two nodes failing within one millisecond (or not) would be ordered differently from run to run.
  const first = await q.all<{ node: string; error: string | null }>(
    `SELECT n.node_id AS "node", n.error FROM nodes n LEFT JOIN (SELECT node_id, MAX(id) AS "last" FROM events ` +
      `WHERE plan_id = ? AND kind = 'status' AND to_status = 'failed' GROUP BY node_id) f ON f.node_id = n.node_id ` +
      `WHERE n.plan_id = ? AND n.status = 'failed' ORDER BY COALESCE(f."last", 0), n.id LIMIT ${FAILURES_READ}`,
    [planId, planId],
  );
  facts.failures = {
    count: Number(count?.n ?? first.length),
    first: first.map((f) => (f.error === null ? { node: f.node } : { node: f.node, error: decodeText(f.error) })),
  };
  return facts;
}

/**
 * Whether a plan has an active or a failed node besides `nodes` (the ones a write is about to move),
 * read before that write by a writer no other can interleave with (SQLite's; a child plan's under its
 * tree's lock): with those nodes' new statuses laid over, the facts the write leaves.
 */
export async function factsBesides(q: Queryable, planId: string, nodes: readonly string[]): Promise<{ active: boolean; failed: boolean }> {
  const besides = nodes.length > 0 ? ` AND node_id NOT IN (${marks(nodes.length)})` : '';
  const [row] = await q.all<{ active: boolean | number; failed: boolean | number }>(
    `SELECT EXISTS (SELECT 1 FROM nodes WHERE plan_id = ? AND status IN ${ACTIVE_NODE_STATUSES}${besides}) AS "active", ` +
      `EXISTS (SELECT 1 FROM nodes WHERE plan_id = ? AND status = 'failed'${besides}) AS "failed"`,
    [planId, ...nodes, planId, ...nodes],
  );
  return { active: row?.active === true || row?.active === 1, failed: row?.failed === true || row?.failed === 1 };
}
