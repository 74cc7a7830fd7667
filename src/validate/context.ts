import type { Diagnostic } from '../model/diagnostics.js';
import { normaliseStatus } from '../model/status.js';
import { NODE_TYPES, type GraphNode, type NodeStatus, type NodeType, type PlanGraph } from '../model/types.js';
import type { ValidateOptions } from './types.js';

/** Lookups every check shares, computed once per validation. */
export interface CheckContext {
  graph: PlanGraph;
  options: ValidateOptions;
  nodes: ReadonlyMap<string, GraphNode>;
  /** Direct predecessors (sources of edges into the node). */
  parents: ReadonlyMap<string, readonly string[]>;
  /** True when `candidate` is upstream of `id` (a path of edges leads from it to `id`). */
  isUpstream(candidate: string, id: string): boolean;
  /** The node's type when it is a known one. */
  typeOf(node: GraphNode): NodeType | undefined;
  /** The node's canonical status; `pending` when absent; undefined when unknown. */
  statusOf(node: GraphNode): NodeStatus | undefined;
}

export type Check = (ctx: CheckContext) => Diagnostic[];

export function createContext(graph: PlanGraph, options: ValidateOptions): CheckContext {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const parents = new Map<string, string[]>();
  for (const edge of graph.edges) {
    const list = parents.get(edge.to) ?? [];
    list.push(edge.from);
    parents.set(edge.to, list);
  }
  return {
    graph,
    options,
    nodes,
    parents,
    isUpstream: upstreamCheck(graph, parents),
    typeOf(node) {
      const type = node.attributes['type'];
      return (NODE_TYPES as readonly string[]).includes(type ?? '') ? (type as NodeType) : undefined;
    },
    statusOf(node) {
      const status = node.attributes['status'];
      return status === undefined ? 'pending' : normaliseStatus(status);
    },
  };
}

/** `node`, `line`, `column` fields for a diagnostic about a node. */
export function atNode(node: GraphNode, attribute?: string): Pick<Diagnostic, 'node' | 'attribute' | 'line' | 'column'> {
  return {
    node: node.id,
    ...(attribute !== undefined ? { attribute } : {}),
    ...(node.location ? { line: node.location.line, column: node.location.column } : {}),
  };
}

/** `"a"` for messages: ids may hold spaces or be numbers. */
export function q(value: string): string {
  return JSON.stringify(value);
}

/**
 * `isUpstream` without walking the graph afresh per reference (validation was quadratic: a 5,000-node
 * chain with 20 references per node took 45 s): nodes are numbered in topological order once, so a
 * candidate numbered after the node is never upstream, and a walk back from the node stops at nodes
 * numbered before the candidate; a node referenced again and again gets its descendants computed
 * once. Nodes on a cycle (already an error) fall back to the plain walk.
 */
export function upstreamCheck(graph: PlanGraph, parents: ReadonlyMap<string, readonly string[]>): (candidate: string, id: string) => boolean {
  const order = topologicalOrder(graph);
  const children = new Map<string, string[]>();
  for (const edge of graph.edges) {
    const list = children.get(edge.from) ?? [];
    list.push(edge.to);
    children.set(edge.from, list);
  }
  const asked = new Map<string, number>();
  const descendants = new Map<string, Set<string>>();
  return (candidate, id) => {
    const from = order.get(candidate);
    const to = order.get(id);
    if (from !== undefined && to !== undefined && from >= to) return false;
    const known = descendants.get(candidate);
    if (known) return known.has(id);
    const times = (asked.get(candidate) ?? 0) + 1;
    asked.set(candidate, times);
    if (times >= 3) {
      const reached = walk(candidate, (n) => children.get(n) ?? []);
      descendants.set(candidate, reached);
      return reached.has(id);
    }
    // Walk back from the node, only through nodes numbered after the candidate.
    const inWindow = (n: string) => from === undefined || (order.get(n) ?? Infinity) > from || n === candidate;
    return walk(id, (n) => (parents.get(n) ?? []).filter(inWindow), candidate).has(candidate);
  };
}

/** Nodes reachable from `start` by `next` (not `start` itself, unless on a cycle); stops early once `target` is found. */
function walk(start: string, next: (id: string) => readonly string[], target?: string): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length > 0) {
    for (const n of next(stack.pop()!)) {
      if (seen.has(n)) continue;
      seen.add(n);
      if (n === target) return seen;
      stack.push(n);
    }
  }
  return seen;
}

/** Topological numbers (Kahn); nodes on or after a cycle get none. */
function topologicalOrder(graph: PlanGraph): Map<string, number> {
  const indegree = new Map(graph.nodes.map((n) => [n.id, 0]));
  for (const edge of graph.edges) for (const end of [edge.from, edge.to]) if (!indegree.has(end)) indegree.set(end, 0); // undeclared: an error, but still on paths
  const out = new Map<string, string[]>();
  for (const edge of graph.edges) {
    indegree.set(edge.to, indegree.get(edge.to)! + 1);
    const list = out.get(edge.from) ?? [];
    list.push(edge.to);
    out.set(edge.from, list);
  }
  const queue = [...indegree].filter(([, d]) => d === 0).map(([id]) => id);
  const order = new Map<string, number>();
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    order.set(id, order.size);
    for (const to of out.get(id) ?? []) {
      const d = indegree.get(to)! - 1;
      indegree.set(to, d);
      if (d === 0) queue.push(to);
    }
  }
  return order;
}
