import type { BenchBackend, BenchResult } from '../results.js';
import type { Store } from '../../store/types.js';
import type { ToolCatalogue } from '../../tools/types.js';
import type { RunLog } from './run-log.js';
import { checkRun, runPlan, type RunCheck } from './run-plan.js';
import { joinPlan } from './shapes.js';

/**
 * A wide join: `nodes` independent no-op nodes that all lead to one join node, run like the
 * throughput plan (the same fan-out without the join). Reported as the join plan's time divided by
 * the fan-out's (`fanOutMs`, from the throughput run of the same round): a join's readiness costs
 * O(1) per finishing parent, so the ratio stays near 1 however wide the join.
 */
export async function measureJoin(
  backend: BenchBackend,
  store: Store,
  tools: ToolCatalogue,
  log: RunLog,
  nodes: number,
  concurrency: number,
  fanOutMs: number,
): Promise<{ result: BenchResult; check: RunCheck; elapsedMs: number }> {
  const plan = await store.plans.create(joinPlan(nodes));
  const run = await runPlan(store, tools, plan.id, concurrency, 60_000 + nodes * 20);
  const elapsedMs = run.finishedAt - run.startedAt;
  const check = await checkRun(store, log, plan.id);
  return { result: { backend, scenario: 'join-vs-fan-out', value: Math.round((elapsedMs / fanOutMs) * 1000) / 1000, unit: '×' }, check, elapsedMs };
}
