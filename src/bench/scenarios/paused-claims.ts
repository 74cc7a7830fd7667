import { cancelTree, pauseTree } from '../../operations/cascade.js';
import type { Store } from '../../store/types.js';
import type { BenchBackend, BenchResult } from '../results.js';
import { median } from '../results.js';
import { independentPlan } from './shapes.js';

const OWNER = 'bench-claims';
const BENCH = { driver: 'operator', name: 'bench' } as const;

/** Claims one node at a time from the plan's ready nodes, `count` times; each claim's time in ms. */
async function timeClaims(store: Store, planId: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const [claimed] = await store.queue.claim({ owner: OWNER, limit: 1, leaseMs: 60_000 });
    times.push(performance.now() - started);
    if (claimed?.planId !== planId)
      throw new Error(`paused claims: claimed ${claimed ? `${claimed.planId}/${claimed.nodeId}` : 'nothing'}, not a node of ${planId}`);
  }
  return times;
}

/**
 * What a paused plan costs the claims of others: one node claimed at a time from a running plan,
 * first beside a paused plan of `paused` ready nodes that are older (so a scan in due order meets
 * them first), then — the paused plan cancelled, so that the tables are as large — without it.
 * The ratio of the two medians, in ×.
 */
export async function measurePausedClaims(backend: BenchBackend, store: Store, paused: number, claims: number): Promise<BenchResult> {
  const held = await store.plans.create(independentPlan(paused, `paused plan of ${paused} ready nodes`));
  await pauseTree(store, held.id, BENCH, 'bench: paused beside a running plan');
  const beside = await store.plans.create(independentPlan(claims, 'claims beside a paused plan'));
  const withPaused = median(await timeClaims(store, beside.id, claims));
  await cancelTree(store, held.id, BENCH, 'bench: the paused plan goes');
  const alone = await store.plans.create(independentPlan(claims, 'claims alone'));
  const without = median(await timeClaims(store, alone.id, claims));
  // Leave nothing claimable behind for the scenarios after this one.
  for (const id of [beside.id, alone.id]) await cancelTree(store, id, BENCH, 'bench: done');
  return { backend, scenario: 'paused-claim', value: Math.round((withPaused / without) * 100) / 100, unit: '×' };
}
