import type { TreePlace } from '../sql/tree.js';

/**
 * Where a plan of a tree is, for a person: the root's title, each agent node and instance down to it,
 * then the node (`Report › research › searcher_001 › approve`). Undefined for a root plan. What the
 * inbox lists and notices say of a question in a child plan.
 */
export async function pathFromRoot(
  tree: { chainOf(planId: string): Promise<TreePlace[]> },
  planId: string,
  nodeId: string | undefined,
): Promise<string | undefined> {
  const chain = await tree.chainOf(planId);
  if (chain.length < 2) return undefined;
  const steps = chain.slice(1).flatMap((place) => [place.parentNodeId ?? '?', place.instance ?? place.id]);
  return [chain[0]!.title, ...steps, ...(nodeId !== undefined ? [nodeId] : [])].join(' › ');
}
