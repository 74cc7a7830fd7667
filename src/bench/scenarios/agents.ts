import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { childStarter } from '../../agents/start-child.js';
import { cancelTree } from '../../operations/cascade.js';
import type { Store } from '../../store/types.js';
import type { ToolCatalogue } from '../../tools/types.js';
import { Worker } from '../../worker/worker.js';
import { defaultConfig } from '../../config/defaults.js';
import type { BenchBackend, BenchResult } from '../results.js';
import { gaps, percentile } from '../stats.js';
import type { RunLog } from './run-log.js';
import { BENCH_POLL, runPlan } from './run-plan.js';
import { NOOP_TOOL, planInputOf } from './shapes.js';

const AGENTS = [
  { code: 'one', kind: 'workflow', template: 'one-node' },
  { code: 'waits', kind: 'workflow', template: 'waits' },
];
const TEMPLATES = {
  'one-node': `digraph one { step [type=function toolCode=${NOOP_TOOL}] }`,
  waits: `digraph waits { ask [type=confirm question="hold the tree"] }`,
};

/** A scratch folder holding the agents' templates; the starter that makes children of them. */
export async function agentWorld(store: Store, tools: ToolCatalogue, maxChildPlans: number) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dotplan-bench-agents-'));
  await mkdir(path.join(dir, 'templates'));
  for (const [name, text] of Object.entries(TEMPLATES)) await writeFile(path.join(dir, 'templates', `${name}.dot`), text);
  const byCode = new Map(AGENTS.map((a) => [a.code, a]));
  const children = childStarter({
    store,
    tools,
    agents: { get: (code) => byCode.get(code), list: () => AGENTS },
    limits: { maxPlanDepth: 4, maxChildPlans },
    cwd: dir,
  });
  return { children, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * An agent node's step: a chain of `steps` agent nodes, each running a one-node workflow child. The
 * gaps between the children's tool starts are what one agent step costs — claim the agent node,
 * create and start its child, run the child's node, end the child and with it the agent node, hand
 * over to the next — to set beside chain-latency-p50 (a plain node's step). p50 in ms.
 */
export async function measureAgentChain(
  backend: BenchBackend,
  store: Store,
  tools: ToolCatalogue,
  log: RunLog,
  steps: number,
  concurrency: number,
): Promise<BenchResult> {
  const world = await agentWorld(store, tools, steps + 10);
  try {
    const plan = await store.plans.create(agentChainPlan(steps));
    await runPlan(store, tools, plan.id, concurrency, 60_000 + steps * 200, { children: world.children });
    const childIds = (await store.plans.nodes(plan.id)).map((n) => n.childPlanId).filter((id): id is string => id !== undefined);
    if (childIds.length !== steps) throw new Error(`agent chain: ${childIds.length} children for ${steps} agent nodes`);
    const p50 = percentile(gaps(log.startsOf(childIds)), 50);
    return { backend, scenario: 'agent-chain-p50', value: Math.round(p50 * 1000) / 1000, unit: 'ms' };
  } finally {
    await world.dispose();
  }
}

/** A chain of `steps` agent nodes, each run by agent `one` (agentWorld): a one-node workflow child. */
export function agentChainPlan(steps: number) {
  const nodes = Array.from({ length: steps }, (_, i) => ({ id: `a${i}`, attributes: { type: 'agent', agentCode: 'one', task: `step ${i}` } }));
  const edges = nodes.slice(1).map((node, i) => ({ from: nodes[i]!.id, to: node.id, attributes: {} }));
  return planInputOf(`agent chain: ${steps} steps`, nodes, edges);
}

/**
 * Cancelling a tree of `plans` plans: a root whose `plans - 1` agent nodes each run a child waiting
 * for a person; the time of the one cascading cancel, in ms (then checked: every plan cancelled).
 */
export async function measureTreeCancel(backend: BenchBackend, store: Store, tools: ToolCatalogue, plans: number): Promise<BenchResult> {
  const world = await agentWorld(store, tools, plans);
  try {
    const nodes = Array.from({ length: plans - 1 }, (_, i) => ({ id: `w${i}`, attributes: { type: 'agent', agentCode: 'waits', task: `wait ${i}` } }));
    const root = await store.plans.create(planInputOf(`tree of ${plans} plans`, nodes, []));
    const worker = new Worker({
      store,
      tools,
      poll: BENCH_POLL,
      concurrency: 50,
      leaseMs: 30_000,
      retryDefaults: defaultConfig().retry,
      children: world.children,
    });
    worker.start();
    for (;;) {
      const outlook = await store.queue.outlook();
      if (outlook.ready === 0 && outlook.running === 0 && outlook.awaitingInput >= plans - 1) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await worker.stop();
    const started = performance.now();
    await cancelTree(store, root.id, { driver: 'operator', name: 'bench' }, 'bench: cancel the tree');
    const ms = performance.now() - started;
    const left = (await store.plans.list()).filter((p) => (p.id === root.id || p.rootPlanId === root.id) && p.status !== 'cancelled');
    if (left.length > 0) throw new Error(`tree cancel: ${left.length} plans of the tree not cancelled`);
    return { backend, scenario: 'tree-cancel', value: Math.round(ms * 10) / 10, unit: 'ms' };
  } finally {
    await world.dispose();
  }
}
