import type { BenchResult } from './results.js';
import type { BenchSizes, DotplanBench, DotplanBenchTarget } from './run.js';
import { openScratchStore } from './scratch-store.js';
import { measureChain } from './scenarios/chain.js';
import { measureIdlePoll, type IdlePollCheck } from './scenarios/idle-poll.js';
import { RunLog } from './scenarios/run-log.js';
import type { RunCheck } from './scenarios/run-plan.js';
import { measureThroughput } from './scenarios/throughput.js';

/**
 * dotplan's own benchmarks on one backend, with the real pieces: a store on an empty database,
 * the tool registry with a `noop` tool, and the Worker with its wake-ups. In order: throughput
 * (scenarios/throughput.ts), chain latency (scenarios/chain.ts), idle poll (scenarios/idle-poll.ts).
 * Every run is checked — each plan completed, every node done, each tool ran exactly once — and a
 * run that did not do its work throws instead of reporting a figure.
 */
export interface DotplanBenchReport {
  results: BenchResult[];
  throughput: RunCheck & { elapsedMs: number };
  chain: RunCheck;
  idlePoll: IdlePollCheck;
}

export async function measureDotplan(target: DotplanBenchTarget, sizes: BenchSizes): Promise<DotplanBenchReport> {
  const { store, dispose } = await openScratchStore(target);
  try {
    const log = new RunLog();
    const tools = await log.registry();
    const backend = target.backend;
    const throughput = await measureThroughput(backend, store, tools, log, sizes.nodes, sizes.concurrency);
    const chain = await measureChain(backend, store, tools, log, sizes.chain, sizes.concurrency);
    const idle = await measureIdlePoll(backend, store, sizes.plans, sizes.concurrency);
    return {
      results: [throughput.result, ...chain.results, idle.result],
      throughput: { ...throughput.check, elapsedMs: throughput.elapsedMs },
      chain: chain.check,
      idlePoll: idle.check,
    };
  } finally {
    await dispose();
  }
}

export const benchDotplan: DotplanBench = async (target, sizes) => (await measureDotplan(target, sizes)).results;
