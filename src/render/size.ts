import type { PlanGraph } from '../model/types.js';

/**
 * The largest plan drawn node by node. Measured with @viz-js/viz 3.31 on a 2-core machine
 * (dot layout, boxes with labels): 1,000 nodes take 0.2–0.3 s, 2,000 nodes 0.4 s as a chain and 1 s
 * fanned out from one node, 5,000 fanned out 13 s, 10,000 fanned out 44 s, and at 20,000 Graphviz
 * overflows the stack. Past a couple of thousand boxes the picture is unreadable anyway: such a plan
 * is drawn as a summary (its nodes counted by status) instead.
 */
export const MAX_DRAWN_NODES = 2_000;
/** The same bound for edges (a layout's cost grows with them too). */
export const MAX_DRAWN_EDGES = 4_000;

/** Why `graph` is too large to draw node by node, or undefined when it is not. */
export function tooLargeToDraw(graph: PlanGraph): string | undefined {
  const nodes = graph.nodes.length;
  const edges = graph.edges.length;
  if (nodes <= MAX_DRAWN_NODES && edges <= MAX_DRAWN_EDGES) return undefined;
  const over = nodes > MAX_DRAWN_NODES ? `more than ${count(MAX_DRAWN_NODES)} nodes` : `more than ${count(MAX_DRAWN_EDGES)} edges`;
  return `the plan has ${count(nodes)} nodes and ${count(edges)} edges, too many to draw legibly (${over}): drawn as counts by status instead`;
}

/** 20000 → "20,000". */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}
