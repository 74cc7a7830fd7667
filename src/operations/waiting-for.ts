import { waitsFor, type Wait } from '../plans/waits-for.js';
import type { Store } from '../store/types.js';

/** What the plan waits for now (`plan show`), from the plan, its nodes, what in it waits for a person and its LLM work. */
export async function waitingFor(store: Store, planId: string): Promise<Wait[]> {
  const plan = await store.plans.get(planId);
  const [nodes, people, llm, now] = await Promise.all([store.plans.nodes(planId), store.plans.waiting(planId), store.llm.state(planId), store.attention.now()]);
  return waitsFor({ plan, nodes, people, llm, now });
}
