import type { TreePlace } from '../sql/tree.js';

/**
 * Where node `nodeId` of the last plan of `chain` (root first) is, for a person: the root's title, each
 * agent node and instance down to it, then the node (`Report › research › searcher_001 › approve`).
 * Undefined for a root plan. What the inbox lists and notices say of a question in a child plan.
 */
export function pathOf(chain: readonly TreePlace[], nodeId: string | undefined): string | undefined {
  if (chain.length < 2) return undefined;
  const steps = chain.slice(1).flatMap((place) => [place.parentNodeId ?? '?', place.instance ?? place.id]);
  return [chain[0]!.title, ...steps, ...(nodeId !== undefined ? [nodeId] : [])].join(' › ');
}

/** The chain root → `planId` among the places of its tree (TreeStore.treeOf's), root first. */
export function chainIn(places: readonly TreePlace[], planId: string): TreePlace[] {
  const byId = new Map(places.map((place) => [place.id, place]));
  const chain: TreePlace[] = [];
  for (let place = byId.get(planId); place !== undefined; place = place.parentPlanId === null ? undefined : byId.get(place.parentPlanId)) chain.unshift(place);
  return chain;
}

/** `top` and every plan below it, among the places of its tree (TreeStore.treeOf's: root → leaf). */
export function subtreeIn(places: readonly TreePlace[], top: string): Set<string> {
  const inside = new Set([top]);
  for (const place of places) if (place.parentPlanId !== null && inside.has(place.parentPlanId)) inside.add(place.id);
  return inside;
}
