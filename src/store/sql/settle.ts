import { assertNodeMove } from '../../state/node-moves.js';
import type { Driver, NodeStatus } from '../../model/types.js';
import type { WakeEvent } from '../types.js';
import { forUpdate, type Queryable } from './executor.js';
import { insertEvents, setNodesStatus, type TxContext } from './context.js';

/** Statuses that keep a plan going. */
export const ACTIVE_STATUSES = `('pending', 'ready', 'running', 'awaiting_input')`;

const SETTLE_WHERE =
  `id = ? AND status = 'running' AND mode = 'workflow' ` +
  `AND NOT EXISTS (SELECT 1 FROM nodes WHERE plan_id = ? AND status IN ${ACTIVE_STATUSES})`;
const SETTLE_STATUS = `CASE WHEN EXISTS (SELECT 1 FROM nodes WHERE plan_id = ? AND status = 'failed') THEN 'failed' ELSE 'completed' END`;
const SETTLE_REASON = `CASE WHEN status = 'failed' THEN 'a node failed and nothing is left to run' ELSE 'every node has finished' END`;

/**
 * A running workflow plan with no pending/ready/running/awaiting_input node completes, or fails
 * when a node failed. Safe to run after commit (PostgreSQL): of concurrent finishers of a plan's
 * last nodes, the one committing last sees every result, and the status guard lets only one win.
 */
export async function settlePlan(q: Queryable, planId: string): Promise<WakeEvent | undefined> {
  if (q.dialect === 'postgres') {
    const rows = await q.all(
      `WITH s AS (UPDATE plans SET status = ${SETTLE_STATUS}, updated_at = NOW WHERE ${SETTLE_WHERE} RETURNING id, status) ` +
        `INSERT INTO events (plan_id, node_id, driver, from_status, to_status, reason, at) ` +
        `SELECT id, NULL, 'engine', 'running', status, ${SETTLE_REASON}, NOW FROM s RETURNING to_status`,
      [planId, planId, planId],
    );
    return rows.length > 0 ? { reason: 'plan', planId } : undefined;
  }
  const rows = await q.all<{ status: string }>(`UPDATE plans SET status = ${SETTLE_STATUS}, updated_at = NOW WHERE ${SETTLE_WHERE} RETURNING status`, [planId, planId, planId]);
  const row = rows[0];
  if (!row) return undefined;
  const reason = row.status === 'failed' ? 'a node failed and nothing is left to run' : 'every node has finished';
  await insertEvents(q, [{ planId, driver: 'engine', from: 'running', to: row.status, reason }]);
  return { reason: 'plan', planId };
}

/**
 * onFailure=stop: the plan fails with the node's error, and nothing more starts (workers only claim
 * nodes of running plans). Nodes that have not run keep their status, so that an operator's
 * `node retry` resumes the plan where it stopped; `plan cancel` cancels them for good.
 */
export async function failPlan(ctx: TxContext, planId: string, nodeId: string, error: string): Promise<void> {
  const message = `node ${JSON.stringify(nodeId)} failed: ${error}`;
  const changed = await ctx.q.run(`UPDATE plans SET status = 'failed', error = ?, updated_at = NOW WHERE id = ? AND status = 'running'`, [message, planId]);
  if (changed === 0) return;
  await insertEvents(ctx.q, [{ planId, driver: 'engine', from: 'running', to: 'failed', reason: message }]);
  ctx.wakes.push({ reason: 'plan', planId });
}

/** Cancels a plan's nodes that are in one of `statuses`, one event each. */
export async function cancelNodes(ctx: TxContext, planId: string, statuses: readonly NodeStatus[], driver: Driver, reason: string): Promise<number> {
  const list = statuses.map((s) => `'${s}'`).join(', ');
  const rows = await ctx.q.all<{ nodeId: string; status: NodeStatus }>(
    `SELECT node_id AS "nodeId", status FROM nodes WHERE plan_id = ? AND status IN (${list}) ORDER BY id${forUpdate(ctx.q)}`,
    [planId],
  );
  if (rows.length === 0) return 0;
  for (const row of rows) assertNodeMove({ node: row.nodeId, from: row.status, to: 'cancelled', driver });
  await setNodesStatus(ctx.q, planId, rows.map((r) => r.nodeId), 'cancelled', true);
  await insertEvents(ctx.q, rows.map((r) => ({ planId, nodeId: r.nodeId, driver, from: r.status, to: 'cancelled', reason })));
  return rows.length;
}
