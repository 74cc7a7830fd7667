import type { Attributes, GraphEdge, PlanGraph } from '../../src/model/types.js';
import type { EventWrite, NodeWrite } from '../../src/store/sql/persist-rows.js';
import type { CreatePlanInput } from '../../src/store/types.js';

/** A plan graph from a compact description: nodes with attributes, edges as [from, to, when?]. */
export function graphOf(nodes: Record<string, Attributes>, edges: Array<[string, string, string?]> = [], attributes: Attributes = {}): PlanGraph {
  return {
    strict: false,
    attributes,
    nodes: Object.entries(nodes).map(([id, a]) => ({ id, attributes: { type: 'function', status: 'pending', ...a } })),
    edges: edges.map(([from, to, when]): GraphEdge => ({ from, to, attributes: when === undefined ? {} : { when } })),
    clusters: [],
  };
}

export function planInput(graph: PlanGraph, extra: Partial<CreatePlanInput> = {}): CreatePlanInput {
  return { title: 'test plan', graph, dot: 'digraph G { a }', author: 'template', ...extra };
}

/** n independent function nodes n0..n{count-1}. */
export function independent(count: number, attributes: Attributes = {}): PlanGraph {
  return graphOf(Object.fromEntries(Array.from({ length: count }, (_, i) => [`n${i}`, { toolCode: 'echo', ...attributes }])), [], { mode: 'workflow' });
}

/** The fields of a node row's write (persist-rows.ts) that set, claim or finish nothing: a test's write names what it changes. */
export const SETS_NOTHING = {
  set_output: false,
  output: null,
  set_answer: false,
  answer: null,
  set_error: false,
  error: null,
  attempts: null,
  run_after_delay: null,
  set_skipped_by: false,
  skipped_by: null,
  attributes: null,
  claim: false,
  clear_lease: false,
  finished: false,
  waits: false,
  relative: false,
} satisfies Partial<NodeWrite>;

/** The event of a node's move by the engine for `worker-1` (persist-rows.ts), as a step's write records it. */
export function engineMove(planId: string, ord: number, node: string, from: string, to: string): EventWrite {
  return {
    ord,
    plan_id: planId,
    node_id: node,
    kind: 'status',
    driver: 'engine',
    actor: 'worker-1',
    from_status: from,
    to_status: to,
    reason: null,
    detail: null,
    plan_move: false,
  };
}
