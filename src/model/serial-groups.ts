import type { GraphEdge, PlanGraph } from './types.js';

/** The attribute that marks an edge a serial group implies (never written in DOT text). */
export const IMPLICIT_EDGE = 'implicit';

/**
 * Serial task groups (seed 002 §2.2): `subgraph cluster_x { parallel=false … }` runs the nodes
 * declared directly in it one after another, in declaration order, as if each had an edge to the
 * next — the implicit edges, stored and run like any edge, drawn dashed, never written into the DOT
 * text (an edit or a rewrite of the group changes them). `parallel=true`, the default, adds none.
 * A node of a cluster nested in the group is not one of its members.
 */
export function serialGroups(graph: PlanGraph): Array<{ cluster: string; members: string[] }> {
  return graph.clusters
    .filter((c) => c.attributes.parallel === 'false')
    .map((c) => ({ cluster: c.id, members: graph.nodes.filter((n) => n.cluster === c.id).map((n) => n.id) }));
}

export function isImplicit(edge: GraphEdge): boolean {
  return edge.attributes[IMPLICIT_EDGE] !== undefined;
}

/** The implicit edges of the graph's serial groups (one per consecutive pair without an explicit edge). */
export function serialEdges(graph: PlanGraph): GraphEdge[] {
  const explicit = new Set(graph.edges.filter((e) => !isImplicit(e)).map((e) => `${e.from}\u0000${e.to}`));
  const out: GraphEdge[] = [];
  for (const { cluster, members } of serialGroups(graph)) {
    const location = graph.clusters.find((c) => c.id === cluster)?.location;
    for (let i = 1; i < members.length; i++) {
      const [from, to] = [members[i - 1]!, members[i]!];
      if (explicit.has(`${from}\u0000${to}`)) continue;
      out.push({ from, to, attributes: { [IMPLICIT_EDGE]: cluster }, ...(location ? { location } : {}) });
    }
  }
  return out;
}

/** The graph with exactly its serial groups' implicit edges (any it carried are made afresh). */
export function withSerialEdges(graph: PlanGraph): PlanGraph {
  const explicit = graph.edges.filter((e) => !isImplicit(e));
  const base = explicit.length === graph.edges.length ? graph : { ...graph, edges: explicit };
  const implicit = serialEdges(base);
  return implicit.length === 0 && base === graph ? graph : { ...base, edges: [...explicit, ...implicit] };
}
