/**
 * Issue 14, cases 12–14: large plans degrade instead of crashing, and lease renewal does not depend
 * on a free event loop. Runs on both backends.
 *
 * - 12: a 20,000-node plan runs; `plan report --format html` and `render --plan` give a summary
 *   drawing (counts by status) with a note, and the rest of the report (before: `Maximum call stack
 *   size exceeded [INTERNAL]` from WebAssembly Graphviz).
 * - 13/14: a node keeps the worker's event loop busy for 4 s (a synchronous loop, as a slow `when`
 *   pattern or a 10,000-node rewrite does) with a 1 s lease, while a sibling node runs on the same
 *   worker and a second worker process polls for expired leases every second. Before: both leases
 *   expired, the second worker took both nodes over and ran them again. Now the lease thread renews
 *   them: each runs once, on the first worker.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait.js';
import { FIXTURE_TOOLS, json, openWorkspace, workflow, type Workspace } from '../integration/workspace.js';
import { openDotplan } from '../../src/operations/open.js';

/** The first worker: in this process, or a process of its own. */
interface FirstWorker {
  pid: number;
  stop(): Promise<void>;
}

const BLOCKING_TOOLS = fileURLToPath(new URL('../fixtures/tools/blocking.mjs', import.meta.url));
const LEASE_MS = 1_000;
const BLOCK_MS = 4_000;
const HOURLY = '0 0 * * * *';
const EVERY_SECOND = '* * * * * *';
const withBlocking = { env: { DOTPLAN_TOOLS: `${FIXTURE_TOOLS},${BLOCKING_TOOLS}` } };
const workerArgs = ['worker', '--lease-ms', String(LEASE_MS), '--concurrency', '2', '--poll', HOURLY];

describe('large plans and busy event loops', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('12: a 20,000-node plan runs, and its HTML report and drawing summarise the picture instead of crashing', async () => {
    const started = Date.now();
    const ids = Array.from({ length: 20_000 }, (_, i) => `n${i}`);
    const planId = await ws.createPlan(
      workflow('huge', { nodes: ['node [type=function toolCode=echo toolInput="x"]', ...ids], edges: ids.slice(1).map((id) => `n0 -> ${id}`) }),
    );
    const t0 = Date.now();
    // A worker that polls every second (on PostgreSQL, `--until-idle` left such a plan with ready nodes; see the report).
    const worker = ws.spawn(['worker', '--quiet', '--concurrency', '8', '--poll', EVERY_SECOND]);
    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the 20,000-node plan to complete', 150_000, 500);
    worker.stop();
    await worker.exited;
    const t1 = Date.now();
    expect((await ws.store.plans.get(planId)).status).toBe('completed');

    const report = await ws.dotplan(['plan', 'report', planId, '--format', 'html']);
    expect(report.stderr).not.toContain('INTERNAL');
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('too many to draw legibly');
    expect(report.stdout).toMatch(/done\s*<\/text>[\s\S]*20,000/); // the summary box: done, 20,000
    expect(report.stdout).toContain('<section id="nodes">'); // the rest of the report is there
    expect(report.stdout).toContain('<code>n19999</code>');

    const t2 = Date.now();
    const drawn = await ws.dotplan(['render', '--plan', planId]);
    console.log(`${ws.backend}: created in ${t0 - started} ms, ran in ${t1 - t0} ms, HTML report in ${t2 - t1} ms, drawing in ${Date.now() - t2} ms`);
    expect(drawn.stderr).not.toContain('INTERNAL');
    expect(drawn.code).toBe(0);
    expect(drawn.stdout).toContain('<svg');
    expect(drawn.stderr).toMatch(/note: the plan has 20,000 nodes and 19,999 edges, too many to draw legibly/);
  }, 300_000);

  /**
   * The busy-loop scenario: `start` starts the first worker, which claims both nodes; the busy node's
   * loop starts once a second worker is up. `during` runs while the loop runs (when this process is
   * free to look). Returns the tools' log lines.
   */
  async function busyLoopScenario(start: () => Promise<FirstWorker>, during?: (planId: string, ended: () => boolean) => Promise<void>): Promise<string[]> {
    const log = join(ws.dir, 'runs.log');
    const go = join(ws.dir, 'go');
    const release = join(ws.dir, 'release');
    const file = ws.write(
      'busy.dot',
      workflow('busy', {
        nodes: [
          `busy [type=function toolCode=block toolInput=${json({ go, ms: BLOCK_MS, log })}]`,
          `sibling [type=function toolCode=hold toolInput=${json({ release, log })}]`,
        ],
      }),
    );
    const planId = (JSON.parse(await ws.ok(['plan', 'create', '--dot', file, '--json'], withBlocking)) as { id: string }).id;
    const first = await start();
    await waitUntil(async () => [...(await ws.nodes(planId)).values()].every((n) => n.status === 'running'), 'the first worker to claim both nodes');
    const owner = (await ws.nodes(planId)).get('busy')!.leaseOwner;
    expect((await ws.nodes(planId)).get('sibling')!.leaseOwner).toBe(owner);

    // A second worker process that looks for expired leases every second.
    const second = ws.spawnProcess(['worker', '--lease-ms', String(LEASE_MS), '--poll', EVERY_SECOND], withBlocking);
    await second.waitForOutput(/^worker .* on (sqlite|postgres)/);

    const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
    ws.write('go', '');
    const ended = () => lines().some((l) => l.startsWith('block-end'));
    await during?.(planId, ended);
    await waitUntil(() => lines().some((l) => l.startsWith('block-end')), 'the busy loop to end', 30_000);
    ws.write('release', '');
    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the plan to complete', 30_000);
    second.stop();
    await Promise.all([first.stop(), second.exited]);

    const nodes = await ws.nodes(planId);
    expect(nodes.get('busy')!.attempts).toBe(1);
    expect(nodes.get('sibling')!.attempts).toBe(1);
    const events = await ws.store.events.list(planId);
    expect(events.filter((e) => /lease/i.test(e.reason ?? ''))).toEqual([]);
    const starts = lines().filter((l) => !l.startsWith('block-end'));
    expect(starts.map((l) => l.split(' ').slice(0, 3).join(' ')).sort()).toEqual(['block-start busy 1', 'hold-start sibling 1']);
    for (const line of starts) expect(line.endsWith(` ${first.pid}`), line).toBe(true);
    return lines();
  }

  it('13/14: a 4 s busy loop on a worker (lease 1 s) does not cost its running nodes their leases: no takeover by a second worker, each node runs once', async () => {
    // The first worker runs in this process: the busy loop holds this very event loop.
    const runs = await busyLoopScenario(async () => {
      const dotplan = await openDotplan({
        config: { databaseUrl: ws.url, tools: [FIXTURE_TOOLS, BLOCKING_TOOLS], worker: { leaseMs: LEASE_MS, concurrency: 2, poll: HOURLY } },
        cwd: ws.dir,
      });
      const worker = dotplan.worker().start();
      expect(await worker.leaseRenewal).toBe('thread');
      return {
        pid: process.pid,
        async stop() {
          await worker.stop();
          await dotplan.close();
        },
      };
    });
    expect(runs).toHaveLength(3);
  });

  it('13/14: while a worker process is stuck in a busy loop, its leases keep being renewed', async () => {
    let furthest = 0;
    let started = 0;
    await busyLoopScenario(
      async () => {
        const child = ws.spawnProcess(workerArgs, withBlocking);
        return {
          pid: child.pid,
          async stop() {
            child.stop();
            await child.exited;
          },
        };
      },
      async (planId, ended) => {
        const log = join(ws.dir, 'runs.log');
        await waitUntil(() => existsSync(log) && readFileSync(log, 'utf8').includes('block-start'), 'the busy loop to start');
        started = Date.now();
        // Watch the busy node's lease while its worker cannot run anything on its main thread.
        while (!ended()) {
          const lease = (await ws.nodes(planId)).get('busy')!.leaseExpiresAt;
          if (lease) furthest = Math.max(furthest, lease.getTime());
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
    );
    // Without renewal the lease ends at most LEASE_MS after the loop started; renewed, it keeps moving on.
    expect(furthest - started).toBeGreaterThan(2 * LEASE_MS);
  });
});
