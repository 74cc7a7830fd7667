import { waitsFor, type Wait } from '../plans/waits-for.js';
import type { Store } from '../store/types.js';

/** What the plan waits for now (`plan show`), from the plan, its nodes, what in it waits for a person and its LLM work. */
export async function waitingFor(store: Store, planId: string): Promise<Wait[]> {
  const plan = await store.plans.get(planId);
  // Only the ready and running nodes and a count per status are read: a plan of 10,000 nodes is not read whole.
  const [nodes, counts, people, llm, now] = await Promise.all([
    store.plans.activeNodes(planId),
    store.plans.statusCounts(planId),
    store.plans.waiting(planId),
    store.llm.state(planId),
    store.attention.now(),
  ]);
  return waitsFor({ plan, nodes, people, llm, now, empty: Object.keys(counts).length === 0 });
}
