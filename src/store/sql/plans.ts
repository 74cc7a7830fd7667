import { commandLine } from '../../model/command-line.js';
import { NotFoundError } from '../../errors/errors.js';
import type { NodeState, Snapshot } from '../../engine/snapshot.js';
import type { EventInput } from '../../engine/step.js';
import type { GraphEdge, GraphNode } from '../../model/types.js';
import { NODE_WAITS } from '../../model/waiting.js';
import { encodeText } from '../text.js';
import type { CreatePlanInput } from '../types.js';
import { insertEvents } from './events.js';
import { chunk, type Queryable } from './executor.js';

export function planNotFound(id: string): NotFoundError {
  return new NotFoundError(`plan ${JSON.stringify(id)} not found; list the stored plans with \`dotplan plan list\``);
}

export function nodeNotFound(planId: string, nodeId: string): NotFoundError {
  return new NotFoundError(
    `node ${JSON.stringify(nodeId)} not found in plan ${planId}; see its nodes with \`${commandLine('dotplan', 'plan', 'show', planId)}\``,
  );
}

/**
 * A new plan's rows: the plan, revision 1, one row per node (its live state and readiness counters
 * from `snapshot`) and per edge, and the creation events, then `also` (events of other plans: a child's
 * start on its parent node). Returns the nodes' row ids.
 */
export async function insertPlan(q: Queryable, input: CreatePlanInput, snapshot: Snapshot, also: readonly EventInput[] = []): Promise<Map<string, number>> {
  const { plan } = snapshot;
  const { graph } = input;
  await q.run(
    `INSERT INTO plans (id, title, status, mode, template, params, attributes, revision, error, created_at, updated_at, rerun_of, ` +
      `parent_plan_id, parent_node_id, parent_attempt, root_plan_id, depth, agent_code, instance) VALUES (?, ?, ?, ?, ?, ?, ?, 1, NULL, NOW, NOW, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      plan.id,
      encodeText(input.title),
      plan.status,
      plan.mode,
      input.template ?? null,
      JSON.stringify(input.params ?? {}),
      JSON.stringify(graph.attributes),
      input.rerunOf?.planId ?? null,
      input.child?.parent.planId ?? null,
      input.child?.parent.nodeId ?? null,
      input.child?.parent.attempt ?? null,
      input.child?.rootPlanId ?? null,
      input.child?.depth ?? 0,
      input.child?.agentCode ?? null,
      input.child?.instance ?? null,
    ],
  );
  await q.run(`INSERT INTO revisions (plan_id, number, dot, author, update_log, parent, created_at) VALUES (?, 1, ?, ?, ?, NULL, NOW)`, [
    plan.id,
    encodeText(input.dot),
    input.author,
    encodeText(input.updateLog),
  ]);
  const rows = await insertNodes(q, plan.id, graph.nodes, snapshot.nodes);
  await insertEdges(q, plan.id, graph.edges);
  const driver = input.author === 'llm' ? 'llm' : input.author === 'person' ? 'person' : 'operator';
  const actor = input.actor !== undefined ? { actor: input.actor } : {};
  await insertEvents(q, [
    {
      planId: plan.id,
      kind: 'revision',
      driver,
      ...actor,
      reason: input.updateLog ?? (input.template ? `created from template ${input.template}` : 'created'),
      detail: {
        revision: 1,
        author: input.author,
        ...(input.rerunOf ? { rerunOf: input.rerunOf.planId, ...(input.rerunOf.from !== undefined ? { from: input.rerunOf.from } : {}) } : {}),
      },
    },
    {
      planId: plan.id,
      kind: 'status',
      driver,
      ...actor,
      from: '',
      to: plan.status,
      reason: input.template ? `created from template ${input.template}` : 'created',
    },
    ...(input.events ?? []).map((event) => ({ ...event, planId: plan.id })),
    ...also,
  ]);
  return rows;
}

const HELD = `(SELECT CASE WHEN p.status = 'running' THEN 0 ELSE 1 END FROM plans p WHERE p.id = ?)`;

/** Node rows for graph nodes with their live state; returns node id → row id. */
export async function insertNodes(
  q: Queryable,
  planId: string,
  nodes: readonly GraphNode[],
  states: ReadonlyMap<string, NodeState>,
): Promise<Map<string, number>> {
  const rows = new Map<string, number>();
  for (const part of chunk(nodes, 300)) {
    // A node born waiting for an answer (the LLM may add one) waits from now.
    // A node of a plan that is not running is held (migration 0010: claims do not scan it).
    const values = part.map(() => `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NOW, CASE WHEN ? = 1 THEN NOW END, ${HELD})`).join(', ');
    const inserted = await q.all<{ id: number; nodeId: string }>(
      `INSERT INTO nodes (plan_id, node_id, type, status, label, attributes, cluster, output, answer, error, waiting, taken, updated_at, waiting_since, held) ` +
        `VALUES ${values} RETURNING id, node_id AS "nodeId"`,
      part.flatMap((node) => [...nodeValues(planId, node, states.get(node.id)!), planId]),
    );
    for (const row of inserted) rows.set(row.nodeId, Number(row.id));
  }
  return rows;
}

export async function insertEdges(q: Queryable, planId: string, edges: readonly GraphEdge[]): Promise<void> {
  for (const part of chunk(edges)) {
    await q.run(
      `INSERT INTO edges (plan_id, from_node, to_node, when_match) VALUES ${part.map(() => '(?, ?, ?, ?)').join(', ')}`,
      part.flatMap((e) => [planId, e.from, e.to, encodeText(e.attributes.when)]),
    );
  }
}

function nodeValues(planId: string, node: GraphNode, state: NodeState): unknown[] {
  return [
    planId,
    node.id,
    state.type,
    state.status,
    encodeText(node.attributes.label),
    JSON.stringify(state.attributes ?? {}),
    encodeText(node.cluster),
    encodeText(state.output),
    encodeText(state.answer),
    encodeText(state.error),
    state.waiting,
    state.taken,
    state.status === NODE_WAITS ? 1 : 0,
  ];
}
