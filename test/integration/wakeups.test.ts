/**
 * Wake-ups: a chain of 20 steps under a worker that polls only once an hour still runs straight
 * through — each step is claimed as soon as the one before it is done, not at the next poll.
 * On PostgreSQL the plan is created by another process (the CLI) after the worker is up, so the
 * worker can only hear of it through LISTEN/NOTIFY. On SQLite wake-ups are in-process only, so the
 * plan is created first and the worker finds it on its first round; the chain's steps then follow
 * one another through the worker's own wake-ups. A paused plan resumed by another command while the
 * worker is busy is taken up at once too: the resume frees no node, but its wake-up says there is ready work.
 * And work that was due when a round looked and that it did not take (on PostgreSQL a claim skips a row
 * another transaction holds; a retry may fall due between a round's claim and its look ahead) is looked
 * for again soon, not at the next poll: nothing else would wake the worker for it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import type { Outlook } from '../../src/store/types.js';
import { createRegistry } from '../../src/tools/registry.js';
import { Worker } from '../../src/worker/worker.js';
import { testBackend } from '../support/backend.js';
import { waitUntil } from '../support/cli.js';
import { FIXTURE_TOOLS, openWorkspace, workflow, json, type Workspace } from './workspace.js';

const STEPS = 20;
const HOURLY = '0 0 * * * *';

function chainDot(): string {
  const ids = Array.from({ length: STEPS }, (_, i) => `s${String(i).padStart(2, '0')}`);
  return workflow('chain', {
    nodes: ids.map((id, i) => `${id} [type=function toolCode=echo toolInput=${json({ step: i })}]`),
    edges: [ids.join(' -> ')],
  });
}

/** A worker in this process on the workspace's store, with the fixture tools, that polls only once an hour. */
async function hourlyWorker(ws: Workspace, concurrency: number): Promise<Worker> {
  const tools = await createRegistry({ userModules: [FIXTURE_TOOLS], cwd: ws.dir });
  return new Worker({ store: ws.store, tools, poll: HOURLY, concurrency, leaseMs: 30_000, retryDefaults: defaultConfig().retry });
}

describe('wake-ups', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('runs a 20-step chain under an hourly poll in seconds, each step claimed right after the previous one finished', async () => {
    let planId: string;
    const worker = ws.backend === 'postgres' ? ws.spawn(['worker', '--poll', HOURLY]) : undefined;
    if (worker) {
      await worker.waitForOutput(/^worker .* on postgres/);
      planId = await ws.createPlan(chainDot());
    } else {
      planId = await ws.createPlan(chainDot());
      ws.spawn(['worker', '--poll', HOURLY]);
    }
    const created = Date.now();

    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the chain to complete', 10_000);
    expect(Date.now() - created).toBeLessThan(10_000);

    const nodes = await ws.store.plans.nodes(planId);
    expect(nodes.map((n) => n.status)).toEqual(Array(STEPS).fill('done'));
    expect(nodes.map((n) => JSON.parse(n.output ?? 'null') as unknown)).toEqual(Array.from({ length: STEPS }, (_, i) => ({ step: i })));

    // The gap between a step finishing and the next being claimed is a wake-up, not a poll.
    const events = await ws.store.events.list(planId);
    const at = (node: string, to: string) => events.find((e) => e.nodeId === node && e.to === to)!.at.getTime();
    const gaps = nodes.slice(1).map((n, i) => at(n.id, 'running') - at(nodes[i]!.id, 'done'));
    expect(Math.max(...gaps)).toBeLessThan(1_000);
  });

  it('a plan resumed by another command is taken up at once by a busy worker that polls hourly (the resume wakes `ready`)', async () => {
    const chain = await ws.createPlan(chainDot());
    await ws.ok(['plan', 'pause', chain]);
    const gate = join(ws.dir, 'open-the-gate');
    const busy = await ws.createPlan(workflow('busy', { nodes: [`hold [type=function toolCode=gate toolInput=${json({ file: gate })}]`] }));
    // One slot holds the gate; the other is free, and the worker has no reason to look again for an hour.
    const worker = await hourlyWorker(ws, 2);
    worker.start();
    try {
      await waitUntil(async () => (await ws.store.plans.node(busy, 'hold')).status === 'running', 'the gate to be held', 10_000);
      // Let its last look for notices (at most one a second, so one more comes a second later) go by. On a slow
      // machine the resume may still meet that look: the test then passes without the wake-up, but never fails by it.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      // The resume (its own store, as another process's) changes no node: its `ready` wake-up is what brings the worker.
      await ws.ok(['plan', 'resume', chain]);
      await waitUntil(async () => (await ws.store.plans.get(chain)).status === 'completed', 'the resumed chain to complete', 10_000);
      expect((await ws.store.plans.node(busy, 'hold')).status).toBe('running');
    } finally {
      writeFileSync(gate, '');
      await worker.stop();
    }
  });

  it.runIf(testBackend() === 'postgres')(
    'a ready node the claim skipped (another transaction held its row) is claimed soon after, not at the next poll',
    async () => {
      const planId = await ws.createPlan(workflow('held', { nodes: [`x [type=function toolCode=echo toolInput=${json({ x: 1 })}]`] }));
      // Another transaction holds the ready node's row, as a writer would for a moment, and ends without changing
      // anything: no wake-up follows, so only the worker's own look again can find the node.
      const holder = new pg.Client({ connectionString: ws.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT 1 FROM nodes WHERE plan_id = $1 AND node_id = 'x' FOR UPDATE`, [planId]);
        const worker = await hourlyWorker(ws, 1);
        // What the worker's rounds see when they look ahead (the real outlook, noted).
        const queue = ws.store.queue;
        const outlook = queue.outlook.bind(queue);
        const looks: Outlook[] = [];
        queue.outlook = async () => {
          const seen = await outlook();
          looks.push(seen);
          return seen;
        };
        worker.start();
        try {
          await waitUntil(() => looks.some((look) => look.ready === 1), 'a round that found the node ready and could not take it', 10_000);
          // The row stays held well past the rounds that other causes bring (a look for notices comes at most a second
          // after the last one): when it is let go, nothing but the worker's own looking again can find the node.
          await new Promise((resolve) => setTimeout(resolve, 2_500));
          expect((await ws.store.plans.node(planId, 'x')).status).toBe('ready');
          await holder.query('COMMIT');
          const released = Date.now();
          await waitUntil(async () => (await ws.store.plans.node(planId, 'x')).status === 'done', 'the node to run', 10_000);
          // Looked for again within about a second (the wait doubles while the node stays out of reach), not in an hour.
          expect(Date.now() - released).toBeLessThan(5_000);
        } finally {
          await worker.stop();
        }
      } finally {
        await holder.end();
      }
    },
  );
});
