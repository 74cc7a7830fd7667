import { writeDot } from '../../dot/write.js';
import type { GraphNode, PlanGraph } from '../../model/types.js';
import type { CreatePlanInput } from '../../store/types.js';

/**
 * The plan shapes the benchmarks store, built in code (no DOT parsing on a 10,000-node plan; the
 * revision's DOT text is written from the graph, which is cheap). Node ids are zero-padded so that
 * they sort in plan order.
 */
export const NOOP_TOOL = 'noop';

/** `count` independent no-op function nodes. */
export function independentPlan(count: number, title = `throughput: ${count} independent no-op nodes`): CreatePlanInput {
  return planInput(title, nodes(count), []);
}

/** A chain `n0 -> n1 -> … -> n(count-1)` of no-op nodes: each step waits for the one before. */
export function chainPlan(count: number): CreatePlanInput {
  const list = nodes(count);
  const edges = list.slice(1).map((node, i) => ({ from: list[i]!.id, to: node.id, attributes: {} }));
  return planInput(`chain: ${count} no-op steps`, list, edges);
}

/** A one-node plan whose node is already done: stored history for the idle-poll measurement. */
export function finishedPlan(index: number): CreatePlanInput {
  return planInput(`stored plan ${index}`, [{ id: 'step', attributes: { type: 'function', toolCode: NOOP_TOOL, status: 'done' } }], []);
}

function nodes(count: number): GraphNode[] {
  const width = String(Math.max(0, count - 1)).length;
  return Array.from({ length: count }, (_, i) => ({
    id: `n${String(i).padStart(width, '0')}`,
    attributes: { type: 'function', toolCode: NOOP_TOOL },
  }));
}

/** A workflow plan of these nodes and edges, as the benchmarks store it. */
export function planInputOf(title: string, list: GraphNode[], edges: PlanGraph['edges']): CreatePlanInput {
  return planInput(title, list, edges);
}

function planInput(title: string, list: GraphNode[], edges: PlanGraph['edges']): CreatePlanInput {
  const graph: PlanGraph = { name: 'bench', strict: false, attributes: { mode: 'workflow', label: title }, nodes: list, edges, clusters: [] };
  return { title, graph, dot: writeDot(graph), author: 'operator', updateLog: 'dotplan bench' };
}

/** A chain whose every edge has a `when` condition that holds (`!never`): readiness goes through the branch rule at each step. */
export function whenChainPlan(count: number): CreatePlanInput {
  const list = nodes(count);
  const edges = list.slice(1).map((node, i) => ({ from: list[i]!.id, to: node.id, attributes: { when: '!never' } }));
  return planInput(`when chain: ${count} no-op steps behind when edges`, list, edges);
}

/** A ladder: each step joins the step before and a side node of its own (which runs at once), so each step has two parents. */
export function ladderPlan(count: number): CreatePlanInput {
  const list = nodes(count);
  const sides = list.map((node) => ({ id: `${node.id}s`, attributes: { type: 'function', toolCode: NOOP_TOOL } }));
  const edges = [
    ...list.slice(1).map((node, i) => ({ from: list[i]!.id, to: node.id, attributes: {} })),
    ...list.map((node, i) => ({ from: sides[i]!.id, to: node.id, attributes: {} })),
  ];
  return planInput(`ladder: ${count} no-op steps, each joining two parents`, [...list, ...sides], edges);
}

/** `count` independent no-op nodes that all lead to one `join` node. */
export function joinPlan(count: number): CreatePlanInput {
  const list = nodes(count);
  const join = { id: 'join', attributes: { type: 'function', toolCode: NOOP_TOOL } };
  return planInput(
    `join: ${count} no-op nodes into one`,
    [...list, join],
    list.map((node) => ({ from: node.id, to: 'join', attributes: {} })),
  );
}
