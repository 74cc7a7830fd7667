import type { BenchBackend, BenchResult } from '../results.js';
import { throughputResult } from '../stats.js';
import type { Store } from '../../store/types.js';
import type { ToolCatalogue } from '../../tools/types.js';
import type { RunLog } from './run-log.js';
import { checkRun, runPlan, type RunCheck } from './run-plan.js';
import { independentPlan } from './shapes.js';

/**
 * Throughput: one plan of `nodes` independent no-op nodes, stored and started (every node ready)
 * before the clock starts; then one worker with `concurrency` runs it to completion. Nodes per
 * second from just before `worker.start()` until the plan's completion is announced.
 */
export async function measureThroughput(
  backend: BenchBackend,
  store: Store,
  tools: ToolCatalogue,
  log: RunLog,
  nodes: number,
  concurrency: number,
): Promise<{ result: BenchResult; check: RunCheck; elapsedMs: number }> {
  const plan = await store.plans.create(independentPlan(nodes));
  const run = await runPlan(store, tools, plan.id, concurrency, 60_000 + nodes * 20);
  const elapsedMs = run.finishedAt - run.startedAt;
  const check = await checkRun(store, log, plan.id);
  return { result: throughputResult(backend, nodes, elapsedMs), check, elapsedMs };
}
