import { cancelTree, pauseTree } from '../../operations/cascade.js';
import type { Store } from '../../store/types.js';
import type { BenchBackend, BenchResult } from '../results.js';
import { median } from '../results.js';
import type { ScratchStore } from '../scratch-store.js';
import { independentPlan } from './shapes.js';

const OWNER = 'bench-claims';
const BENCH = { driver: 'operator', name: 'bench' } as const;

/** One node claimed from the plan's ready nodes: the claim's time in ms. */
async function timeClaim(store: Store, planId: string): Promise<number> {
  const started = performance.now();
  const [claimed] = await store.queue.claim({ owner: OWNER, limit: 1, leaseMs: 60_000 });
  const ms = performance.now() - started;
  if (claimed?.planId !== planId)
    throw new Error(`paused claims: claimed ${claimed ? `${claimed.planId}/${claimed.nodeId}` : 'nothing'}, not a node of ${planId}`);
  return ms;
}

/**
 * What a paused plan costs the claims of others, on two fresh databases made alike: in one, a plan of
 * `paused` ready nodes is paused beside a running plan of `claims` nodes; in the other, the same plans
 * with the first one cancelled instead (so that the tables are as large). One node at a time is then
 * claimed from each running plan in turn — the two in alternating order, so that a machine whose speed
 * drifts slows both alike — and the ratio of the two medians is the figure, in ×. The paused plan's
 * nodes are older than the running plan's: a scan in due order meets them first.
 */
export async function measurePausedClaims(
  backend: BenchBackend,
  openScratch: () => Promise<ScratchStore>,
  paused: number,
  claims: number,
): Promise<BenchResult> {
  const [beside, alone] = [await openScratch(), await openScratch()];
  try {
    const held = await beside.store.plans.create(independentPlan(paused, `paused plan of ${paused} ready nodes`));
    await pauseTree(beside.store, held.id, BENCH, 'bench: paused beside a running plan');
    const gone = await alone.store.plans.create(independentPlan(paused, `cancelled plan of ${paused} nodes`));
    await cancelTree(alone.store, gone.id, BENCH, 'bench: cancelled, not paused');
    const running = await beside.store.plans.create(independentPlan(claims, 'claims beside a paused plan'));
    const single = await alone.store.plans.create(independentPlan(claims, 'claims alone'));
    const withPaused: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < claims; i++) {
      if (i % 2 === 0) {
        withPaused.push(await timeClaim(beside.store, running.id));
        without.push(await timeClaim(alone.store, single.id));
      } else {
        without.push(await timeClaim(alone.store, single.id));
        withPaused.push(await timeClaim(beside.store, running.id));
      }
    }
    return { backend, scenario: 'paused-claim', value: Math.round((median(withPaused) / median(without)) * 100) / 100, unit: '×' };
  } finally {
    await beside.dispose();
    await alone.dispose();
  }
}
