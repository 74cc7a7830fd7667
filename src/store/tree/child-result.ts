import { REPLAN_REQUESTED } from '../../model/replan.js';
import { resolveReferences } from '../../execute/resolve-input.js';
import type { PlanStatus } from '../../model/types.js';
import type { AttemptResult } from '../../engine/attempts.js';
import type { Queryable } from '../sql/executor.js';
import { parseJsonObject } from '../rows.js';
import { decodeText } from '../text.js';

/**
 * What a child plan's end makes of its parent node's attempt (SPEC-level words in the README's
 * "Agents"): completed → done with the child's result (a reflection or ReAct child's final answer; a
 * workflow child's graph attribute `output`, references resolved, else its sink nodes' outputs as a
 * JSON object); failed → failed with the child's error and id (retryable per the node's retries,
 * except a re-plan request); cancelled → failed naming who cancelled it, not retried.
 */
export async function childResult(q: Queryable, childId: string, to: PlanStatus, by: { actor?: string; reason?: string }): Promise<AttemptResult> {
  const [plan] = await q.all<{ mode: string; attributes: string; params: string; result: string | null; error: string | null; instance: string | null }>(
    `SELECT mode, attributes, params, result, error, instance FROM plans WHERE id = ?`,
    [childId],
  );
  const name = `child plan ${childId}${plan?.instance ? ` (${plan.instance})` : ''}`;
  if (to === 'cancelled') {
    const who = by.actor ? ` by ${by.actor}` : '';
    return { kind: 'failed', error: `${name} was cancelled${who}${by.reason ? `: ${by.reason}` : ''}`, retryable: false };
  }
  if (to !== 'completed') {
    const error = decodeText(plan?.error) ?? `it ended ${to}`;
    const replan = error.startsWith(REPLAN_REQUESTED);
    return { kind: 'failed', error: replan ? error : `${name} failed: ${error}`, retryable: !replan };
  }
  if (plan?.result !== null && plan?.result !== undefined) return { kind: 'done', output: decodeText(plan.result) ?? '' };
  const nodes = await q.all<{ id: string; status: string; output: string | null; answer: string | null; sink: number | boolean }>(
    `SELECT n.node_id AS "id", n.status, n.output, n.answer, NOT EXISTS (SELECT 1 FROM edges e WHERE e.plan_id = n.plan_id AND e.from_node = n.node_id) AS "sink" ` +
      `FROM nodes n WHERE n.plan_id = ? ORDER BY n.id`,
    [childId],
  );
  const byId = new Map(nodes.map((n) => [n.id, { status: n.status, output: decodeText(n.output), answer: decodeText(n.answer) }]));
  const output = plan ? parseJsonObject(plan.attributes).output : undefined;
  if (output !== undefined) {
    try {
      return { kind: 'done', output: resolveReferences(output, { params: plan ? parseJsonObject(plan.params) : {}, nodes: (id) => byId.get(id) }) };
    } catch (error) {
      return {
        kind: 'failed',
        error: `${name}: its output="${output}" could not be resolved: ${error instanceof Error ? error.message : String(error)}`,
        retryable: false,
      };
    }
  }
  const sinks = nodes.filter((n) => n.sink === true || n.sink === 1);
  return { kind: 'done', output: JSON.stringify(Object.fromEntries(sinks.map((n) => [n.id, decodeText(n.output) ?? decodeText(n.answer) ?? null]))) };
}
