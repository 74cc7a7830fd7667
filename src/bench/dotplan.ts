import type { BenchResult } from './results.js';
import type { BenchSizes, DotplanBench, DotplanBenchTarget } from './run.js';
import { openScratchFor, openScratchStore } from './scratch-store.js';
import { measureChain, measureChainShape } from './scenarios/chain.js';
import { measureIdlePoll, type IdlePollCheck } from './scenarios/idle-poll.js';
import { measureJoin } from './scenarios/join.js';
import { RunLog } from './scenarios/run-log.js';
import type { RunCheck } from './scenarios/run-plan.js';
import { ladderPlan, whenChainPlan } from './scenarios/shapes.js';
import { measureThroughput } from './scenarios/throughput.js';
import { measureRewrite } from './scenarios/rewrite.js';
import { measureValidate } from './scenarios/validate.js';
import { measureValidateShapes } from './scenarios/validate-shapes.js';
import { measureAgentChain, measureTreeCancel } from './scenarios/agents.js';
import { measureCliStart } from './scenarios/cli-start.js';
import { measurePausedClaims } from './scenarios/paused-claims.js';

/**
 * dotplan's own benchmarks on one backend, with the real pieces: a store on an empty database,
 * the tool registry with a `noop` tool, and the Worker with its wake-ups. In order: throughput
 * (scenarios/throughput.ts), chain latency (scenarios/chain.ts) and two other chain shapes (a
 * `when` on every edge; two parents per step), a wide join against the same fan-out
 * (scenarios/join.ts), validation of a large plan (scenarios/validate.ts) and of four shapes in
 * processes of their own (scenarios/validate-shapes.ts), an LLM rewrite of a large
 * plan (scenarios/rewrite.ts), idle poll
 * (scenarios/idle-poll.ts).
 * Every run is checked — each plan completed, every node done, each tool ran exactly once — and a
 * run that did not do its work throws instead of reporting a figure.
 */
export interface DotplanBenchReport {
  results: BenchResult[];
  throughput: RunCheck & { elapsedMs: number };
  chain: RunCheck;
  shapes: RunCheck[];
  idlePoll: IdlePollCheck;
}

export async function measureDotplan(target: DotplanBenchTarget, sizes: BenchSizes): Promise<DotplanBenchReport> {
  const scratch = await openScratchStore(target);
  const store = scratch.store;
  try {
    const log = new RunLog();
    const tools = await log.registry();
    const backend = target.backend;
    const throughput = await measureThroughput(backend, store, tools, log, sizes.nodes, sizes.concurrency);
    const chain = await measureChain(backend, store, tools, log, sizes.chain, sizes.concurrency);
    // The agent step beside the plain step it is compared with, on the same database (before the idle poll's 10,000 plans).
    const agentChain = await measureAgentChain(backend, store, tools, log, Math.min(sizes.chain, 200), sizes.concurrency);
    const onChain = (node: string) => !node.endsWith('s');
    const when = await measureChainShape(backend, 'chain-when-p50', store, tools, log, whenChainPlan(sizes.chain), onChain, sizes.concurrency);
    const ladder = await measureChainShape(backend, 'chain-ladder-p50', store, tools, log, ladderPlan(sizes.chain), onChain, sizes.concurrency);
    const join = await measureJoin(backend, store, tools, log, sizes.nodes, sizes.concurrency, throughput.elapsedMs);
    const validate = measureValidate(backend, sizes.validate);
    // Validation reads no database: its shapes are measured once, on SQLite's row.
    const shapes = backend === 'sqlite' ? await measureValidateShapes(backend, sizes.validate) : [];
    // The CLI's start-up is measured on its default backend (SQLite) only.
    const cli = backend === 'sqlite' ? await measureCliStart(sizes.cli.plans, sizes.cli.runs) : [];
    const rewrite = await measureRewrite(backend, store, tools, sizes.rewrite);
    const idle = await measureIdlePoll(backend, store, sizes.plans, sizes.concurrency);
    const plainStep = chain.results.find((r) => r.scenario === 'chain-latency-p50')!.value;
    const agentVsChain: BenchResult = { backend, scenario: 'agent-vs-chain', value: Math.round((agentChain.value / plainStep) * 100) / 100, unit: '×' };
    const treeCancel = await measureTreeCancel(backend, store, tools, sizes.tree);
    // On two databases of its own: the claims on each are compared in turn (paused-claims.ts).
    const pausedClaim = await measurePausedClaims(backend, () => openScratchFor(backend, { DATABASE_URL: target.databaseUrl }), sizes.paused, 200);
    return {
      results: [
        throughput.result,
        ...chain.results,
        when.result,
        ladder.result,
        join.result,
        validate,
        ...shapes,
        ...cli,
        rewrite,
        idle.result,
        agentChain,
        agentVsChain,
        treeCancel,
        pausedClaim,
      ],
      throughput: { ...throughput.check, elapsedMs: throughput.elapsedMs },
      chain: chain.check,
      shapes: [when.check, ladder.check, join.check],
      idlePoll: idle.check,
    };
  } finally {
    await scratch.dispose();
  }
}

export const benchDotplan: DotplanBench = async (target, sizes) => (await measureDotplan(target, sizes)).results;
