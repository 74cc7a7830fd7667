/**
 * Agent trees in-process: a test store, tools, a registry of agents, a template folder, and workers
 * that start agent nodes' children — the pieces `openDotplan({ agents })` puts together.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childStarter, type AgentLookup } from '../../src/agents/start-child.js';
import type { ChildAgent } from '../../src/agents/child-plans.js';
import type { ChildStarter } from '../../src/kinds/agent-child.js';
import type { ClaimedNode } from '../../src/store/types.js';
import { ConflictError } from '../../src/errors/errors.js';
import { defaultConfig, type Config } from '../../src/config/defaults.js';
import { preparePlan } from '../../src/plans/prepare-plan.js';
import { createRegistry } from '../../src/tools/registry.js';
import type { Tool, ToolCatalogue } from '../../src/tools/types.js';
import { Worker } from '../../src/worker/worker.js';
import { AttemptAbort } from '../../src/execute/attempt-abort.js';
import { runClaim } from '../../src/worker/run-claim.js';
import { createLlmClient } from '../../src/llm/client.js';
import { Planner } from '../../src/llm/planner.js';
import { ReactDriver } from '../../src/agents/react/driver.js';
import { llmReactModel } from '../../src/agents/react/model.js';
import { AgentRegistry } from '../../src/agents/registry.js';
import type { AgentDefinition } from '../../src/agents/types.js';
import { createTestStore, type TestStore } from '../support/db.js';

export type TestAgent = ChildAgent & { agents?: string[]; tools?: string[]; limits?: { maxTurns?: number } };

export interface TreeHarness {
  store: TestStore;
  tools: ToolCatalogue;
  dir: string;
  /** The workers' child starter (the agent registry, templates and limits above). */
  children: ChildStarter;
  /** Creates and starts a root plan from DOT text (agent nodes allowed). */
  create(dot: string): Promise<string>;
  /** A worker that runs until nothing is left to do. */
  runUntilIdle(options?: { concurrency?: number }): Promise<void>;
  worker(options?: { concurrency?: number; untilIdle?: boolean; owner?: string }): Worker;
  /**
   * One worker step by hand, as a worker with one slot: run the node the last write handed over, or
   * claim one, by its kind, and write its end (which may hand over the next); false when nothing was ready.
   */
  step(): Promise<boolean>;
  /** Gives back what the steps were handed and did not run yet (as a worker that stops). */
  releaseHanded(): Promise<void>;
  cleanup(): Promise<void>;
}

export async function openTreeHarness(options: {
  agents: TestAgent[];
  templates?: Record<string, string>;
  tools?: Tool[];
  limits?: { maxPlanDepth?: number; maxChildPlans?: number };
  /** An OpenAI-compatible endpoint (the scripted server): workers then serve reflection (the planner) and ReAct plans. */
  llmUrl?: string;
  /** Reflection limits over the defaults (maxReplans...). */
  reflection?: { maxReplans?: number; maxTokens?: number };
  /** The configured `retry` policy (the workers' and the store's). */
  retry?: Config['retry'];
}): Promise<TreeHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-tree-'));
  mkdirSync(join(dir, 'templates'));
  for (const [name, text] of Object.entries(options.templates ?? {})) writeFileSync(join(dir, 'templates', `${name}.dot`), text);
  const config = defaultConfig();
  if (options.retry) config.retry = options.retry;
  const store = await createTestStore(undefined, { retryDefaults: config.retry });
  const tools = await createRegistry({ cwd: dir });
  for (const tool of options.tools ?? []) tools.register(tool, 'test');
  const byCode = new Map(options.agents.map((a) => [a.code, a]));
  const agents: AgentLookup = { get: (code) => byCode.get(code), list: () => options.agents };
  const registry = new AgentRegistry();
  for (const agent of options.agents) registry.register({ description: agent.code, ...agent } as AgentDefinition, 'test');
  Object.assign(config.reflection, options.reflection ?? {});
  const limits = { maxPlanDepth: options.limits?.maxPlanDepth ?? 4, maxChildPlans: options.limits?.maxChildPlans ?? 100 };
  const children = childStarter({ store, tools, agents, limits, cwd: dir });
  const llm = options.llmUrl === undefined ? undefined : createLlmClient({ baseURL: options.llmUrl, model: 'scripted', timeoutMs: 10_000, maxRetries: 0 });
  const drivers = llm
    ? {
        planner: new Planner({ store, tools, config, client: llm, limits: config.reflection, agents: registry }),
        react: new ReactDriver({ store, tools, config, model: llmReactModel(llm), agents }),
      }
    : {};
  /** Nodes handed to the stepper by its last writes, run by its next steps. */
  const handed: ClaimedNode[] = [];
  const stepperRetry = { ...config.retry, retryDelay: 1 };
  const worker = (o: { concurrency?: number; untilIdle?: boolean; owner?: string } = {}) =>
    new Worker({
      store,
      tools,
      poll: '*/1 * * * * *',
      concurrency: o.concurrency ?? 4,
      leaseMs: 30_000,
      retryDefaults: config.retry,
      children,
      ...drivers,
      llmSlots: 2,
      ...(o.untilIdle ? { untilIdle: true } : {}),
      ...(o.owner ? { owner: o.owner } : {}),
    });
  return {
    store,
    tools,
    dir,
    children,
    async create(dot) {
      const { warnings: _w, ...prepared } = await preparePlan(tools, { dot }, 'test', {}, dir, { allowAgent: true });
      return (await store.plans.create(prepared)).id;
    },
    async runUntilIdle(o = {}) {
      const w = worker({ ...o, untilIdle: true });
      const errors: unknown[] = [];
      w.on('worker:error', (error) => errors.push(error));
      w.start();
      await w.idle;
      if (errors.length > 0) throw errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]));
    },
    worker,
    async step() {
      // As a worker with one slot: the work a write handed over comes first (a child's first node, or the
      // node that follows with its own child started in that write), then a claim.
      const claim = handed.shift() ?? (await store.queue.claim({ owner: 'stepper', limit: 1, leaseMs: 30_000 }))[0];
      if (!claim) return false;
      const retryDefaults = stepperRetry;
      const result = await runClaim(claim, new AttemptAbort(), {
        plans: store.plans,
        tools,
        retryDefaults,
        log: () => undefined,
        children,
        handOff: { owner: 'stepper', leaseMs: 30_000, limit: 1 },
      }).catch((error: unknown) => {
        // An agent node handed over and cancelled before this step started its child: its lease is gone, nothing to write.
        if (error instanceof ConflictError) return undefined;
        throw error;
      });
      if (!result) return true;
      if (result.kind === 'delegated') handed.push(...(result.claimed ?? []));
      else {
        const outcome = await store.queue.finish([{ claim, result, jitter: 0 }], { owner: 'stepper', limit: 1, leaseMs: 30_000, retryDefaults, children });
        handed.push(...outcome.claimed);
      }
      return true;
    },
    async releaseHanded() {
      // As a worker that stops: what it was handed and did not run goes back to ready, its attempt not counted.
      const retryDefaults = stepperRetry;
      for (const claim of handed.splice(0))
        await store.queue.finish([{ claim, result: { kind: 'released' }, jitter: 0 }], { owner: 'stepper', limit: 0, leaseMs: 30_000, retryDefaults });
    },
    async cleanup() {
      await store.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
