import { ConflictError } from '../../errors/errors.js';
import type { NodeStatus } from '../../model/types.js';
import { assertNodeMove } from '../../state/node-moves.js';
import type { AttemptOutcome, NodeRecord } from '../types.js';
import { nodeColumns, parseJsonObject, toNodeRecord, type NodeRow } from '../rows.js';
import { forUpdate } from './executor.js';
import { insertEvents, isWorkflowRunning, loadPlanState, type PlanState, type TxContext } from './context.js';
import { propagateFrom } from './propagate.js';
import { failPlan } from './settle.js';

/**
 * The end of an attempt, checked by lease token: a worker whose lease expired (and whose node was
 * taken over) finds no row for its token and is refused with "lease lost"; nothing is written.
 * Then, in the same transaction, workflow readiness propagates to the node's dependents.
 */
export type PlanCache = Map<string, PlanState | undefined>;

interface LeasedRow {
  id: number;
  planId: string;
  nodeId: string;
  attempts: number;
  attributes: string;
}

/** The node row id a lease token starts with (`<id>.<random>`). */
export function tokenRowId(token: string): number | undefined {
  const id = Number(token.slice(0, token.indexOf('.')));
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

export function leaseLost(): ConflictError {
  return new ConflictError(
    'lease lost: this attempt no longer holds the node (its lease expired and it was taken over, it was cancelled, or the attempt was already finished); its result was not recorded',
  );
}

/** What finishing one attempt wrote; `record`, when present, is the node as it now stands (no re-read needed). */
export interface Finished {
  planId: string;
  nodeId: string;
  record?: NodeRecord;
}

export async function finishAttemptInTx(ctx: TxContext, token: string, outcome: AttemptOutcome, plans: PlanCache): Promise<Finished> {
  const { q } = ctx;
  const rowId = tokenRowId(token);
  if (q.dialect === 'postgres' && outcome.status === 'done' && rowId !== undefined) return finishDonePostgres(ctx, rowId, token, outcome.output, plans);
  const [row] = rowId === undefined ? [] : await q.all<LeasedRow>(
    `SELECT id, plan_id AS "planId", node_id AS "nodeId", attempts, attributes FROM nodes WHERE id = ? AND lease_token = ? AND status = 'running'${forUpdate(q)}`,
    [rowId, token],
  );
  if (!row) throw leaseLost();
  const { planId, nodeId } = row;
  const CLEAR_LEASE = `lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = NOW`;
  let to: NodeStatus;
  let reason: string | null = null;
  switch (outcome.status) {
    case 'done':
      to = 'done';
      await q.run(`UPDATE nodes SET status = 'done', output = ?, error = NULL, finished_at = NOW, ${CLEAR_LEASE} WHERE id = ?`, [outcome.output ?? null, row.id]);
      break;
    case 'failed':
      if (outcome.retryAt) {
        to = 'ready';
        reason = `attempt ${row.attempts} failed, retry at ${outcome.retryAt.toISOString()}: ${outcome.error}`;
        await q.run(`UPDATE nodes SET status = 'ready', error = ?, run_after = ?, ${CLEAR_LEASE} WHERE id = ?`, [outcome.error, outcome.retryAt.getTime(), row.id]);
      } else {
        to = 'failed';
        reason = outcome.error;
        await q.run(`UPDATE nodes SET status = 'failed', error = ?, finished_at = NOW, ${CLEAR_LEASE} WHERE id = ?`, [outcome.error, row.id]);
      }
      break;
    case 'released':
      to = 'ready';
      reason = 'released by its worker (shutting down); the attempt does not count';
      await q.run(`UPDATE nodes SET status = 'ready', attempts = attempts - 1, run_after = 0, ${CLEAR_LEASE} WHERE id = ?`, [row.id]);
      break;
    case 'awaiting_input': {
      to = 'awaiting_input';
      reason = 'waiting for an answer';
      const attributes = parseJsonObject(row.attributes);
      if (outcome.question !== undefined) attributes.question = outcome.question;
      await q.run(`UPDATE nodes SET status = 'awaiting_input', attributes = ?, ${CLEAR_LEASE} WHERE id = ?`, [JSON.stringify(attributes), row.id]);
      break;
    }
  }
  assertNodeMove({ node: nodeId, from: 'running', to, driver: 'engine' });
  await insertEvents(q, [{ planId, nodeId, driver: 'engine', from: 'running', to, reason }]);
  if (to === 'ready') ctx.wakes.push({ reason: 'ready', planId });
  if (to === 'done' || to === 'failed') {
    ctx.wakes.push({ reason: 'finished', planId });
    await afterNodeFinished(ctx, planId, nodeId, to, outcome.status === 'failed' ? outcome.error : undefined, plans);
  }
  return { planId, nodeId };
}

/**
 * PostgreSQL, `done`: the token-checked update, its event and the plan's state in one statement
 * (the UPDATE waits for a row lock like SELECT … FOR UPDATE would, and re-checks the token after
 * it), then propagation — a chain step costs a handful of round trips, not a dozen.
 */
async function finishDonePostgres(ctx: TxContext, rowId: number, token: string, output: string | undefined, plans: PlanCache): Promise<Finished> {
  assertNodeMove({ node: String(rowId), from: 'running', to: 'done', driver: 'engine' });
  const [row] = await ctx.q.all<NodeRow & { planStatus: string | null; planMode: string | null; planAttributes: string | null; pending: string[] }>(
    `WITH f AS (UPDATE nodes SET status = 'done', output = ?, error = NULL, finished_at = NOW, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = NOW ` +
      `WHERE id = ? AND lease_token = ? AND status = 'running' RETURNING ${nodeColumns()}), ` +
      `e AS (INSERT INTO events (plan_id, node_id, driver, from_status, to_status, reason, at) SELECT "planId", "nodeId", 'engine', 'running', 'done', NULL, NOW FROM f), ` +
      // The dependents, locked in id order as propagate's lockPending would (their sources are read in a later statement).
      `d AS (SELECT n.node_id, n.status FROM nodes n WHERE n.plan_id = (SELECT "planId" FROM f) ` +
      `AND n.node_id = ANY(ARRAY(SELECT to_node FROM edges WHERE plan_id = (SELECT "planId" FROM f) AND from_node = (SELECT "nodeId" FROM f))) ORDER BY n.id FOR UPDATE OF n) ` +
      `SELECT f.*, p.status AS "planStatus", p.mode AS "planMode", p.attributes AS "planAttributes", ` +
      `ARRAY(SELECT node_id FROM d WHERE status = 'pending') AS "pending" FROM f LEFT JOIN plans p ON p.id = f."planId"`,
    [output ?? null, rowId, token],
  );
  if (!row) throw leaseLost();
  const { planId, nodeId } = row;
  if (!plans.has(planId)) {
    plans.set(planId, row.planStatus === null ? undefined : { id: planId, status: row.planStatus, mode: row.planMode ?? 'workflow', attributes: row.planAttributes ?? '{}' });
  }
  ctx.wakes.push({ reason: 'finished', planId });
  await afterNodeFinished(ctx, planId, nodeId, 'done', undefined, plans, row.pending);
  return { planId, nodeId, record: toNodeRecord(row) };
}

/** done → dependents may become ready; failed → onFailure=stop fails the plan, `continue` goes on. */
export async function afterNodeFinished(
  ctx: TxContext,
  planId: string,
  nodeId: string,
  to: 'done' | 'failed',
  error: string | undefined,
  plans: PlanCache,
  lockedDependents?: readonly string[],
): Promise<void> {
  if (!plans.has(planId)) plans.set(planId, await loadPlanState(ctx.q, planId));
  const plan = plans.get(planId);
  if (!isWorkflowRunning(plan)) return;
  if (to === 'failed' && parseJsonObject(plan.attributes).onFailure !== 'continue') {
    await failPlan(ctx, planId, nodeId, error ?? 'failed');
    plans.set(planId, { ...plan, status: 'failed' });
    return;
  }
  await propagateFrom(ctx, planId, [nodeId], lockedDependents);
  ctx.settle.add(planId);
}
