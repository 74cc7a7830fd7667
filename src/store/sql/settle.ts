import type { PlanFacts } from '../../engine/plan-steps.js';
import type { Queryable } from './executor.js';

/**
 * What settling a plan needs to know, read after the write that may have finished it: of several
 * writers finishing a plan's last nodes at once, the one committing last sees every result.
 */
export async function planFacts(q: Queryable, planId: string): Promise<PlanFacts> {
  const [row] = await q.all<{ active: boolean | number; failed: boolean | number }>(
    `SELECT EXISTS (SELECT 1 FROM nodes WHERE plan_id = ? AND status IN ('pending', 'ready', 'running', 'awaiting_input')) AS "active", ` +
      `EXISTS (SELECT 1 FROM nodes WHERE plan_id = ? AND status = 'failed') AS "failed"`,
    [planId, planId],
  );
  return { active: row?.active === true || row?.active === 1, failed: row?.failed === true || row?.failed === 1 };
}
