import { REPLAN_REQUESTED } from '../../model/replan.js';
import { resolveReferences } from '../../execute/resolve-input.js';
import type { PlanStatus } from '../../model/types.js';
import type { AttemptResult } from '../../engine/attempts.js';
import type { Queryable } from '../sql/executor.js';
import { parseJsonObject } from '../rows.js';
import { decodeText } from '../text.js';

/** A child plan's end as its parent node's step needs it, with the node's link to it. */
export interface ChildEnd {
  mode: string;
  attributes: string;
  params: string;
  result: string | null;
  error: string | null;
  instance: string | null;
  /** The parent node: its status, the child it waits on, its lease (none while it waits). */
  status: string;
  child: string | null;
  leased: string | null;
}

/** The child plan's end and its parent node's link to it, in one read (undefined: no such child, or its node is gone). */
export async function childLink(q: Queryable, childId: string): Promise<ChildEnd | undefined> {
  const [row] = await q.all<ChildEnd>(
    `SELECT c.mode, c.attributes, c.params, c.result, c.error, c.instance, n.status, n.child_plan_id AS "child", n.lease_token AS "leased" ` +
      `FROM plans c JOIN nodes n ON n.plan_id = c.parent_plan_id AND n.node_id = c.parent_node_id WHERE c.id = ?`,
    [childId],
  );
  return row;
}

/**
 * What a child plan's end makes of its parent node's attempt (SPEC-level words in the README's
 * "Agents"): completed → done with the child's result (a reflection or ReAct child's final answer; a
 * workflow child's graph attribute `output`, references resolved, else its sink nodes' outputs as a
 * JSON object); failed → failed with the child's error and id (retryable per the node's retries,
 * except a re-plan request); cancelled → failed naming who cancelled it, not retried.
 */
export async function childResult(
  q: Queryable,
  childId: string,
  plan: ChildEnd,
  to: PlanStatus,
  by: { actor?: string; reason?: string },
): Promise<AttemptResult> {
  const name = `child plan ${childId}${plan.instance ? ` (${plan.instance})` : ''}`;
  if (to === 'cancelled') {
    const who = by.actor ? ` by ${by.actor}` : '';
    return { kind: 'failed', error: `${name} was cancelled${who}${by.reason ? `: ${by.reason}` : ''}`, retryable: false };
  }
  if (to !== 'completed') {
    const error = decodeText(plan.error) ?? `it ended ${to}`;
    const replan = error.startsWith(REPLAN_REQUESTED);
    return { kind: 'failed', error: replan ? error : `${name} failed: ${error}`, retryable: !replan };
  }
  if (plan.result !== null) return { kind: 'done', output: decodeText(plan.result) ?? '' };
  const nodes = await q.all<{ id: string; status: string; output: string | null; answer: string | null; sink: number | boolean }>(
    `SELECT n.node_id AS "id", n.status, n.output, n.answer, NOT EXISTS (SELECT 1 FROM edges e WHERE e.plan_id = n.plan_id AND e.from_node = n.node_id) AS "sink" ` +
      `FROM nodes n WHERE n.plan_id = ? ORDER BY n.id`,
    [childId],
  );
  const byId = new Map(nodes.map((n) => [n.id, { status: n.status, output: decodeText(n.output), answer: decodeText(n.answer) }]));
  const output = parseJsonObject(plan.attributes).output;
  if (output !== undefined) {
    try {
      return { kind: 'done', output: resolveReferences(output, { params: parseJsonObject(plan.params), nodes: (id) => byId.get(id) }) };
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
