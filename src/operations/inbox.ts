import { answerCommand } from '../model/command-line.js';
import { waitingFrom, type Waiting } from '../model/waiting.js';
import { pathFromRoot } from '../store/tree/path-from-root.js';
import type { Store } from '../store/types.js';

/** One thing waiting for a person, as `dotplan inbox` lists it. */
export interface InboxEntry extends Waiting {
  /** How long it has waited, in ms. */
  waitedMs: number;
  /** The command that answers it (a review: approve; `plan reject --reason` and `plan modify` too). */
  command: string;
  /** A question in a child plan: where it is from the root (`<root title> › research › searcher_001 › approve`). */
  path?: string;
}

/** What waits for a person (every plan's, or one plan's and its descendants'), oldest first, each with the command that answers it. */
export async function inbox(store: Store, planId?: string): Promise<InboxEntry[]> {
  if (planId !== undefined) await store.plans.get(planId);
  const now = Date.now();
  const entries: InboxEntry[] = [];
  for (const item of await store.plans.waiting(planId)) {
    const waiting = waitingFrom(item);
    const path = await pathFromRoot(store.tree, item.planId, item.nodeId);
    entries.push({ ...waiting, waitedMs: Math.max(0, now - item.since.getTime()), command: answerCommand(waiting), ...(path ? { path } : {}) });
  }
  return entries;
}
