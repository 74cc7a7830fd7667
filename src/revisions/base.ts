import { authoredAttributes, LIVE_ATTRIBUTES } from '../engine/initial-state.js';
import type { Attributes, PlanGraph } from '../model/types.js';

/** A node's live fields as the plan holds them now. */
export interface LiveFields {
  status: string;
  output?: string;
  answer?: string;
  error?: string;
}

/** What the audit log says of a status move. */
export interface StatusMove {
  id: number;
  nodeId?: string;
  kind: string;
  to: string;
}

/**
 * The plan an edit was made from (SPEC §9), for the three-way merge: revision N's structure with
 * each node's status as it was at event `asOfEvent` — the last move the audit log records up to
 * there, else the status revision N was written with. A node that has not moved since keeps its
 * other live fields as they are now; one that has moved takes them from the edit, so that only its
 * status (which the merge compares) tells the two sides apart. Pure.
 */
export function baseGraph(
  revision: PlanGraph,
  moves: readonly StatusMove[],
  asOfEvent: number,
  now: ReadonlyMap<string, LiveFields>,
  edited: PlanGraph,
): PlanGraph {
  const statusAt = new Map<string, string>();
  for (const move of moves) if (move.kind === 'status' && move.nodeId !== undefined && move.id <= asOfEvent) statusAt.set(move.nodeId, move.to);
  const editedNodes = new Map(edited.nodes.map((n) => [n.id, n.attributes]));
  return {
    ...revision,
    nodes: revision.nodes.map((node) => {
      const status = statusAt.get(node.id) ?? node.attributes.status ?? 'pending';
      const current = now.get(node.id);
      const source: Attributes = current?.status === status ? liveAttributes(current) : (editedNodes.get(node.id) ?? {});
      const attributes = authoredAttributes(node.attributes);
      for (const key of LIVE_ATTRIBUTES) if (source[key] !== undefined) attributes[key] = source[key];
      attributes.status = status;
      return { ...node, attributes };
    }),
  };
}

/** The live fields as DOT attributes (`toolOutput` for the output). */
export function liveAttributes(fields: LiveFields): Attributes {
  const out: Attributes = { status: fields.status };
  if (fields.output !== undefined) out.toolOutput = fields.output;
  if (fields.answer !== undefined) out.answer = fields.answer;
  if (fields.error !== undefined) out.error = fields.error;
  return out;
}
