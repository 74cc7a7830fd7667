import type { Diagnostic } from '../model/diagnostics.js';
import { seededRandom } from '../model/seeded-random.js';
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
 * `isUpstream` in near-linear time and memory on every shape (validation was quadratic: a 5,000-node
 * chain with 5 references per node to recent ancestors took 7–12 s and 508 MB when the descendants of
 * each much-referenced node were cached). Nodes are numbered in topological order once, so a candidate
 * numbered after the node is never upstream; then an interval labelling of a depth-first spanning
 * forest answers "yes" at once for descendants along the forest (every reference of a chain), and two
 * GRAIL labellings (Yıldırım et al., 2010: each node's post-order rank and the least rank below it)
 * answer "no" at once for most nodes that are not. What is left is a walk back up from the node (a
 * reference is most often to a near ancestor) that skips every node numbered before the candidate and
 * every node the candidate's labels cannot contain. Nodes on or after a cycle (already an error) fall
 * back to the plain walk back from the node.
 */
export function upstreamCheck(graph: PlanGraph, parents: ReadonlyMap<string, readonly string[]>): (candidate: string, id: string) => boolean {
  const order = topologicalOrder(graph);
  const reach = reachIndex(graph, order);
  return (candidate, id) => {
    const from = order.get(candidate);
    const to = order.get(id);
    if (from !== undefined && to !== undefined) return reach(from, to);
    // On or after a cycle: walk back from the node (nothing before a cycle can be reached from it).
    return walk(id, (n) => parents.get(n) ?? [], candidate).has(candidate);
  };
}

/** Labellings (spanning-forest intervals, GRAIL): how many random-order ones to keep. */
const GRAIL_LABELS = 2;

/**
 * Reachability between nodes numbered in topological order (`from` reaches `to`), with the labels
 * described at upstreamCheck. Only ordered nodes are indexed: no path between two of them passes a node
 * on or after a cycle.
 */
function reachIndex(graph: PlanGraph, order: ReadonlyMap<string, number>): (from: number, to: number) => boolean {
  const n = order.size;
  const kids: number[][] = Array.from({ length: n }, () => []);
  const ups: number[][] = Array.from({ length: n }, () => []);
  for (const edge of graph.edges) {
    const a = order.get(edge.from);
    const b = order.get(edge.to);
    if (a === undefined || b === undefined) continue;
    kids[a]!.push(b);
    ups[b]!.push(a);
  }
  const tree = intervals(kids, (list) => list);
  const labels = Array.from({ length: GRAIL_LABELS }, (_, k) => grail(kids, shuffler(k + 1)));
  // Whether `a` may reach `b`: every labelling's interval of a contains b's (false: it cannot).
  const maybe = (a: number, b: number) => labels.every(({ low, rank }) => low[a]! <= low[b]! && rank[b]! <= rank[a]!);
  const seen = new Uint32Array(n);
  let question = 0;
  return (from, to) => {
    if (from >= to) return false;
    if (tree.pre[from]! <= tree.pre[to]! && tree.post[to]! <= tree.post[from]!) return true;
    if (!maybe(from, to)) return false;
    question += 1;
    const stack = [to];
    while (stack.length > 0) {
      for (const x of ups[stack.pop()!]!) {
        if (x === from) return true;
        if (x < from || seen[x] === question || !maybe(from, x)) continue;
        seen[x] = question;
        stack.push(x);
      }
    }
    return false;
  };
}

/** Pre- and post-order numbers of a depth-first forest over the DAG, roots taken in topological order. */
function intervals(kids: readonly number[][], arrange: (list: readonly number[]) => readonly number[]): { pre: Uint32Array; post: Uint32Array } {
  const n = kids.length;
  const pre = new Uint32Array(n);
  const post = new Uint32Array(n);
  const visited = new Uint8Array(n);
  let clock = 0;
  let done = 0;
  for (let root = 0; root < n; root++) {
    if (visited[root]) continue;
    visited[root] = 1;
    pre[root] = clock++;
    const stack: Array<{ node: number; next: number; list: readonly number[] }> = [{ node: root, next: 0, list: arrange(kids[root]!) }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.list.length) {
        const child = top.list[top.next++]!;
        if (visited[child]) continue;
        visited[child] = 1;
        pre[child] = clock++;
        stack.push({ node: child, next: 0, list: arrange(kids[child]!) });
      } else {
        post[top.node] = done++;
        stack.pop();
      }
    }
  }
  return { pre, post };
}

/**
 * One GRAIL labelling: each node's rank in a post-order of a depth-first forest (children in the
 * order `arrange` gives), and the least rank among it and everything below it. If `a` reaches `b`,
 * b's [low, rank] lies within a's.
 */
function grail(kids: readonly number[][], arrange: (list: readonly number[]) => readonly number[]): { low: Uint32Array; rank: Uint32Array } {
  const { post } = intervals(kids, arrange);
  const low = new Uint32Array(post);
  // Children come later in topological order: from the last node back, each takes its children's least.
  for (let x = kids.length - 1; x >= 0; x--) for (const child of kids[x]!) if (low[child]! < low[x]!) low[x] = low[child]!;
  return { low, rank: post };
}

/** A list shuffled by a fixed seed (the labels differ between labellings, not between runs). */
function shuffler(seed: number): (list: readonly number[]) => readonly number[] {
  const next = seededRandom(seed);
  return (list) => {
    if (list.length < 2) return list;
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
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
