/**
 * The finish from a claim's basis (work-queue.ts) on the suite's backend: taken when what the claim saw
 * still holds — or, for a join's count, when the count as it stands still leaves the join waiting — and when
 * it no longer does — the plan paused, a dependent moved, the lease taken over —
 * it writes nothing at all (no node, no event, the plan's updatedAt untouched) and the locking finish
 * decides instead, as it would have without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimedNode, FinishOptions } from '../../src/store/types.js';
import type { SqlWorkQueue } from '../../src/store/work-queue.js';
import { testBackend } from '../support/db.js';
import { graphOf } from './fixtures.js';
import { openHarness, retryDefaults, type Harness } from './harness.js';

const OPTIONS: FinishOptions = { owner: 'w1', leaseMs: 30_000, limit: 1, retryDefaults };

describe(`the finish from a claim's basis (${testBackend()})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(testBackend());
  });
  afterAll(async () => {
    await h?.close();
  });

  const chain = () =>
    h.create(
      graphOf(
        { a: { toolCode: 'echo' }, b: { toolCode: 'echo' }, c: { toolCode: 'echo' } },
        [
          ['a', 'b'],
          ['b', 'c'],
        ],
        { mode: 'workflow' },
      ),
    );
  const queue = () => h.store.queue as SqlWorkQueue;
  const done = (claim: ClaimedNode) => [{ claim, result: { kind: 'done' as const, output: 'ok' }, jitter: 0.5 }];
  /** What a finish could have written: every node row, the plan's status and updatedAt, the event count. */
  const stored = async (planId: string) => ({
    nodes: await h.store.plans.nodes(planId),
    plan: await h.store.plans.get(planId),
    events: (await h.store.events.list(planId)).length,
  });

  it('carries the dependents with every claim, and the next node with its own', async () => {
    const plan = await chain();
    const a = await h.claim(plan.id, 'a');
    expect(a.basis?.dependents.map((d) => [d.node.id, d.node.status, d.node.waiting])).toEqual([['b', 'pending', 1]]);
    const outcome = await queue().finishFromBasis(done(a), OPTIONS);
    expect(outcome?.results).toEqual([{ status: 'done' }]);
    // b handed over in the same write, with c as it stands.
    expect(outcome?.claimed.map((c) => c.nodeId)).toEqual(['b']);
    expect(outcome?.claimed[0]!.basis?.dependents.map((d) => [d.node.id, d.node.status])).toEqual([['c', 'pending']]);
    expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'running', c: 'pending' });
  });

  it('counts down a join as it stands: parents finished by other writes since the claim do not refuse it; the one that makes it ready does', async () => {
    const plan = await h.create(
      graphOf(
        { a: { toolCode: 'echo' }, b: { toolCode: 'echo' }, c: { toolCode: 'echo' }, j: { toolCode: 'echo' } },
        [
          ['a', 'j'],
          ['b', 'j'],
          ['c', 'j'],
        ],
        { mode: 'workflow' },
      ),
    );
    const claims = await h.store.queue.claim({ owner: 'w1', limit: 10, leaseMs: 30_000 });
    const others = claims.filter((claim) => claim.planId !== plan.id);
    if (others.length > 0) await h.finish(others, { kind: 'released' }); // ready work the suite's other plans left
    const [a, b, c] = ['a', 'b', 'c'].map((id) => claims.find((claim) => claim.planId === plan.id && claim.nodeId === id)!);
    // Every claim saw j waiting for all three.
    expect([a, b, c].map((claim) => claim!.basis?.dependents.map((d) => [d.node.id, d.node.waiting]))).toEqual([[['j', 3]], [['j', 3]], [['j', 3]]]);
    const waitingOf = async () => (await h.store.plans.nodes(plan.id)).find((n) => n.id === 'j')!.waiting;
    expect((await queue().finishFromBasis(done(a!), OPTIONS))?.results).toEqual([{ status: 'done' }]);
    expect(await waitingOf()).toBe(2);
    // b's claim still saw 3: written all the same, as the count it stands at less one.
    expect((await queue().finishFromBasis(done(b!), OPTIONS))?.results).toEqual([{ status: 'done' }]);
    expect(await waitingOf()).toBe(1);
    // c's claim would leave j waiting for 2 more: j waits for nothing now, so nothing is written...
    const before = await stored(plan.id);
    expect(await queue().finishFromBasis(done(c!), OPTIONS)).toBeUndefined();
    expect(await stored(plan.id)).toEqual(before);
    // ...and the locking finish, which reads j as it is, makes it ready.
    expect((await queue().finishLocked(done(c!), OPTIONS)).claimed.map((claim) => claim.nodeId)).toEqual(['j']);
    expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'done', c: 'done', j: 'running' });
    expect((await h.store.plans.nodes(plan.id)).find((n) => n.id === 'j')).toMatchObject({ waiting: 0, taken: 3 });
  });

  it('writes nothing when the plan was paused after the claim; the locking finish then records the result', async () => {
    const plan = await chain();
    const a = await h.claim(plan.id, 'a');
    await h.ops.pause(plan.id, { by: 'ops' });
    const before = await stored(plan.id);
    expect(await queue().finishFromBasis(done(a), OPTIONS)).toBeUndefined();
    expect(await stored(plan.id)).toEqual(before);
    const locked = await queue().finishLocked(done(a), OPTIONS);
    expect(locked.results).toEqual([{ status: 'done' }]);
    // A paused plan makes nothing ready and hands nothing over: b waits for the plan's resume.
    expect(locked.claimed).toEqual([]);
    expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'pending', c: 'pending' });
  });

  it('writes nothing when a dependent moved after the claim (skipped by an operator)', async () => {
    const plan = await chain();
    const a = await h.claim(plan.id, 'a');
    await h.ops.skip(plan.id, 'b', { by: 'ops' });
    const before = await stored(plan.id);
    expect(await queue().finishFromBasis(done(a), OPTIONS)).toBeUndefined();
    expect(await stored(plan.id)).toEqual(before);
  });

  it('writes nothing for a lease taken over: the locking finish then refuses the result', async () => {
    const plan = await chain();
    const a = await h.claim(plan.id, 'a');
    const stale = { ...a, token: `${a.token.split('.')[0]}.0000` };
    const before = await stored(plan.id);
    expect(await queue().finishFromBasis(done(stale), OPTIONS)).toBeUndefined();
    expect(await stored(plan.id)).toEqual(before);
    const [refused] = (await queue().finishLocked(done(stale), OPTIONS)).results;
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/lease lost/);
  });
});
