import type { ChildStarter } from '../../kinds/agent-child.js';
import { defaultConfig } from '../../config/defaults.js';
import type { PlanStatus } from '../../model/types.js';
import type { Store } from '../../store/types.js';
import type { ToolCatalogue } from '../../tools/types.js';
import { Worker } from '../../worker/worker.js';
import type { RunLog } from './run-log.js';

/** A safety-net poll every `seconds` seconds, as node-cron spells it. */
const everySeconds = (seconds: number) => `*/${seconds} * * * * *`;
/** The safety-net poll of the benchmark workers: every second (wake-ups do the real work). */
export const BENCH_POLL = everySeconds(1);
const FINISHED: readonly PlanStatus[] = ['completed', 'failed', 'cancelled', 'rejected'];

export interface PlanRun {
  /** `performance.now()` just before the worker started. */
  startedAt: number;
  /** `performance.now()` when the plan's completion was announced (its `plan` wake-up). */
  finishedAt: number;
}

/** What a finished run did, checked against the store and the tool's own log. */
export interface RunCheck {
  nodes: number;
  /** Nodes whose status is `done`. */
  done: number;
  /** Tool runs in all. */
  toolRuns: number;
  /** Nodes whose tool ran exactly once. */
  ranOnce: number;
  planStatus: PlanStatus;
}

/** How a run's worker is set up beyond its concurrency. */
export interface RunOptions {
  /** The agent nodes' child starter. */
  children?: ChildStarter;
  /**
   * Seconds between the safety-net polls (the worker's, and this run's own check that the plan ended).
   * Default 1. A poll's statements are per second, not per step: a count of what a step costs polls as
   * seldom as the product does by default (30), so that a slow machine does not count more per step.
   */
  pollSeconds?: number;
}

/**
 * Runs a started plan to its end with a real Worker (the given concurrency, a safety-net poll every
 * `pollSeconds`, one by default) and times it: from just before `worker.start()` until the store announces the
 * plan's completion. Throws when the plan does not complete, a worker error occurs, or it takes
 * longer than `timeoutMs`.
 */
export async function runPlan(
  store: Store,
  tools: ToolCatalogue,
  planId: string,
  concurrency: number,
  timeoutMs: number,
  { children, pollSeconds = 1 }: RunOptions = {},
): Promise<PlanRun> {
  const errors: unknown[] = [];
  let settle!: (result: { at: number; status: PlanStatus } | Error) => void;
  const finished = new Promise<{ at: number; status: PlanStatus } | Error>((resolve) => (settle = resolve));
  const check = async (at: number) => {
    try {
      const { status } = await store.plans.get(planId);
      if (FINISHED.includes(status)) settle({ at, status });
    } catch (error) {
      settle(error instanceof Error ? error : new Error(String(error)));
    }
  };
  const unsubscribe = store.events.onWake((event) => {
    if (event.reason === 'plan' && event.planId === planId) void check(performance.now());
  });
  const safety = setInterval(() => void check(performance.now()), pollSeconds * 1000);
  const timer = setTimeout(() => settle(new Error(`plan ${planId} did not finish within ${timeoutMs} ms`)), timeoutMs);
  const worker = new Worker({
    store,
    tools,
    poll: everySeconds(pollSeconds),
    concurrency,
    leaseMs: 30_000,
    retryDefaults: defaultConfig().retry,
    ...(children ? { children } : {}),
  });
  worker.on('worker:error', (error) => {
    errors.push(error);
    settle(error instanceof Error ? error : new Error(String(error)));
  });

  // The completion check reads the plan through Prisma, whose client is made on first use: made now,
  // so that its start-up (~0.1 s) is not timed as the worker's.
  await store.plans.get(planId);
  const startedAt = performance.now();
  worker.start();
  const result = await finished;
  unsubscribe();
  clearInterval(safety);
  clearTimeout(timer);
  await worker.stop({ drain: true });
  if (result instanceof Error) throw new Error(`benchmark run failed: ${result.message}`, { cause: result });
  if (result.status !== 'completed') throw new Error(`benchmark plan ${planId} ended ${result.status}, not completed`);
  if (errors.length > 0) throw new Error(`worker error during the benchmark: ${String(errors[0])}`);
  return { startedAt, finishedAt: result.at };
}

/** Every node done and its tool run exactly once, or an error saying what went wrong. */
export async function checkRun(store: Store, log: RunLog, planId: string): Promise<RunCheck> {
  const [plan, nodes] = await Promise.all([store.plans.get(planId), store.plans.nodes(planId)]);
  const runs = log.runs(planId);
  const check: RunCheck = {
    nodes: nodes.length,
    done: nodes.filter((n) => n.status === 'done').length,
    toolRuns: [...runs.values()].reduce((a, b) => a + b, 0),
    ranOnce: nodes.filter((n) => runs.get(n.id) === 1).length,
    planStatus: plan.status,
  };
  if (check.planStatus !== 'completed' || check.done !== check.nodes || check.ranOnce !== check.nodes || check.toolRuns !== check.nodes) {
    throw new Error(`benchmark plan ${planId} did not run cleanly: ${JSON.stringify(check)}`);
  }
  return check;
}
