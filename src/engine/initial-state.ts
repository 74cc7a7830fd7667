import { TERMINAL_NODE_STATUSES } from '../model/status.js';
import type { Attributes, NodeStatus, NodeType, PlanGraph, PlanStatus } from '../model/types.js';
import { isTaken } from './readiness.js';
import type { NodeState, OutEdge, Snapshot } from './snapshot.js';

/** Node attributes kept as live state (row columns) rather than among the DOT attributes. */
export const LIVE_ATTRIBUTES: ReadonlySet<string> = new Set(['status', 'toolOutput', 'answer', 'error']);

/**
 * A new plan's live state, read from its (validated, normalised) graph: each node's authored status
 * and live fields, and its readiness counters; the whole plan as a snapshot for the start step.
 */
export function initialSnapshot(id: string, graph: PlanGraph, status: PlanStatus = 'draft'): { snapshot: Snapshot; candidates: string[] } {
  const nodes = new Map<string, NodeState>();
  for (const node of graph.nodes) nodes.set(node.id, initialNode(node.id, node.attributes));
  const edges = new Map<string, OutEdge[]>(graph.nodes.map((n) => [n.id, []]));
  for (const edge of graph.edges) {
    const when = edge.attributes.when;
    edges.get(edge.from)?.push(when === undefined ? { to: edge.to } : { to: edge.to, when });
    const source = nodes.get(edge.from);
    const target = nodes.get(edge.to);
    if (!source || !target) continue;
    target.root = false;
    if (!TERMINAL_NODE_STATUSES.has(source.status)) target.waiting++;
    else if (isTaken(source, when)) target.taken++;
  }
  const plan = { id, status, mode: graph.attributes.mode ?? 'workflow', attributes: graph.attributes };
  const candidates = [...nodes.values()].filter((n) => n.status === 'pending' && n.waiting === 0).map((n) => n.id);
  return { snapshot: { plan, nodes, edges }, candidates };
}

/** A node's attributes without its live fields (those are columns of its row). */
export function authoredAttributes(attributes: Attributes): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([key]) => !LIVE_ATTRIBUTES.has(key)));
}

/** A node as its (normalised) attributes describe it: authored status and live fields; counters zero. */
export function initialNode(id: string, attributes: Attributes): NodeState {
  const node: NodeState = {
    id,
    type: (attributes.type ?? 'function') as NodeType,
    status: (attributes.status ?? 'pending') as NodeStatus,
    attempts: 0,
    waiting: 0,
    taken: 0,
    root: true,
    attributes: authoredAttributes(attributes),
  };
  if (attributes.toolOutput !== undefined) node.output = attributes.toolOutput;
  if (attributes.answer !== undefined) node.answer = attributes.answer;
  if (attributes.error !== undefined) node.error = attributes.error;
  return node;
}
