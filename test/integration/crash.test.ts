/**
 * A crash loses nothing: a worker is killed (SIGKILL, no chance to clean up) while a slow tool runs;
 * another worker, already running with the default settings (10 s lease, 30 s poll), wakes when the
 * lease runs out — not at its next poll — takes the node over and finishes it within seconds. The
 * dead worker's result, arriving late with its old lease token, is refused by the token check and
 * does not overwrite the second worker's output.
 */
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

  it('is taken over by a running worker with default settings within 15 s, and its late result is refused', async () => {
    const planId = await ws.createPlan(
      workflow('crash', {
        nodes: [
          `work [type=function toolCode=slow toolInput=${json({ ms: 2_500 })}]`,
          `after [type=function toolCode=echo toolInput=${json({ got: '{{nodes.work.output.waited}}' })}]`,
        ],
        edges: ['work -> after'],
      }),
    );
    const first = ws.spawn(['worker']);
    await waitUntil(async () => (await ws.store.plans.node(planId, 'work')).status === 'running', 'the first worker to claim the node');
    const second = ws.spawn(['worker']);
    await second.waitForOutput(/^worker .* concurrency 4, poll "\*\/30 \* \* \* \* \*"/);
    const oldToken = await ws.leaseToken(planId, 'work');
    expect(oldToken).toBeTruthy();
    expect((await ws.store.plans.node(planId, 'work')).leaseOwner).toContain(`:${first.pid}:`);

    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const killedAt = Date.now();

    await waitUntil(async () => (await ws.store.plans.node(planId, 'work')).status === 'done', 'the second worker to finish the node', 30_000, 100);
    const tookOver = Date.now() - killedAt;
    // Not before the lease ran out, plus a fresh 2.5 s attempt; within 15 s with the default 10 s lease.
    expect(tookOver).toBeGreaterThan(2_500);
    expect(tookOver).toBeLessThan(15_000);
    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the plan to complete', 10_000, 100);

    const work = await ws.store.plans.node(planId, 'work');
    expect(work).toMatchObject({ status: 'done', attempts: 2, output: JSON.stringify({ waited: 2_500 }) });
    expect((await ws.store.plans.node(planId, 'after')).output).toBe(JSON.stringify({ got: 2_500 }));

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
    expect(await ws.store.plans.node(planId, 'work')).toMatchObject({ status: 'done', attempts: 2, output: JSON.stringify({ waited: 2_500 }) });
    expect((await ws.store.events.list(planId)).filter((e) => e.nodeId === 'work')).toHaveLength(5);
  });

  it('refuses a result whose lease expired and was taken over, even while the new attempt still runs', async () => {
    // The same race seen through the store API: a "worker" claims, stops renewing, and answers late.
    const planId = await ws.createPlan(workflow('late', { nodes: [`work [type=function toolCode=slow toolInput=${json({ ms: 1_500 })}]`] }));
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

    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the plan to complete', 10_000);
    expect(await ws.store.plans.node(planId, 'work')).toMatchObject({ status: 'done', attempts: 2, output: JSON.stringify({ waited: 1_500 }) });
  });
});
