/**
 * A crash loses nothing: a worker with a short lease is killed (SIGKILL, no chance to clean up)
 * while a slow tool runs; once the lease expires a second worker takes the node over and finishes
 * it, and the plan completes. The dead worker's result, arriving late with its old lease token, is
 * refused by the token check and does not overwrite the second worker's output.
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

  it('is taken over after its lease expires, and its late result is refused', async () => {
    const planId = await ws.createPlan(
      workflow('crash', {
        nodes: [`work [type=function toolCode=slow toolInput=${json({ ms: 2_500 })}]`, `after [type=function toolCode=echo toolInput=${json({ got: '{{nodes.work.output.waited}}' })}]`],
        edges: ['work -> after'],
      }),
    );
    const first = ws.spawn(['worker', '--lease-ms', '1500', '--poll', '* * * * * *']);
    await waitUntil(async () => (await ws.store.getNode(planId, 'work')).status === 'running', 'the first worker to claim the node');
    const oldToken = await ws.leaseToken(planId, 'work');
    expect(oldToken).toBeTruthy();
    expect((await ws.store.getNode(planId, 'work')).leaseOwner).toContain(`:${first.pid}:`);

    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const killedAt = Date.now();

    const second = ws.spawn(['worker', '--lease-ms', '1500', '--poll', '* * * * * *']);
    await waitUntil(async () => (await ws.store.getPlan(planId)).status === 'completed', 'the second worker to finish the plan', 20_000, 100);
    // Not before the lease ran out (1.5 s) plus a fresh 2.5 s attempt.
    expect(Date.now() - killedAt).toBeGreaterThan(2_500);

    const work = await ws.store.getNode(planId, 'work');
    expect(work).toMatchObject({ status: 'done', attempts: 2, output: JSON.stringify({ waited: 2_500 }) });
    expect((await ws.store.getNode(planId, 'after')).output).toBe(JSON.stringify({ got: 2_500 }));

    const events = (await ws.store.listEvents(planId)).filter((e) => e.nodeId === 'work');
    expect(events.map((e) => `${e.from}→${e.to}`)).toEqual(['pending→ready', 'ready→running', 'running→ready', 'ready→running', 'running→done']);
    expect(events[1]!.reason).toContain(`:${first.pid}:`);
    expect(events[2]!.reason).toMatch(/lease expired/);
    expect(events[2]!.reason).toContain(`:${first.pid}:`);
    expect(events[3]!.reason).toContain(`:${second.pid}:`);

    // The killed worker's result arrives late: refused, nothing overwritten.
    const late = ws.store.finishAttempt(oldToken!, { status: 'done', output: 'late result from the dead worker' });
    await expect(late).rejects.toBeInstanceOf(ConflictError);
    await expect(late).rejects.toThrow(/lease lost/);
    expect(await ws.store.getNode(planId, 'work')).toMatchObject({ status: 'done', attempts: 2, output: JSON.stringify({ waited: 2_500 }) });
    expect((await ws.store.listEvents(planId)).filter((e) => e.nodeId === 'work')).toHaveLength(5);
  });

  it('refuses a result whose lease expired and was taken over, even while the new attempt still runs', async () => {
    // The same race seen through the store API: a "worker" claims, stops renewing, and answers late.
    const planId = await ws.createPlan(workflow('late', { nodes: [`work [type=function toolCode=slow toolInput=${json({ ms: 1_500 })}]`] }));
    const [claim] = await ws.store.claimReady({ owner: 'test:crashed', limit: 1, leaseMs: 500 });
    expect(claim).toMatchObject({ planId, nodeId: 'work', attempts: 1 });
    ws.spawn(['worker', '--lease-ms', '1000', '--poll', '* * * * * *']);
    await waitUntil(async () => {
      const node = await ws.store.getNode(planId, 'work');
      return node.status === 'running' && node.attempts === 2;
    }, 'the worker to take the node over', 10_000);

    await expect(ws.store.finishAttempt(claim!.token, { status: 'failed', error: 'late failure' })).rejects.toBeInstanceOf(ConflictError);
    expect((await ws.store.getNode(planId, 'work')).status).toBe('running');

    await waitUntil(async () => (await ws.store.getPlan(planId)).status === 'completed', 'the plan to complete', 10_000);
    expect(await ws.store.getNode(planId, 'work')).toMatchObject({ status: 'done', attempts: 2, output: JSON.stringify({ waited: 1_500 }) });
  });
});
