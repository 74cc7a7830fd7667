/**
 * A worker runs at most `concurrency` nodes at once (README: `worker.concurrency`, "nodes one worker
 * runs at once"). Its finish writes claim work for the slots their ends free, and its rounds claim
 * for slots that are free; on PostgreSQL a write and a round's claim go over different connections of
 * the pool and can be in flight together, so each must leave the other's slots alone. Until they did,
 * a worker of concurrency 10 on PostgreSQL ran up to 20 tools at once (3,000 independent nodes whose tool
 * waits 1 ms), and this test saw 5 at concurrency 4 there. On SQLite claims and writes take turns.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { createRegistry } from '../../src/tools/registry.js';
import { Worker } from '../../src/worker/worker.js';
import { FIXTURE_TOOLS, json, openWorkspace, workflow, type Workspace } from './workspace.js';

const NODES = 150;
const CONCURRENCY = 4;

describe('a worker’s concurrency', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it(`never runs more than its ${CONCURRENCY} slots, while its writes and its claims overlap`, async () => {
    // Tools of 0 to 2 ms: their ends come apart, so writes of a few ends go while other slots free up.
    const nodes = Array.from({ length: NODES }, (_, i) => `n${i} [type=function toolCode=slow toolInput=${json({ ms: i % 3 })}]`);
    const planId = await ws.createPlan(workflow('wide', { nodes }));
    // The fixture tools' `slow`, counting how many of its runs overlap.
    const tools = await createRegistry({ userModules: [FIXTURE_TOOLS], cwd: ws.dir });
    const slow = tools.get('slow')!;
    const wait = slow.run.bind(slow);
    let running = 0;
    let most = 0;
    slow.run = async (input, ctx) => {
      most = Math.max(most, ++running);
      try {
        return await wait(input, ctx);
      } finally {
        running--;
      }
    };
    const worker = new Worker({
      store: ws.store,
      tools,
      poll: '*/30 * * * * *',
      concurrency: CONCURRENCY,
      leaseMs: 30_000,
      retryDefaults: defaultConfig().retry,
      untilIdle: true,
    });
    worker.start();
    await worker.idle;

    expect((await ws.store.plans.get(planId)).status).toBe('completed');
    expect(most).toBe(CONCURRENCY); // its slots were all used, and never more
  });
});
