/**
 * A crash loses nothing: a worker process is killed (SIGKILL, no chance to clean up) while its tool
 * runs (a gate the test opens: the tool runs until then, however slow the machine); another worker
 * process, already running with the default settings (10 s lease, 30 s poll), wakes when the lease
 * runs out — not at its next poll — takes the node over and finishes it. The dead worker's result,
 * arriving late with its old lease token, is refused by the token check and does not overwrite the
 * second worker's output.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors/errors.js';
import { waitUntil } from '../support/cli.js';
import { openWorkspace, workflow, json, type Workspace } from './workspace.js';

describe('a worker killed mid-node', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('is taken over by a running worker with default settings once its lease runs out, not at the next poll, and its late result is refused', async () => {
    const gate = join(ws.dir, 'gate-open');
    const planId = await ws.createPlan(
      workflow('crash', {
        nodes: [
          `work [type=function toolCode=gate toolInput=${json({ file: gate })}]`,
          `after [type=function toolCode=echo toolInput=${json({ got: '{{nodes.work.output.opened}}' })}]`,
        ],
        edges: ['work -> after'],
      }),
    );
    const first = ws.spawnProcess(['worker']);
    await waitUntil(async () => (await ws.store.plans.node(planId, 'work')).status === 'running', 'the first worker to claim the node');
    const second = ws.spawnProcess(['worker']);
    await second.waitForOutput(/^worker .* concurrency 4, poll "\*\/30 \* \* \* \* \*"/);
    const oldToken = await ws.leaseToken(planId, 'work');
    expect(oldToken).toBeTruthy();
    expect((await ws.store.plans.node(planId, 'work')).leaseOwner).toContain(`:${first.pid}:`);

    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    // The dead worker renews nothing more: its lease runs out at this time.
    const expiry = (await ws.store.plans.node(planId, 'work')).leaseExpiresAt!.getTime();

    await waitUntil(
      async () => {
        const work = await ws.store.plans.node(planId, 'work');
        return work.status === 'running' && work.attempts === 2;
      },
      'the second worker to take the node over',
      60_000,
      100,
    );
    const takeover = (await ws.store.events.list(planId)).find((e) => e.nodeId === 'work' && e.from === 'running' && e.to === 'ready')!;
    // Not before the lease ran out; woken by its expiry, not by the next poll (every 30 s).
    expect(takeover.at.getTime()).toBeGreaterThanOrEqual(expiry - 50); // (50 ms: timestamps of two clocks' readings)
    expect(takeover.at.getTime() - expiry).toBeLessThan(10_000);
    writeFileSync(gate, '');
    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the plan to complete', 30_000, 100);

    const work = await ws.store.plans.node(planId, 'work');
    expect(work).toMatchObject({ status: 'done', attempts: 2, output: JSON.stringify({ opened: 2 }) });
    expect((await ws.store.plans.node(planId, 'after')).output).toBe(JSON.stringify({ got: 2 }));

    const events = (await ws.store.events.list(planId)).filter((e) => e.nodeId === 'work');
    expect(events.map((e) => `${e.from}→${e.to}`)).toEqual(['pending→ready', 'ready→running', 'running→ready', 'ready→running', 'running→done']);
    expect(events[1]!.reason).toContain(`:${first.pid}:`);
    expect(events[2]!.reason).toMatch(/lease expired/);
    expect(events[2]!.reason).toContain(`:${first.pid}:`);
    expect(events[3]!.reason).toContain(`:${second.pid}:`);

    // The killed worker's result arrives late: refused, nothing overwritten.
    const late = await ws.lateFinish(planId, 'work', oldToken!, { kind: 'done', output: 'late result from the dead worker' });
    expect(late).toBeInstanceOf(ConflictError);
    expect((late as Error).message).toMatch(/lease lost/);
    expect(await ws.store.plans.node(planId, 'work')).toMatchObject({ status: 'done', attempts: 2, output: JSON.stringify({ opened: 2 }) });
    expect((await ws.store.events.list(planId)).filter((e) => e.nodeId === 'work')).toHaveLength(5);
  });

  it('refuses a result whose lease expired and was taken over, even while the new attempt still runs', async () => {
    // The same race seen through the store API: a "worker" claims, stops renewing, and answers late
    // while the worker (in-process) that took the node over still runs it (its tool waits for the gate).
    const gate = join(ws.dir, 'gate-open');
    const planId = await ws.createPlan(workflow('late', { nodes: [`work [type=function toolCode=gate toolInput=${json({ file: gate })}]`] }));
    const [claim] = await ws.store.queue.claim({ owner: 'test:crashed', limit: 1, leaseMs: 500 });
    expect(claim).toMatchObject({ planId, nodeId: 'work', attempts: 1 });
    ws.spawn(['worker', '--lease-ms', '1000', '--poll', '* * * * * *']);
    await waitUntil(
      async () => {
        const node = await ws.store.plans.node(planId, 'work');
        return node.status === 'running' && node.attempts === 2;
      },
      'the worker to take the node over',
      10_000,
    );

    expect(await ws.lateFinish(planId, 'work', claim!.token, { kind: 'failed', error: 'late failure', retryable: false })).toBeInstanceOf(ConflictError);
    expect((await ws.store.plans.node(planId, 'work')).status).toBe('running');

    writeFileSync(gate, '');
    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the plan to complete', 30_000);
    expect(await ws.store.plans.node(planId, 'work')).toMatchObject({ status: 'done', attempts: 2, output: JSON.stringify({ opened: 2 }) });
  });
});
