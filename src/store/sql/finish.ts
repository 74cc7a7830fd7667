import { ConflictError } from '../../errors/errors.js';
import type { NodeStatus } from '../../model/types.js';
import { assertNodeMove } from '../../state/node-moves.js';
import type { AttemptOutcome, NodeRecord } from '../types.js';
import { nodeColumns, parseJsonObject, toNodeRecord, type NodeRow } from '../rows.js';
import { forUpdate } from './executor.js';
import { insertEvents, isWorkflowRunning, loadPlanState, type PlanState, type TxContext } from './context.js';
import { propagateFrom, type LockedDependents } from './propagate.js';
import type { IncomingEdge } from '../../engine/readiness.js';
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

interface DependentRow {
  id: string;
  /** Another node leads to it too. */
  others: boolean;
  whens: Array<string | null>;
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
 * PostgreSQL, `done`, in one statement: the token-checked update (it waits for the row lock like
 * SELECT … FOR UPDATE would, and re-checks the token after it), the plan's state, the dependents
 * locked in id order as propagate's lockPending would, and — for dependents that only this node
 * leads to, by an edge without `when` (always ready once it is done: nothing else can change
 * that) — the move to `ready`; the events in order. Other dependents (joins, conditions) go
 * through propagate, which reads their sources in a later statement. A chain step thus costs
 * BEGIN, this, the hand-off claim and COMMIT.
 */
const FINISH_DONE =
  `WITH f AS (UPDATE nodes SET status = 'done', output = ?, error = NULL, finished_at = NOW, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = NOW ` +
  `WHERE id = ? AND lease_token = ? AND status = 'running' RETURNING ${nodeColumns()}), ` +
  `p AS (SELECT pl.status, pl.mode, pl.attributes FROM plans pl WHERE pl.id = (SELECT "planId" FROM f)), ` +
  `d AS (SELECT n.id, n.plan_id, n.node_id, n.status, ` +
  `EXISTS (SELECT 1 FROM edges o WHERE o.plan_id = n.plan_id AND o.to_node = n.node_id AND o.from_node <> (SELECT "nodeId" FROM f)) AS others, ` +
  `ARRAY(SELECT w.when_match FROM edges w WHERE w.plan_id = n.plan_id AND w.from_node = (SELECT "nodeId" FROM f) AND w.to_node = n.node_id) AS whens ` +
  `FROM nodes n WHERE n.plan_id = (SELECT "planId" FROM f) ` +
  `AND n.node_id = ANY(ARRAY(SELECT to_node FROM edges WHERE plan_id = (SELECT "planId" FROM f) AND from_node = (SELECT "nodeId" FROM f))) ORDER BY n.id FOR UPDATE OF n), ` +
  `r AS (UPDATE nodes SET status = 'ready', updated_at = NOW, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL FROM d ` +
  `WHERE nodes.id = d.id AND d.status = 'pending' AND NOT d.others AND EXISTS (SELECT 1 FROM unnest(d.whens) AS x(w) WHERE x.w IS NULL OR x.w = '') ` +
  `AND (SELECT status FROM p) = 'running' AND (SELECT mode FROM p) = 'workflow' RETURNING nodes.id, nodes.plan_id, nodes.node_id), ` +
  `e AS (INSERT INTO events (plan_id, node_id, driver, from_status, to_status, reason, at) SELECT plan_id, node_id, 'engine', fs, ts, reason, NOW FROM (` +
  `SELECT 0 AS k, 0 AS ord, "planId" AS plan_id, "nodeId" AS node_id, 'running' AS fs, 'done' AS ts, NULL::text AS reason FROM f UNION ALL ` +
  `SELECT 1, r.id, r.plan_id, r.node_id, 'pending', 'ready', 'its dependencies are met' FROM r) x ORDER BY k, ord) ` +
  `SELECT f.*, (SELECT status FROM p) AS "planStatus", (SELECT mode FROM p) AS "planMode", (SELECT attributes FROM p) AS "planAttributes", ` +
  `ARRAY(SELECT node_id FROM r ORDER BY id) AS "readied", ` +
  `(SELECT json_agg(json_build_object('id', d.node_id, 'others', d.others, 'whens', d.whens) ORDER BY d.id) FROM d ` +
  `WHERE d.status = 'pending' AND d.id NOT IN (SELECT id FROM r)) AS "dependents" FROM f`;

async function finishDonePostgres(ctx: TxContext, rowId: number, token: string, output: string | undefined, plans: PlanCache): Promise<Finished> {
  assertNodeMove({ node: String(rowId), from: 'running', to: 'done', driver: 'engine' });
  type Row = NodeRow & { planStatus: string | null; planMode: string | null; planAttributes: string | null; readied: string[]; dependents: DependentRow[] | null };
  const [row] = await ctx.q.all<Row>(FINISH_DONE, [output ?? null, rowId, token]);
  if (!row) throw leaseLost();
  const { planId, nodeId } = row;
  if (!plans.has(planId)) {
    plans.set(planId, row.planStatus === null ? undefined : { id: planId, status: row.planStatus, mode: row.planMode ?? 'workflow', attributes: row.planAttributes ?? '{}' });
  }
  ctx.wakes.push({ reason: 'finished', planId });
  if (row.readied.length > 0) {
    assertNodeMove({ node: row.readied[0]!, from: 'pending', to: 'ready', driver: 'engine' });
    ctx.wakes.push({ reason: 'ready', planId });
  }
  const pending = row.dependents ?? [];
  const known = new Map<string, IncomingEdge[]>();
  for (const d of pending) {
    if (d.others) continue;
    known.set(d.id, d.whens.map((when) => ({ from: nodeId, sourceStatus: 'done' as const, sourceOutput: row.output, sourceAnswer: row.answer, ...(when !== null ? { when } : {}) })));
  }
  await afterNodeFinished(ctx, planId, nodeId, 'done', undefined, plans, { pending: pending.map((d) => d.id), known });
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
  lockedDependents?: LockedDependents,
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
