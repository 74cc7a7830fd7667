import { authoredAttributes } from '../engine/initial-state.js';
import { liveAttributes } from '../revisions/base.js';
import { revisionGraph } from '../revisions/revision-graphs.js';
import type { PlanGraph } from '../model/types.js';
import { graphOrder } from './graph-order.js';
import type { EdgeRecord, NodeRecord, PlanRecord, Store } from '../store/index.js';
import { waitJson, type Wait } from './waits-for.js';

/**
 * What people and the LLM see of a stored plan: the latest revision's DOT with the live node state
 * (status, output, answer, error) merged in.
 */
export async function livePlanGraph(store: Store, planId: string): Promise<PlanGraph> {
  const [revision, nodes] = await Promise.all([store.plans.revision(planId), store.plans.nodes(planId)]);
  const graph = revisionGraph(planId, revision.number, revision.dot);
  return mergeLiveState(graph, nodes);
}

/** The graph with each node's live status and fields (from node rows or the engine's node states) in place of those the text holds. */
export function mergeLiveState(graph: PlanGraph, nodes: Iterable<Pick<NodeRecord, 'id' | 'status' | 'output' | 'answer' | 'error'>>): PlanGraph {
  const live = new Map([...nodes].map((n) => [n.id, n]));
  return {
    ...graph,
    nodes: graph.nodes.map((node) => {
      const record = live.get(node.id);
      return record ? { ...node, attributes: { ...authoredAttributes(node.attributes), ...liveAttributes(record) } } : node;
    }),
  };
}

/** `plan show --format json`: {"id","status","title",...,"waitingFor":[...],"nodes":[...],"edges":[...]}, the nodes in graph order. */
export interface PlanJson {
  id: string;
  status: string;
  title: string;
  mode: string;
  template?: string;
  params: Record<string, string>;
  revision: number;
  error?: string;
  /** Reflection plans: what the plan is for, and the final answer once written. */
  goal?: string;
  result?: string;
  /** The plan this one runs again (`plan rerun`). */
  rerunOf?: string;
  createdAt: string;
  updatedAt: string;
  /** What the plan waits for now (src/plans/waits-for.ts); empty once it is over. */
  waitingFor: Array<Record<string, unknown>>;
  nodes: Array<Record<string, unknown>>;
  edges: Array<{ from: string; to: string; when?: string }>;
}

export function planJson(plan: PlanRecord, nodes: NodeRecord[], edges: EdgeRecord[], waits: readonly Wait[]): PlanJson {
  return {
    id: plan.id,
    status: plan.status,
    title: plan.title,
    mode: plan.mode,
    ...(plan.template !== undefined ? { template: plan.template } : {}),
    params: plan.params,
    revision: plan.revision,
    ...(plan.error !== undefined ? { error: plan.error } : {}),
    ...(plan.attributes.goal !== undefined ? { goal: plan.attributes.goal } : {}),
    ...(plan.result !== undefined ? { result: plan.result } : {}),
    ...(plan.rerunOf !== undefined ? { rerunOf: plan.rerunOf } : {}),
    createdAt: plan.createdAt.toISOString(),
    updatedAt: plan.updatedAt.toISOString(),
    waitingFor: waits.map(waitJson),
    nodes: graphOrder(nodes, edges).map((n) => ({
      ...n.attributes,
      id: n.id,
      type: n.type,
      status: n.status,
      label: n.label ?? n.attributes.label ?? n.id,
      attempts: n.attempts,
      ...(n.cluster !== undefined ? { cluster: n.cluster } : {}),
      ...(n.output !== undefined ? { output: n.output } : {}),
      ...(n.answer !== undefined ? { answer: n.answer } : {}),
      ...(n.error !== undefined ? { error: n.error } : {}),
    })),
    edges: edges.map((e) => ({ from: e.from, to: e.to, ...(e.when ? { when: e.when } : {}) })),
  };
}
