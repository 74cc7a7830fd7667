import { answerCommand } from '../model/command-line.js';
import { waitingFrom, type Waiting } from '../model/waiting.js';
import { chainIn, pathOf, subtreeIn } from '../store/tree/path-from-root.js';
import type { PlanRecord, Store, WaitingItem } from '../store/types.js';
import type { DotplanReads } from './dotplan-reads.js';

/** One thing waiting for a person, as `dotplan inbox` lists it. */
export interface InboxEntry extends Waiting {
  /** How long it has waited, in ms. */
  waitedMs: number;
  /** The command that answers it (a review: approve; `plan reject --reason` and `plan modify` too). */
  command: string;
  /** A question in a child plan: where it is from the root (`<root title> › research › searcher_001 › approve`). */
  path?: string;
}

/**
 * What waits for a person (every plan's, or one plan's and its descendants'), oldest first, each with
 * the command that answers it. One plan's: its tree read once (its places, then what waits in the whole
 * tree), the paths from the root made of those places; every plan's: the chains of the plans that have
 * something waiting, read at once.
 */
export async function inbox(store: Store, planId?: string): Promise<InboxEntry[]> {
  const now = Date.now();
  const { items, pathOf } = planId === undefined ? await everywhere(store) : await within(store, planId);
  return items.map((item) => {
    const waiting = waitingFrom(item);
    const path = pathOf(item);
    return { ...waiting, waitedMs: Math.max(0, now - item.since.getTime()), command: answerCommand(waiting), ...(path ? { path } : {}) };
  });
}

type Located = { items: WaitingItem[]; pathOf: (item: WaitingItem) => string | undefined };

async function everywhere(store: Store): Promise<Located> {
  const items = await store.plans.waiting();
  const chains = await store.tree.chainsOf([...new Set(items.map((item) => item.planId))]);
  return { items, pathOf: (item) => pathOf(chains.get(item.planId) ?? [], item.nodeId) };
}

/** What waits in `planId` and in every plan below it (a plan that does not exist: NOT_FOUND). */
async function within(store: Store, planId: string): Promise<Located> {
  const places = await store.tree.treeOf(planId);
  const inside = subtreeIn(places, planId);
  const items = (await store.plans.waiting(places[0]!.id, { tree: true })).filter((item) => inside.has(item.planId));
  return { items, pathOf: (item) => pathOf(chainIn(places, item.planId), item.nodeId) };
}

/**
 * Every plan, oldest first, with how many questions and reviews wait for a person in each plan and in
 * every plan below it (`plan list`'s WAITING): the plans and what waits read at once, no path made.
 */
export async function plansWithWaiting(dotplan: DotplanReads): Promise<{ plans: PlanRecord[]; waiting: Map<string, number> }> {
  const [plans, items] = await Promise.all([dotplan.plans(), dotplan.store.plans.waiting()]);
  const parentOf = new Map(plans.flatMap((p) => (p.parent ? [[p.id, p.parent.planId] as const] : [])));
  const waiting = new Map<string, number>();
  for (const item of items) {
    const seen = new Set<string>();
    for (let id: string | undefined = item.planId; id !== undefined && !seen.has(id); id = parentOf.get(id)) {
      seen.add(id);
      waiting.set(id, (waiting.get(id) ?? 0) + 1);
    }
  }
  return { plans, waiting };
}
