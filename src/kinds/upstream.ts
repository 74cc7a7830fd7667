import { findReferences } from '../model/references.js';
import type { ClaimedNode, PlanStore } from '../store/types.js';
import { isDatabaseUnreachable } from '../store/unreachable.js';

/** An upstream node as references see it. */
export type UpstreamNode = { output?: string; answer?: string; status: string };

/** The database could not be reached to read a node's upstream outputs: nothing ran, the attempt is released uncounted. */
export class UpstreamUnreachable extends Error {
  constructor(cause: unknown) {
    super(`the upstream outputs could not be read: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** The ids of the nodes these texts refer to (`{{nodes.<id>.output|answer}}`). */
export function referencedNodes(texts: ReadonlyArray<string | undefined>): Set<string> {
  const ids = new Set<string>();
  for (const text of texts) {
    if (!text || !text.includes('{{')) continue;
    for (const ref of findReferences(text)) if (ref.kind === 'nodes') ids.add(ref.node);
  }
  return ids;
}

/** Reads only the upstream nodes these texts refer to (no DOT parsing, no whole-plan read). */
export async function fetchReferencedNodes(claim: ClaimedNode, plans: PlanStore, texts: ReadonlyArray<string | undefined>): Promise<Map<string, UpstreamNode>> {
  const ids = referencedNodes(texts);
  const found = new Map<string, UpstreamNode>();
  if (ids.size === 0) return found;
  await Promise.all(
    [...ids].map(async (id) => {
      const node = await plans.node(claim.planId, id);
      found.set(id, {
        status: node.status,
        ...(node.output !== undefined ? { output: node.output } : {}),
        ...(node.answer !== undefined ? { answer: node.answer } : {}),
      });
    }),
  ).catch((error: unknown) => {
    throw isDatabaseUnreachable(error) ? new UpstreamUnreachable(error) : error;
  });
  return found;
}
