import type { BenchBackend, BenchResult } from '../results.js';
import { chainLatencyResults } from '../stats.js';
import type { Store } from '../../store/types.js';
import type { ToolCatalogue } from '../../tools/types.js';
import type { RunLog } from './run-log.js';
import { checkRun, runPlan, type RunCheck } from './run-plan.js';
import { chainPlan } from './shapes.js';

/**
 * Chain latency: a plan that is a chain of `steps` no-op nodes, run by one worker; each step can
 * only start once the one before is done and readiness has propagated, so the gaps between the
 * tool's start times are what one step costs (finish, propagate, wake, claim). p50/p95 in ms.
 */
export async function measureChain(
  backend: BenchBackend,
  store: Store,
  tools: ToolCatalogue,
  log: RunLog,
  steps: number,
  concurrency: number,
): Promise<{ results: BenchResult[]; check: RunCheck }> {
  const plan = await store.createPlan(chainPlan(steps));
  await store.startPlan(plan.id);
  await runPlan(store, tools, plan.id, concurrency, 60_000 + steps * 100);
  const check = await checkRun(store, log, plan.id);
  return { results: chainLatencyResults(backend, log.starts(plan.id)), check };
}
