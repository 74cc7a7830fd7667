import { ConflictError, InvalidInputError, NotFoundError } from '../../errors/errors.js';
import { TERMINAL_NODE_STATUSES } from '../../model/status.js';
import type { Driver, NodeStatus } from '../../model/types.js';
import { assertNodeMove } from '../../state/node-moves.js';
import type { NodeMoveRequest } from '../types.js';
import { chunk, forUpdate, marks } from './executor.js';
import { insertEvents, isWorkflowRunning, loadPlanState, type TxContext } from './context.js';
import { planNotFound } from './plans.js';
import { propagateFrom } from './propagate.js';

export function nodeNotFound(planId: string, nodeId: string): NotFoundError {
  return new NotFoundError(`node ${JSON.stringify(nodeId)} not found in plan ${planId}; see its nodes with \`dotplan plan show ${planId}\``);
}

/**
 * Status moves by a driver, all or nothing: every move is checked against the state machine
 * (in order, so a batch may move one node twice) before anything is written. An operator's
 * retry (failed → ready) starts the node's attempts afresh.
 */
export async function applyMoves(ctx: TxContext, planId: string, moves: readonly NodeMoveRequest[], driver: Driver, reason?: string): Promise<string[]> {
  const { q } = ctx;
  const plan = await loadPlanState(q, planId);
  if (!plan) throw planNotFound(planId);
  const ids = [...new Set(moves.map((m) => m.node))];
  const current = new Map<string, NodeStatus>();
  for (const part of chunk(ids)) {
    const rows = await q.all<{ nodeId: string; status: NodeStatus }>(
      `SELECT node_id AS "nodeId", status FROM nodes WHERE plan_id = ? AND node_id IN (${marks(part.length)}) ORDER BY id${forUpdate(q)}`,
      [planId, ...part],
    );
    for (const row of rows) current.set(row.nodeId, row.status);
  }
  const steps = moves.map((move) => {
    const from = current.get(move.node);
    if (from === undefined) throw nodeNotFound(planId, move.node);
    assertNodeMove({ node: move.node, from, to: move.to, driver });
    current.set(move.node, move.to);
    return { ...move, from };
  });
  for (const step of steps) {
    const terminal = TERMINAL_NODE_STATUSES.has(step.to);
    const retry = step.from === 'failed' && step.to === 'ready';
    await q.run(
      `UPDATE nodes SET status = ?, answer = COALESCE(?, answer), output = COALESCE(?, output), error = ${retry ? 'NULL' : 'COALESCE(?, error)'}, ` +
        `${retry ? 'attempts = 0, ' : ''}${step.to === 'ready' ? 'run_after = 0, ' : ''}${terminal ? 'finished_at = NOW, ' : ''}` +
        `${step.to === 'skipped' ? `skipped_by = '${driver}', ` : ''}` +
        `lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = NOW WHERE plan_id = ? AND node_id = ?`,
      retry ? [step.to, step.answer ?? null, step.output ?? null, planId, step.node] : [step.to, step.answer ?? null, step.output ?? null, step.error ?? null, planId, step.node],
    );
  }
  await insertEvents(q, steps.map((s) => ({ planId, nodeId: s.node, driver, from: s.from, to: s.to, reason: reason ?? null })));
  if (steps.some((s) => s.to === 'ready')) ctx.wakes.push({ reason: 'ready', planId });
  if (isWorkflowRunning(plan)) {
    const finished = [...current].filter(([, status]) => TERMINAL_NODE_STATUSES.has(status)).map(([id]) => id);
    await propagateFrom(ctx, planId, finished);
    ctx.settle.add(planId);
  }
  return ids;
}

/**
 * A person's (or operator's) answer: awaiting_input → done, then readiness propagates. Answering
 * again with the same text changes nothing; with a different text it is a conflict.
 */
export async function answer(ctx: TxContext, planId: string, nodeId: string, text: string, driver: Driver): Promise<boolean> {
  const { q } = ctx;
  const plan = await loadPlanState(q, planId);
  if (!plan) throw planNotFound(planId);
  const [row] = await q.all<{ status: NodeStatus; answer: string | null }>(
    `SELECT status, answer FROM nodes WHERE plan_id = ? AND node_id = ?${forUpdate(q)}`,
    [planId, nodeId],
  );
  if (!row) throw nodeNotFound(planId, nodeId);
  if (row.status === 'done' && row.answer !== null) {
    if (row.answer.trim() === text.trim()) return false;
    throw new ConflictError(`node ${JSON.stringify(nodeId)} of plan ${planId} was already answered ${JSON.stringify(row.answer)}; a different answer is not accepted`);
  }
  if (row.status !== 'awaiting_input') {
    throw new InvalidInputError(`node ${JSON.stringify(nodeId)} of plan ${planId} is ${row.status}, not awaiting_input: only a node waiting for an answer can be answered`);
  }
  assertNodeMove({ node: nodeId, from: 'awaiting_input', to: 'done', driver });
  await q.run(
    `UPDATE nodes SET status = 'done', answer = ?, finished_at = NOW, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = NOW WHERE plan_id = ? AND node_id = ?`,
    [text, planId, nodeId],
  );
  await insertEvents(q, [{ planId, nodeId, driver, from: 'awaiting_input', to: 'done', reason: 'answered' }]);
  ctx.wakes.push({ reason: 'finished', planId });
  if (isWorkflowRunning(plan)) {
    await propagateFrom(ctx, planId, [nodeId]);
    ctx.settle.add(planId);
  }
  return true;
}
