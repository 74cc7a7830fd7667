/**
 * The store specification for the work queue — claims, leases, the end of attempts, wake-ups —
 * run against every backend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors/errors.js';
import { openStore } from '../../src/store/index.js';
import type { Store, WakeEvent } from '../../src/store/types.js';
import type { TestBackend } from '../support/db.js';
import { waitUntil } from '../support/wait.js';
import { graphOf, independent } from './fixtures.js';
import { openHarness, retryDefaults, type Harness } from './harness.js';

export function queueSuite(backend: TestBackend): void {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(backend);
  });
  afterAll(async () => {
    await h?.close();
  });

  describe(`work queue on ${backend}`, () => {
    it('gives a claimed node everything a worker needs, with a lease from the database clock', async () => {
      const graph = graphOf({ only: { toolCode: 'echo', toolInput: '{{params.topic}}', label: 'Only' } }, [], { mode: 'workflow', retries: '2' });
      const plan = await h.create(graph, { params: { topic: 'owls' } });
      const before = Date.now();
      const claimed = await h.claim(plan.id, 'only', 'worker-7', 60_000);
      expect(claimed).toMatchObject({
        planId: plan.id,
        nodeId: 'only',
        type: 'function',
        label: 'Only',
        attempts: 1,
        params: { topic: 'owls' },
        planAttributes: { mode: 'workflow', retries: '2' },
      });
      expect(claimed.attributes).toMatchObject({ toolCode: 'echo', toolInput: '{{params.topic}}' });
      expect(claimed.token).toMatch(/^\d+\.[0-9a-f]{32}$/);
      expect(claimed.leaseExpiresAt.getTime()).toBeGreaterThanOrEqual(before + 59_000);
      const node = await h.store.plans.node(plan.id, 'only');
      expect(node).toMatchObject({ status: 'running', leaseOwner: 'worker-7', attempts: 1 });
      expect(node.startedAt).toBeInstanceOf(Date);
      expect((await h.store.events.list(plan.id)).at(-1)).toMatchObject({
        nodeId: 'only',
        driver: 'engine',
        actor: 'worker-7',
        from: 'ready',
        to: 'running',
        reason: 'claimed by worker-7',
      });
      expect((await h.finish(claimed, { kind: 'done', output: 'owls!' })).results).toEqual([{ status: 'done' }]);
      expect(await h.store.plans.node(plan.id, 'only')).toMatchObject({ status: 'done', output: 'owls!', leaseOwner: undefined });
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
    });

    it('never gives one node to two concurrent claimers', async () => {
      const plan = await h.create(independent(60));
      const other = await openStore({ url: h.store.url });
      try {
        const seen: string[] = [];
        const claimer = async (s: Store, owner: string) => {
          for (;;) {
            const claimed = (await s.queue.claim({ owner, limit: 7, leaseMs: 30_000 })).filter((c) => c.planId === plan.id);
            if (claimed.length === 0) return;
            seen.push(...claimed.map((c) => c.nodeId));
          }
        };
        await Promise.all([claimer(h.store, 'a'), claimer(other, 'b'), claimer(h.store, 'c'), claimer(other, 'd')]);
        expect(seen).toHaveLength(60);
        expect(new Set(seen).size).toBe(60);
      } finally {
        await other.close();
      }
      await h.ops.cancel(plan.id);
    });

    it('refuses a finish with a stale token after the lease expired and another worker took over', async () => {
      const plan = await h.create(independent(1));
      const first = await h.claim(plan.id, 'n0', 'crashed', 1);
      await waitUntil(async () => (await h.store.queue.expire({ retryDefaults })) >= 1, 'the 1 ms lease to be found expired');
      expect(await h.store.plans.node(plan.id, 'n0')).toMatchObject({ status: 'ready', attempts: 1, leaseOwner: undefined });
      expect((await h.store.events.list(plan.id)).at(-1)).toMatchObject({
        from: 'running',
        to: 'ready',
        driver: 'engine',
        reason: 'lease expired (worker crashed stopped renewing it)',
      });

      const second = await h.claim(plan.id, 'n0', 'healthy');
      expect(second.attempts).toBe(2);
      const eventsBefore = await h.store.events.list(plan.id);
      const [late] = (await h.finish(first, { kind: 'done', output: 'late result' })).results;
      expect(late).toBeInstanceOf(ConflictError);
      expect((late as Error).message).toContain('lease lost');
      expect(await h.store.plans.node(plan.id, 'n0')).toMatchObject({ status: 'running', leaseOwner: 'healthy', output: undefined });
      expect(await h.store.events.list(plan.id)).toEqual(eventsBefore);
      expect(await h.store.queue.renew('crashed', [first.token], 60_000)).toEqual([]);
      expect(await h.store.queue.renew('healthy', [second.token], 60_000)).toEqual([second.token]);
      expect((await h.finish(second, { kind: 'done', output: 'ok' })).results[0]).toEqual({ status: 'done' });
      expect((await h.finish(second, { kind: 'done', output: 'twice' })).results[0]).toBeInstanceOf(ConflictError);
      expect((await h.finish({ ...second, token: 'not-a-token' }, { kind: 'done', output: '' })).results[0]).toBeInstanceOf(ConflictError);
    });

    it('fails a node whose lease expired on its last attempt, and the plan with it (onFailure=stop)', async () => {
      const plan = await h.create(graphOf({ slow: { retries: '1' }, next: {}, other: {} }, [['slow', 'next']]));
      await h.claim(plan.id, 'slow', 'w', 1);
      await waitUntil(async () => (await h.store.queue.expire({ retryDefaults })) >= 1, 'the first 1 ms lease to be found expired');
      expect((await h.store.plans.node(plan.id, 'slow')).status).toBe('ready');
      await h.claim(plan.id, 'slow', 'w', 1);
      await waitUntil(async () => (await h.store.queue.expire({ retryDefaults })) >= 1, 'the second 1 ms lease to be found expired');
      const slow = await h.store.plans.node(plan.id, 'slow');
      expect(slow).toMatchObject({ status: 'failed', attempts: 2 });
      expect(slow.error).toMatch(/lease expired.*attempt 2 of 2/);
      const failed = await h.store.plans.get(plan.id);
      expect(failed.status).toBe('failed');
      expect(failed.error).toContain('"slow" failed');
      // Nothing more starts in a failed plan; what has not run keeps its status so that a retry can resume it.
      expect(await h.statuses(plan.id)).toEqual({ slow: 'failed', next: 'pending', other: 'ready' });
    });

    it('puts a retryable failure back to ready after a backoff, claimable only when due; a release does not count', async () => {
      const plan = await h.create(graphOf({ n0: { retries: '2', retryDelay: '1s' } }));
      const before = Date.now();
      await h.finish(await h.claim(plan.id, 'n0'), { kind: 'failed', error: 'boom', retryable: true });
      const node = await h.store.plans.node(plan.id, 'n0');
      expect(node).toMatchObject({ status: 'ready', error: 'boom', attempts: 1 });
      expect(node.runAfter!.getTime()).toBeGreaterThanOrEqual(before + 450); // 1s with equal jitter: 500 ms to 1 s
      expect((await h.store.queue.claim({ owner: 'w', limit: 100, leaseMs: 1000 })).filter((c) => c.planId === plan.id)).toEqual([]);
      const outlook = await h.store.queue.outlook();
      expect(outlook.retryPending).toBeGreaterThanOrEqual(1);
      expect(outlook.nextWakeAt!.getTime()).toBeLessThanOrEqual(node.runAfter!.getTime());
      const second = await waitUntil(
        async () => (await h.store.queue.claim({ owner: 'w1', limit: 100, leaseMs: 30_000 })).find((c) => c.planId === plan.id),
        'the retry to be due',
        5000,
        20,
      );
      expect(second.attempts).toBe(2);
      await h.finish(second, { kind: 'released' });
      expect(await h.store.plans.node(plan.id, 'n0')).toMatchObject({ status: 'ready', attempts: 1 });
      const third = await h.claim(plan.id, 'n0');
      await h.finish(third, { kind: 'failed', error: 'final', retryable: false });
      expect(await h.store.plans.node(plan.id, 'n0')).toMatchObject({ status: 'failed', error: 'final' });
      expect((await h.store.plans.get(plan.id)).status).toBe('failed');
    });

    it('finishes a batch in one call; a stale token refuses only its own report', async () => {
      const plan = await h.create(independent(3));
      const claimed = (await h.store.queue.claim({ owner: 'w1', limit: 100, leaseMs: 30_000 })).filter((c) => c.planId === plan.id);
      expect(claimed).toHaveLength(3);
      const stale = { ...claimed[1]!, token: `${claimed[1]!.token.split('.')[0]}.deadbeef` };
      const { results } = await h.store.queue.finish(
        [claimed[0]!, stale, claimed[2]!].map((claim) => ({ claim, result: { kind: 'done' as const, output: claim.nodeId }, jitter: 0 })),
        { owner: 'w1', leaseMs: 30_000, limit: 0, retryDefaults },
      );
      expect(results[0]).toEqual({ status: 'done' });
      expect(results[1]).toBeInstanceOf(ConflictError);
      expect(results[2]).toEqual({ status: 'done' });
      expect((await h.store.plans.node(plan.id, 'n1')).status).toBe('running');
      await h.finish(claimed[1]!, { kind: 'done', output: '' });
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
    });

    it('hands the next step of a chain to the finishing worker: one event per move, in order, the next node under its lease', async () => {
      const plan = await h.create(
        graphOf({ a: {}, b: {}, c: {}, d: {} }, [
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'd'],
        ]),
      );
      const a = await h.claim(plan.id, 'a');
      const first = await h.finish(a, { kind: 'done', output: 'A' }, { owner: 'w2', limit: 1 });
      expect(first.results).toEqual([{ status: 'done' }]);
      expect(first.claimed.map((c) => [c.planId, c.nodeId, c.attempts])).toEqual([[plan.id, 'b', 1]]);
      expect(await h.store.plans.node(plan.id, 'b')).toMatchObject({ status: 'running', attempts: 1, leaseOwner: 'w2' });
      // No free slot: the next node only becomes ready.
      await h.finish(first.claimed[0]!, { kind: 'done', output: 'B' });
      expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'done', c: 'ready', d: 'pending' });
      // A dependent that is no longer pending stays as it is, and the plan settles.
      const c = await h.claim(plan.id, 'c');
      await h.ops.skip(plan.id, 'd', { by: 'ops', reason: 'not needed' });
      await h.finish(c, { kind: 'done', output: 'C' }, { limit: 1 });
      expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'done', c: 'done', d: 'skipped' });
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
      const events = (await h.store.events.list(plan.id)).filter((e) => e.nodeId !== undefined);
      expect(events.map((e) => [e.nodeId, e.driver, e.from, e.to, e.reason ?? null])).toEqual([
        ['a', 'engine', 'pending', 'ready', 'its dependencies are met'],
        ['a', 'engine', 'ready', 'running', 'claimed by w1'],
        ['a', 'engine', 'running', 'done', null],
        ['b', 'engine', 'pending', 'ready', 'its dependencies are met'],
        ['b', 'engine', 'ready', 'running', 'claimed by w2'],
        ['b', 'engine', 'running', 'done', null],
        ['c', 'engine', 'pending', 'ready', 'its dependencies are met'],
        ['c', 'engine', 'ready', 'running', 'claimed by w1'],
        ['d', 'operator', 'pending', 'skipped', 'not needed'],
        ['c', 'engine', 'running', 'done', null],
      ]);
    });

    it('follows taken `when` edges, skips untaken branches with their cascade, and runs the join', async () => {
      const graph = graphOf({ draft: {}, approve: { type: 'confirm', question: 'Publish?' }, publish: {}, announce: {}, revise: {}, archive: {} }, [
        ['draft', 'approve'],
        ['approve', 'publish', 'yes|y'],
        ['publish', 'announce'],
        ['approve', 'revise', 'no'],
        ['announce', 'archive'],
        ['revise', 'archive'],
      ]);
      const plan = await h.create(graph);
      await h.finish(await h.claim(plan.id, 'draft'), { kind: 'done', output: 'text' });
      await h.finish(await h.claim(plan.id, 'approve'), { kind: 'asked', question: 'Publish now?' });
      const waiting = await h.store.plans.node(plan.id, 'approve');
      expect([waiting.status, waiting.attributes.question]).toEqual(['awaiting_input', 'Publish now?']);
      expect((await h.store.queue.outlook()).awaitingInput).toBeGreaterThanOrEqual(1);
      await h.ops.answer(plan.id, 'approve', 'Y');
      expect(await h.statuses(plan.id)).toMatchObject({ approve: 'done', publish: 'ready', revise: 'skipped', announce: 'pending', archive: 'pending' });
      await h.runReady(plan.id);
      expect(await h.statuses(plan.id)).toEqual({ draft: 'done', approve: 'done', publish: 'done', announce: 'done', revise: 'skipped', archive: 'done' });
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
      expect((await h.store.events.list(plan.id)).find((e) => e.nodeId === 'revise')).toMatchObject({
        driver: 'engine',
        from: 'pending',
        to: 'skipped',
        reason: 'no taken edge reaches it',
      });
    });

    it('with onFailure=continue skips what depends on the failure, runs the other branches, then fails the plan', async () => {
      const plan = await h.create(
        graphOf(
          { bad: {}, after: {}, good: {}, good2: {} },
          [
            ['bad', 'after'],
            ['good', 'good2'],
          ],
          { mode: 'workflow', onFailure: 'continue' },
        ),
      );
      await h.finish(await h.claim(plan.id, 'bad'), { kind: 'failed', error: 'nope', retryable: false });
      expect(await h.statuses(plan.id)).toMatchObject({ bad: 'failed', after: 'skipped', good: 'ready' });
      expect((await h.store.plans.get(plan.id)).status).toBe('running');
      await h.runReady(plan.id);
      expect(await h.statuses(plan.id)).toEqual({ bad: 'failed', after: 'skipped', good: 'done', good2: 'done' });
      expect((await h.store.plans.get(plan.id)).status).toBe('failed');
      const last = (await h.store.events.list(plan.id)).at(-1)!;
      expect(last).toMatchObject({ from: 'running', to: 'failed', reason: 'node "bad" failed: nope' });
      expect(last.nodeId).toBeUndefined();
    });

    // An edge means "waits for", also for a node whose attempt was under way when a parent of it was retried: when
    // that attempt ends without finishing the node, the node waits for the parent (pending), not ready to run again.
    it.each(['a retryable failure', 'a release', 'a lease expiry'] as const)(
      'holds back a node that %s puts back to ready while a parent of it runs again, until that parent has finished',
      async (end) => {
        // onFailure=continue: `join` runs once `good` passed though `bad` failed (a join needs one taken edge).
        const plan = await h.create(
          graphOf(
            { bad: {}, good: {}, join: { retries: '1', retryDelay: '0ms' } },
            [
              ['bad', 'join'],
              ['good', 'join'],
            ],
            { mode: 'workflow', onFailure: 'continue' },
          ),
        );
        await h.finish(await h.claim(plan.id, 'bad'), { kind: 'failed', error: 'nope', retryable: false });
        await h.finish(await h.claim(plan.id, 'good'), { kind: 'done', output: 'ok' });
        const join = await h.claim(plan.id, 'join', 'w1', end === 'a lease expiry' ? 1 : 30_000);
        await h.ops.retry(plan.id, 'bad', { by: 'ops', reason: 'fixed' });
        expect(await h.store.plans.node(plan.id, 'join')).toMatchObject({ status: 'running', waiting: 1 });
        if (end === 'a retryable failure') await h.finish(join, { kind: 'failed', error: 'flaky', retryable: true });
        else if (end === 'a release') await h.finish(join, { kind: 'released' });
        else await waitUntil(async () => (await h.store.queue.expire({ retryDefaults })) >= 1, 'the 1 ms lease to be found expired');
        expect(await h.store.plans.node(plan.id, 'join')).toMatchObject({ status: 'pending', waiting: 1, taken: 1 });
        const moves = (await h.store.events.list(plan.id)).filter((e) => e.nodeId === 'join' && e.kind === 'status').map((e) => [e.driver, e.from, e.to]);
        expect(moves.slice(-2)).toEqual([
          ['engine', 'running', 'ready'],
          ['engine', 'ready', 'pending'],
        ]);
        // Only the parent is claimable; once it has finished, the node runs again and the plan completes.
        const claimed = (await h.store.queue.claim({ owner: 'w1', limit: 100, leaseMs: 30_000 })).filter((c) => c.planId === plan.id);
        expect(claimed.map((c) => c.nodeId)).toEqual(['bad']);
        await h.finish(claimed[0]!, { kind: 'done', output: 'fixed' });
        expect(await h.store.plans.node(plan.id, 'join')).toMatchObject({ status: 'ready', waiting: 0, taken: 2 });
        await h.finish(await h.claim(plan.id, 'join'), { kind: 'done', output: 'joined' });
        expect((await h.store.plans.get(plan.id)).status).toBe('completed');
      },
    );

    it('holds back a node released by hand in a stopped plan when its failed parent is retried under its running attempt', async () => {
      // The moves of fast-check seed 850431131 (test/store/moves.property.test.ts): n0 fails and stops the plan; an
      // operator releases n1 by hand (`node retry` of a pending node whose parent has finished) and a worker claims it;
      // n0 is retried; n1's first attempt fails and may be retried — after n0, not before.
      const plan = await h.create(
        graphOf({ n0: {}, n1: { retries: '1', retryDelay: '0ms' }, n2: {} }, [['n0', 'n1']], { mode: 'workflow', onFailure: 'stop' }),
      );
      await h.finish(await h.claim(plan.id, 'n0'), { kind: 'failed', error: 'broke', retryable: false });
      expect((await h.store.plans.get(plan.id)).status).toBe('failed');
      await h.ops.retry(plan.id, 'n1', { by: 'ops', reason: 'run it anyway' });
      const n1 = await h.claim(plan.id, 'n1');
      await h.ops.retry(plan.id, 'n0', { by: 'ops', reason: 'fixed' });
      await h.finish(n1, { kind: 'failed', error: 'attempt 1 broke', retryable: true });
      expect(await h.statuses(plan.id)).toMatchObject({ n0: 'ready', n1: 'pending' });
      expect(await h.store.plans.node(plan.id, 'n1')).toMatchObject({ waiting: 1, attempts: 1 });
      // n0 runs first; then n1 (its second attempt), and the plan completes.
      await h.runReady(plan.id);
      expect(await h.statuses(plan.id)).toEqual({ n0: 'done', n1: 'done', n2: 'done' });
      expect(await h.store.plans.node(plan.id, 'n1')).toMatchObject({ attempts: 2 });
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
    });

    it('runs a wide join, each finishing source touching only its own edge and the join', async () => {
      const width = 400;
      const nodes: Record<string, Record<string, string>> = { join: {} };
      const edges: Array<[string, string]> = [];
      for (let i = 0; i < width; i++) {
        nodes[`s${i}`] = {};
        edges.push([`s${i}`, 'join']);
      }
      const plan = await h.create(graphOf(nodes, edges));
      expect((await h.store.plans.node(plan.id, 'join')).waiting).toBe(width);
      const claimed = (await h.store.queue.claim({ owner: 'w', limit: width, leaseMs: 30_000 })).filter((c) => c.planId === plan.id);
      for (const c of claimed.slice(0, width - 1)) await h.finish(c, { kind: 'done', output: '' });
      expect(await h.store.plans.node(plan.id, 'join')).toMatchObject({ status: 'pending', waiting: 1, taken: width - 1 });
      await h.finish(claimed.at(-1)!, { kind: 'done', output: '' });
      expect((await h.store.plans.node(plan.id, 'join')).status).toBe('ready');
    });

    it('wakes listeners after commits that make work ready, finish nodes or change a plan', async () => {
      const wakes: WakeEvent[] = [];
      const stop = h.store.events.onWake((e) => wakes.push(e));
      try {
        const plan = await h.create(independent(1));
        expect(wakes).toContainEqual({ reason: 'ready', planId: plan.id });
        await h.finish(await h.claim(plan.id, 'n0'), { kind: 'done', output: '' });
        expect(wakes).toContainEqual({ reason: 'finished', planId: plan.id });
        expect(wakes).toContainEqual({ reason: 'plan', planId: plan.id });
      } finally {
        stop();
      }
      const count = wakes.filter((w) => w.reason !== 'external').length;
      await h.create(independent(1));
      expect(wakes.filter((w) => w.reason !== 'external')).toHaveLength(count);
    });

    it('wakes a store opened elsewhere on the same database when work appears', async () => {
      const other = await openStore({ url: h.store.url });
      try {
        const wakes: WakeEvent[] = [];
        other.events.onWake((e) => wakes.push(e));
        await other.events.listening;
        const plan = await h.create(independent(1));
        await waitUntil(
          () => wakes.some((w) => (w.reason === 'ready' && w.planId === plan.id) || w.reason === 'external'),
          'a wake-up in the other store',
          5000,
          10,
        );
      } finally {
        await other.close();
      }
    });

    it('fails the attempt with the reason when its result cannot be stored, instead of leaving the node running', async () => {
      const plan = await h.create(independent(1));
      const claimed = await h.claim(plan.id, 'n0');
      await poisonOutputs(h);
      try {
        const { results } = await h.finish(claimed, { kind: 'done', output: 'poison' });
        expect(results[0]).toEqual({ status: 'failed' });
      } finally {
        await curePoison(h);
      }
      const node = await h.store.plans.node(plan.id, 'n0');
      expect(node.status).toBe('failed');
      expect(node.error).toMatch(/^its result could not be stored: .*poisoned value/);
    });
  });
}

/** A trigger that refuses one output value: a write that fails for a reason other than a lost lease. */
async function poisonOutputs(h: Harness): Promise<void> {
  const { connect, resolveDatabase } = await import('../../src/store/connect.js');
  const { db } = await connect(resolveDatabase(h.store.url));
  try {
    if (db.dialect === 'sqlite') {
      await db.exec(`CREATE TRIGGER poison BEFORE UPDATE OF output ON nodes WHEN NEW.output = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned value'); END`);
    } else {
      await db.exec(
        `CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.output = 'poison' THEN RAISE EXCEPTION 'poisoned value'; END IF; RETURN NEW; END $$`,
      );
      await db.exec(`CREATE TRIGGER poison BEFORE UPDATE ON nodes FOR EACH ROW EXECUTE FUNCTION poison()`);
    }
  } finally {
    await db.close();
  }
}

async function curePoison(h: Harness): Promise<void> {
  const { connect, resolveDatabase } = await import('../../src/store/connect.js');
  const { db } = await connect(resolveDatabase(h.store.url));
  try {
    await db.exec(db.dialect === 'sqlite' ? 'DROP TRIGGER poison' : 'DROP TRIGGER poison ON nodes; DROP FUNCTION poison()');
  } finally {
    await db.close();
  }
}
