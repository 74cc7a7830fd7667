import { defaultConfig } from '../../config/defaults.js';
import type { Store } from '../../store/types.js';
import type { BenchBackend, BenchResult } from '../results.js';
import { finishedPlan } from './shapes.js';

/** Rounds averaged for the idle-poll figure (after a few unmeasured warm-up rounds). */
export const IDLE_ROUNDS = 50;
const WARM_UP = 5;
/** Plans created at once while filling the store (PostgreSQL uses them; SQLite serialises anyway). */
const CREATE_PARALLEL = 8;

export interface IdlePollCheck {
  /** Plans in the store when the polls were timed. */
  plans: number;
  /** Nodes the timed polls claimed: must be 0. */
  claimed: number;
}

/**
 * The cost of one idle poll: `plans` more stored plans (one-node plans whose node is done, added as
 * fast as the store takes them), then what a worker's poll round does when there is nothing to do
 * — take over expired leases, claim ready nodes, count active work — timed over IDLE_ROUNDS rounds.
 */
export async function measureIdlePoll(
  backend: BenchBackend,
  store: Store,
  plans: number,
  concurrency: number,
): Promise<{ result: BenchResult; check: IdlePollCheck }> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CREATE_PARALLEL, plans) }, async () => {
      while (next < plans) await store.plans.create(finishedPlan(next++));
    }),
  );
  const stored = (await store.plans.list()).length;
  const owner = `dotplan-bench-idle-${process.pid}`;
  const retryDefaults = defaultConfig().retry;
  let claimed = 0;
  const round = async () => {
    await store.queue.expire({ retryDefaults });
    claimed += (await store.queue.claim({ owner, limit: concurrency, leaseMs: 30_000 })).length;
    await store.queue.outlook();
  };
  for (let i = 0; i < WARM_UP; i++) await round();
  const started = performance.now();
  for (let i = 0; i < IDLE_ROUNDS; i++) await round();
  const ms = (performance.now() - started) / IDLE_ROUNDS;
  if (claimed > 0) throw new Error(`the idle-poll store had ready work: ${claimed} nodes were claimed`);
  return { result: { backend, scenario: 'idle-poll', value: Math.round(ms * 1000) / 1000, unit: 'ms' }, check: { plans: stored, claimed } };
}
