import { DotplanError, NotFoundError } from '../../errors/errors.js';
import type { Driver, PlanStatus, RevisionAuthor } from '../../model/types.js';
import { assertPlanMove } from '../../state/plan-moves.js';
import type { CreatePlanInput } from '../types.js';
import { chunk } from './executor.js';
import { insertEvents, loadPlanState, type TxContext } from './context.js';
import { propagateAll } from './propagate.js';
import { cancelNodes } from './settle.js';

/** Node attributes kept as live columns rather than in the attributes JSON. */
const LIVE_ATTRIBUTES = new Set(['status', 'toolOutput', 'answer', 'error']);

/** Who records a plan's creation: a template is instantiated by whoever runs the command. */
export const AUTHOR_DRIVER: Readonly<Record<RevisionAuthor, Driver>> = { template: 'operator', llm: 'llm', person: 'person', operator: 'operator' };

export function planNotFound(id: string): NotFoundError {
  return new NotFoundError(`plan ${JSON.stringify(id)} not found; list the stored plans with \`dotplan plan list\``);
}

/** Plan row, revision 1, one row per node and per edge, and the creation event. */
export async function insertPlan(ctx: TxContext, id: string, input: CreatePlanInput, status: PlanStatus): Promise<void> {
  const { q } = ctx;
  const { graph } = input;
  await q.run(
    `INSERT INTO plans (id, title, status, mode, template, params, attributes, revision, error, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, NULL, NOW, NOW)`,
    [id, input.title, status, graph.attributes.mode ?? 'workflow', input.template ?? null, JSON.stringify(input.params ?? {}), JSON.stringify(graph.attributes)],
  );
  await q.run(`INSERT INTO revisions (plan_id, number, dot, author, update_log, parent, created_at) VALUES (?, 1, ?, ?, ?, NULL, NOW)`, [
    id,
    input.dot,
    input.author,
    input.updateLog ?? null,
  ]);
  for (const part of chunk(graph.nodes, 400)) {
    const values = part.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NOW)').join(', ');
    const params = part.flatMap((node) => {
      const a = node.attributes;
      const kept = Object.fromEntries(Object.entries(a).filter(([key]) => !LIVE_ATTRIBUTES.has(key)));
      return [id, node.id, a.type ?? 'function', a.status ?? 'pending', a.label ?? null, JSON.stringify(kept), node.cluster ?? null, a.toolOutput ?? null, a.answer ?? null, a.error ?? null];
    });
    await q.run(`INSERT INTO nodes (plan_id, node_id, type, status, label, attributes, cluster, output, answer, error, updated_at) VALUES ${values}`, params);
  }
  for (const part of chunk(graph.edges)) {
    const values = part.map(() => '(?, ?, ?, ?)').join(', ');
    await q.run(
      `INSERT INTO edges (plan_id, from_node, to_node, when_match) VALUES ${values}`,
      part.flatMap((e) => [id, e.from, e.to, e.attributes.when ?? null]),
    );
  }
  await insertEvents(q, [{ planId: id, driver: AUTHOR_DRIVER[input.author], from: '', to: status, reason: input.template ? `created from template ${input.template}` : 'created' }]);
  ctx.wakes.push({ reason: 'plan', planId: id });
  if (status === 'running' && (graph.attributes.mode ?? 'workflow') === 'workflow') {
    await propagateAll(ctx, id);
    ctx.settle.add(id);
  }
}

/**
 * Moves a plan, checked against the plan state machine. Entering `running` in workflow mode makes
 * the nodes whose dependencies are met ready (start, approval, resume), then settles the plan.
 */
export async function movePlan(ctx: TxContext, planId: string, to: PlanStatus, driver: Driver, reason?: string, error?: string): Promise<void> {
  const plan = await loadPlanState(ctx.q, planId, true);
  if (!plan) throw planNotFound(planId);
  const from = plan.status as PlanStatus;
  assertPlanMove(planId, from, to, driver);
  if (error !== undefined || to === 'running') {
    await ctx.q.run(`UPDATE plans SET status = ?, error = ?, updated_at = NOW WHERE id = ?`, [to, error ?? null, planId]);
  } else {
    await ctx.q.run(`UPDATE plans SET status = ?, updated_at = NOW WHERE id = ?`, [to, planId]);
  }
  await insertEvents(ctx.q, [{ planId, driver, from, to, reason: reason ?? error ?? null }]);
  ctx.wakes.push({ reason: 'plan', planId });
  if (to === 'cancelled') await cancelNodes(ctx, planId, ['pending', 'ready', 'running', 'awaiting_input'], driver, reason ?? 'the plan was cancelled');
  if (to === 'running' && plan.mode === 'workflow') {
    await propagateAll(ctx, planId);
    ctx.settle.add(planId);
  }
}

/** draft → running, or → awaiting_review when the plan's graph says review="required". */
export async function startTarget(ctx: TxContext, planId: string): Promise<PlanStatus> {
  const plan = await loadPlanState(ctx.q, planId);
  if (!plan) throw planNotFound(planId);
  if (plan.status !== 'draft') {
    throw new DotplanError('ILLEGAL_TRANSITION', `plan ${planId} is ${plan.status}: only a draft plan can be started`);
  }
  const attributes = JSON.parse(plan.attributes) as Record<string, string>;
  return attributes.review === 'required' ? 'awaiting_review' : 'running';
}
