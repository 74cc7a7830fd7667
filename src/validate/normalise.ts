import { normaliseStatus } from '../model/status.js';
import type { PlanGraph } from '../model/types.js';

/**
 * The graph as the engine stores it: statuses in canonical English (seed aliases translated, a
 * missing status set to `pending`). Unknown statuses are left as written (validation reports them).
 * Returns a copy; the input is not changed.
 */
export function normaliseGraph(graph: PlanGraph): PlanGraph {
  return {
    ...graph,
    attributes: { ...graph.attributes },
    clusters: graph.clusters.map((c) => ({ ...c, attributes: { ...c.attributes } })),
    edges: graph.edges.map((e) => ({ ...e, attributes: { ...e.attributes } })),
    nodes: graph.nodes.map((node) => {
      const attributes = { ...node.attributes };
      const status = attributes['status'];
      if (status === undefined) {
        if (Object.keys(attributes).length > 0) attributes['status'] = 'pending';
      } else {
        attributes['status'] = normaliseStatus(status) ?? status;
      }
      return { ...node, attributes };
    }),
  };
}
