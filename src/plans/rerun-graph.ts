import { authoredAttributes } from '../engine/initial-state.js';
import type { NodeStatus, PlanGraph } from '../model/types.js';
import { groupBy } from '../model/group-by.js';

/** What a rerun needs of each node of the old plan: its live state. */
export interface OldNode {
  id: string;
  status: NodeStatus;
  output?: string;
  answer?: string;
}

/**
 * The plan `plan rerun` makes of a stored one (pure): the old plan's latest revision with every
 * node pending — or, from a node on, that node, every node that did not finish `done` and
 * everything downstream of them pending, while a done node none of them leads to keeps its result
 * (status done, its output and answer). Live fields the revision's text was written with are
 * dropped. Returns the graph and the nodes whose results it carries over.
 */
export function rerunGraph(revision: PlanGraph, nodes: readonly OldNode[], from?: string): { graph: PlanGraph; carried: string[] } {
  const old = new Map(nodes.map((n) => [n.id, n]));
  const again =
    from === undefined
      ? new Set(revision.nodes.map((n) => n.id))
      : downstream(revision, [from, ...revision.nodes.filter((n) => old.get(n.id)?.status !== 'done').map((n) => n.id)]);
  const carried: string[] = [];
  const graph: PlanGraph = {
    ...revision,
    nodes: revision.nodes.map((node) => {
      const attributes = authoredAttributes(node.attributes);
      const result = old.get(node.id);
      if (again.has(node.id) || !result) return { ...node, attributes: { ...attributes, status: 'pending' } };
      carried.push(node.id);
      return {
        ...node,
        attributes: {
          ...attributes,
          status: 'done',
          ...(result.output !== undefined ? { toolOutput: result.output } : {}),
          ...(result.answer !== undefined ? { answer: result.answer } : {}),
        },
      };
    }),
  };
  return { graph, carried };
}

/** The given nodes and every node a path of edges leads to from them. */
function downstream(graph: PlanGraph, starts: readonly string[]): Set<string> {
  const children = groupBy(
    graph.edges,
    (edge) => edge.from,
    (edge) => edge.to,
  );
  const seen = new Set<string>();
  const stack = [...starts];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(children.get(id) ?? []));
  }
  return seen;
}
