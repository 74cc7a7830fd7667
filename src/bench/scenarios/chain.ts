import type { BenchBackend, BenchResult, BenchScenario } from '../results.js';
import { chainLatencyResults, gaps, percentile } from '../stats.js';
import type { CreatePlanInput, Store } from '../../store/types.js';
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
  const plan = await store.plans.create(chainPlan(steps));
  await runPlan(store, tools, plan.id, concurrency, 60_000 + steps * 100);
  const check = await checkRun(store, log, plan.id);
  return { results: chainLatencyResults(backend, log.starts(plan.id)), check };
}

/**
 * The p50 step of another chain shape (a `when` on every edge, or two parents per step): the gaps
 * between the starts of the chain's own nodes (`onChain`), side nodes left out.
 */
export async function measureChainShape(
  backend: BenchBackend,
  scenario: BenchScenario,
  store: Store,
  tools: ToolCatalogue,
  log: RunLog,
  input: CreatePlanInput,
  onChain: (node: string) => boolean,
  concurrency: number,
): Promise<{ result: BenchResult; check: RunCheck }> {
  const plan = await store.plans.create(input);
  await runPlan(store, tools, plan.id, concurrency, 60_000 + input.graph.nodes.length * 100);
  const check = await checkRun(store, log, plan.id);
  const p50 = percentile(gaps(log.starts(plan.id, onChain)), 50);
  return { result: { backend, scenario, value: Math.round(p50 * 1000) / 1000, unit: 'ms' }, check };
}
