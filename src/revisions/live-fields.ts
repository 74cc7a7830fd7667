import { LIVE_ATTRIBUTES } from '../engine/initial-state.js';
import type { PlanGraph } from '../model/types.js';

/**
 * The one rule for live fields in a revision (SPEC §9), for every author — `plan apply`,
 * `plan edit`, `plan modify --dot`, `plan revert`, an LLM reply: a live field (`status`,
 * `toolOutput`, `answer`, `error`) that the new text leaves out of a node the plan has is kept as
 * `current` has it — left out is no change, so a reply that writes only what it changes moves
 * nothing; one the text gives is compared with `current` (a move asked of the state machine, or
 * history nobody rewrites). A node the text adds without a status is `pending`. A node only
 * mentioned in an edge (no attributes) is left as it is, for the validator to name. Pure.
 */
export function keepLiveFields(current: PlanGraph, edited: PlanGraph): PlanGraph {
  const before = new Map(current.nodes.map((n) => [n.id, n]));
  return {
    ...edited,
    nodes: edited.nodes.map((node) => {
      if (Object.keys(node.attributes).length === 0) return node;
      const was = before.get(node.id);
      const attributes = { ...node.attributes };
      if (!was) attributes.status ??= 'pending';
      else for (const key of LIVE_ATTRIBUTES) if (attributes[key] === undefined && was.attributes[key] !== undefined) attributes[key] = was.attributes[key];
      return { ...node, attributes };
    }),
  };
}
