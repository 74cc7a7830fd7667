/**
 * The one store specification, run against every backend (store.sqlite.test.ts,
 * store.postgres.test.ts), like langgraph's checkpoint-validation or hono's router cases.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, DotplanError, NotFoundError } from '../../src/errors/errors.js';
import { IllegalTransitionError } from '../../src/state/node-moves.js';
import { openStore, migrate } from '../../src/store/index.js';
import { DEFAULT_MIGRATIONS_DIR } from '../../src/store/migrate.js';
import type { Store, WakeEvent } from '../../src/store/types.js';
import { createTestStore, type TestBackend, type TestStore } from '../support/db.js';
import { graphOf, independent, planInput, sleep } from './fixtures.js';

export function storeSuite(backend: TestBackend): void {
  let store: TestStore;
  beforeAll(async () => {
    store = await createTestStore(backend);
  });
  afterAll(async () => {
    await store?.cleanup();
  });

  async function running(graph = independent(3), extra = {}) {
    const plan = await store.createPlan(planInput(graph, extra));
    return store.startPlan(plan.id);
  }

  async function statuses(planId: string): Promise<Record<string, string>> {
    return Object.fromEntries((await store.getNodes(planId)).map((n) => [n.id, n.status]));
  }

  /** Claims until the plan's given node is claimed (other plans' nodes are released). */
  async function claimNode(planId: string, nodeId: string, owner = 'w1', leaseMs = 30_000) {
    const claimed = await store.claimReady({ owner, limit: 100, leaseMs });
    const mine = claimed.find((c) => c.planId === planId && c.nodeId === nodeId);
    const others = claimed.filter((c) => c !== mine);
    if (others.length > 0) await store.finishAttempts(others.map((c) => ({ token: c.token, outcome: { status: 'released' as const } })));
    if (!mine) throw new Error(`node ${nodeId} of ${planId} was not claimable; got ${claimed.map((c) => c.nodeId).join(', ')}`);
    return mine;
  }

  async function finishReady(planId: string, outputs: Record<string, string> = {}) {
    for (;;) {
      const claimed = (await store.claimReady({ owner: 'w', limit: 100, leaseMs: 30_000 })).filter((c) => c.planId === planId);
      if (claimed.length === 0) return;
      await store.finishAttempts(claimed.map((c) => ({ token: c.token, outcome: { status: 'done' as const, output: outputs[c.nodeId] ?? `out ${c.nodeId}` } })));
    }
  }

  describe(`store on ${backend}`, () => {
    it('creates a plan with its revision, nodes, edges and a creation event', async () => {
      const graph = graphOf(
        {
          a: { status: 'done', toolOutput: 'A', label: 'Fetch', toolCode: 'echo' },
          b: { type: 'confirm', question: 'ok?', answer: 'yes', status: 'done' },
          c: { toolCode: 'echo', toolInput: '{"x":"{{nodes.a.output}}"}' },
        },
        [['a', 'b'], ['b', 'c', 'yes']],
        { mode: 'workflow', goal: 'test', params: 'topic' },
      );
      graph.nodes[2]!.cluster = 'cluster_main';
      const plan = await store.createPlan(planInput(graph, { template: 'demo', params: { topic: 'cats' }, updateLog: 'first' }));
      expect(plan.id).toMatch(/^p_[0-9a-z]{15}$/);
      expect(plan).toMatchObject({ title: 'test plan', status: 'draft', mode: 'workflow', template: 'demo', params: { topic: 'cats' }, revision: 1 });
      expect(plan.attributes).toEqual({ mode: 'workflow', goal: 'test', params: 'topic' });
      expect(await store.getPlan(plan.id)).toEqual(plan);

      const nodes = await store.getNodes(plan.id);
      expect(nodes.map((n) => [n.id, n.type, n.status, n.output, n.answer])).toEqual([
        ['a', 'function', 'done', 'A', undefined],
        ['b', 'confirm', 'done', undefined, 'yes'],
        ['c', 'function', 'pending', undefined, undefined],
      ]);
      expect(nodes[0]!.label).toBe('Fetch');
      expect(nodes[0]!.attributes).toEqual({ type: 'function', label: 'Fetch', toolCode: 'echo' });
      expect(nodes[2]!.cluster).toBe('cluster_main');
      expect(await store.getNode(plan.id, 'c')).toEqual(nodes[2]);
      expect(await store.getEdges(plan.id)).toEqual([{ from: 'a', to: 'b' }, { from: 'b', to: 'c', when: 'yes' }]);

      const revisions = await store.listRevisions(plan.id);
      expect(revisions).toHaveLength(1);
      expect(revisions[0]).toMatchObject({ planId: plan.id, number: 1, dot: 'digraph G { a }', author: 'template', updateLog: 'first' });
      expect(revisions[0]!.parent).toBeUndefined();
      expect(await store.getRevision(plan.id)).toEqual(revisions[0]);
      expect(await store.getRevision(plan.id, 1)).toEqual(revisions[0]);
      await expect(store.getRevision(plan.id, 2)).rejects.toThrow(NotFoundError);

      const events = await store.listEvents(plan.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ planId: plan.id, driver: 'operator', from: '', to: 'draft' });
      expect(events[0]!.nodeId).toBeUndefined();
    });

    it('creates a plan directly as running: nodes whose dependencies are met are ready at once', async () => {
      const plan = await store.createPlan({ ...planInput(graphOf({ a: {}, b: {}, c: { status: 'done' }, d: {} }, [['a', 'b'], ['c', 'd']], { mode: 'workflow' })), status: 'running' });
      expect(plan.status).toBe('running');
      expect(await statuses(plan.id)).toEqual({ a: 'ready', b: 'pending', c: 'done', d: 'ready' });
      await store.cancelPlan(plan.id, 'operator');
    });

    it('lists plans, filtered by status, and names the missing plan with a hint', async () => {
      const a = await store.createPlan(planInput(independent(1), { title: 'list a' }));
      const b = await store.createPlan(planInput(independent(1), { title: 'list b' }));
      await store.startPlan(b.id);
      const all = await store.listPlans();
      expect(all.map((p) => p.id)).toEqual(expect.arrayContaining([a.id, b.id]));
      expect(all.findIndex((p) => p.id === a.id)).toBeLessThan(all.findIndex((p) => p.id === b.id));
      const runningIds = (await store.listPlans({ status: 'running' })).map((p) => p.id);
      expect(runningIds).toContain(b.id);
      expect(runningIds).not.toContain(a.id);
      const error = await store.getPlan('p_missing').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as Error).message).toContain('p_missing');
      expect((error as Error).message).toContain('dotplan plan list');
      await expect(store.getNode(a.id, 'nope')).rejects.toThrow(/"nope".*not found/);
      await expect(store.getNodes('p_missing')).rejects.toThrow(NotFoundError);
    });

    it('records one event per accepted move, with driver and reason', async () => {
      const plan = await store.createPlan(planInput(independent(3)));
      const moved = await store.applyNodeMoves(plan.id, [{ node: 'n0', to: 'skipped' }, { node: 'n1', to: 'ready' }], 'operator', 'hand edit');
      expect(moved.map((n) => [n.id, n.status])).toEqual([['n0', 'skipped'], ['n1', 'ready']]);
      const events = (await store.listEvents(plan.id)).slice(1);
      expect(events.map((e) => [e.nodeId, e.driver, e.from, e.to, e.reason])).toEqual([
        ['n0', 'operator', 'pending', 'skipped', 'hand edit'],
        ['n1', 'operator', 'pending', 'ready', 'hand edit'],
      ]);
      const after = await store.listEvents(plan.id, { after: events[0]!.id });
      expect(after.map((e) => e.nodeId)).toEqual(['n1']);
    });

    it('refuses a batch with one illegal move and leaves nodes, events, plan and revisions exactly as they were', async () => {
      const plan = await running(independent(3));
      const claimed = await claimNode(plan.id, 'n2');
      const before = {
        plan: await store.getPlan(plan.id),
        nodes: await store.getNodes(plan.id),
        events: await store.listEvents(plan.id),
        revisions: await store.listRevisions(plan.id),
      };
      const error = await store
        .applyNodeMoves(plan.id, [{ node: 'n0', to: 'skipped' }, { node: 'n2', to: 'done', output: 'forged' }], 'operator', 'hand edit')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IllegalTransitionError);
      expect((error as Error).message).toMatch(/"n2".*operator.*running.*done/);
      expect({
        plan: await store.getPlan(plan.id),
        nodes: await store.getNodes(plan.id),
        events: await store.listEvents(plan.id),
        revisions: await store.listRevisions(plan.id),
      }).toEqual(before);
      await expect(store.applyNodeMoves(plan.id, [{ node: 'ghost', to: 'skipped' }], 'operator')).rejects.toThrow(NotFoundError);
      await store.finishAttempt(claimed.token, { status: 'done' });
    });

    it('gives a claimed node everything a worker needs, with a lease from the database clock', async () => {
      const graph = graphOf({ only: { toolCode: 'echo', toolInput: '{{params.topic}}', label: 'Only' } }, [], { mode: 'workflow', retries: '2' });
      const plan = await store.startPlan((await store.createPlan(planInput(graph, { params: { topic: 'owls' } }))).id);
      const before = Date.now();
      const claimed = await claimNode(plan.id, 'only', 'worker-7', 60_000);
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
      const node = await store.getNode(plan.id, 'only');
      expect(node).toMatchObject({ status: 'running', leaseOwner: 'worker-7', attempts: 1 });
      expect(node.startedAt).toBeInstanceOf(Date);
      const event = (await store.listEvents(plan.id)).at(-1)!;
      expect(event).toMatchObject({ nodeId: 'only', driver: 'engine', from: 'ready', to: 'running' });
      const done = await store.finishAttempt(claimed.token, { status: 'done', output: 'owls!' });
      expect(done).toMatchObject({ status: 'done', output: 'owls!', leaseOwner: undefined });
      expect((await store.getPlan(plan.id)).status).toBe('completed');
    });

    it('never gives one node to two concurrent claimers', async () => {
      const plan = await running(independent(60));
      const other = await openStore({ url: store.url });
      try {
        const seen: string[] = [];
        const claimer = async (s: Store, owner: string) => {
          for (;;) {
            const claimed = (await s.claimReady({ owner, limit: 7, leaseMs: 30_000 })).filter((c) => c.planId === plan.id);
            if (claimed.length === 0) return;
            seen.push(...claimed.map((c) => c.nodeId));
          }
        };
        await Promise.all([claimer(store, 'a'), claimer(other, 'b'), claimer(store, 'c'), claimer(other, 'd')]);
        expect(seen).toHaveLength(60);
        expect(new Set(seen).size).toBe(60);
      } finally {
        await other.close();
      }
      await store.cancelPlan(plan.id, 'operator');
    });

    it('claims only ready, due nodes of running plans', async () => {
      const draft = await store.createPlan(planInput(independent(2)));
      await store.applyNodeMoves(draft.id, [{ node: 'n0', to: 'ready' }], 'operator');
      const claimed = await store.claimReady({ owner: 'w', limit: 100, leaseMs: 30_000 });
      expect(claimed.filter((c) => c.planId === draft.id)).toEqual([]);
      expect(await store.claimReady({ owner: 'w', limit: 0, leaseMs: 1000 })).toEqual([]);
      if (claimed.length > 0) await store.finishAttempts(claimed.map((c) => ({ token: c.token, outcome: { status: 'released' as const } })));
    });

    it('refuses a finish with a stale token after the lease expired and another worker took over', async () => {
      const plan = await running(independent(1));
      const first = await claimNode(plan.id, 'n0', 'crashed', 1);
      await sleep(20);
      expect(await store.expireLeases()).toBeGreaterThanOrEqual(1);
      const afterExpiry = await store.getNode(plan.id, 'n0');
      expect(afterExpiry).toMatchObject({ status: 'ready', attempts: 1, leaseOwner: undefined });
      const expiredEvent = (await store.listEvents(plan.id)).at(-1)!;
      expect(expiredEvent).toMatchObject({ from: 'running', to: 'ready', driver: 'engine' });
      expect(expiredEvent.reason).toContain('lease expired');

      const second = await claimNode(plan.id, 'n0', 'healthy');
      expect(second.attempts).toBe(2);
      const eventsBefore = await store.listEvents(plan.id);
      const late = await store.finishAttempt(first.token, { status: 'done', output: 'late result' }).catch((e: unknown) => e);
      expect(late).toBeInstanceOf(ConflictError);
      expect((late as Error).message).toContain('lease lost');
      expect(await store.getNode(plan.id, 'n0')).toMatchObject({ status: 'running', leaseOwner: 'healthy', output: undefined });
      expect(await store.listEvents(plan.id)).toEqual(eventsBefore);
      expect(await store.renewLeases('crashed', [first.token], 60_000)).toEqual([]);
      expect(await store.renewLeases('healthy', [second.token], 60_000)).toEqual([second.token]);
      expect((await store.finishAttempt(second.token, { status: 'done', output: 'ok' })).output).toBe('ok');
      await expect(store.finishAttempt(second.token, { status: 'done', output: 'twice' })).rejects.toThrow(/lease lost/);
      await expect(store.finishAttempt('not-a-token', { status: 'done' })).rejects.toThrow(ConflictError);
    });

    it('fails a node whose lease expired on its last attempt, and the plan with it (onFailure=stop)', async () => {
      const graph = graphOf({ slow: { retries: '1' }, next: {}, other: {} }, [['slow', 'next']], { mode: 'workflow' });
      const plan = await running(graph);
      await claimNode(plan.id, 'slow', 'w', 1);
      await sleep(20);
      await store.expireLeases();
      expect((await store.getNode(plan.id, 'slow')).status).toBe('ready');
      await claimNode(plan.id, 'slow', 'w', 1);
      await sleep(20);
      await store.expireLeases();
      const slow = await store.getNode(plan.id, 'slow');
      expect(slow).toMatchObject({ status: 'failed', attempts: 2 });
      expect(slow.error).toMatch(/lease expired.*attempt 2 of 2/);
      const failed = await store.getPlan(plan.id);
      expect(failed.status).toBe('failed');
      expect(failed.error).toContain('"slow" failed');
      // Nothing more starts in a failed plan; what has not run keeps its status so that a retry can resume it.
      expect(await statuses(plan.id)).toEqual({ slow: 'failed', next: 'pending', other: 'ready' });
    });

    it('puts a failed attempt back to ready with runAfter, claimable only when due', async () => {
      const plan = await running(independent(1));
      const first = await claimNode(plan.id, 'n0');
      const retryAt = new Date(Date.now() + 400);
      const node = await store.finishAttempt(first.token, { status: 'failed', error: 'boom', retryAt });
      expect(node).toMatchObject({ status: 'ready', error: 'boom', attempts: 1 });
      expect(node.runAfter?.getTime()).toBe(retryAt.getTime());
      expect((await store.claimReady({ owner: 'w', limit: 100, leaseMs: 1000 })).filter((c) => c.planId === plan.id)).toEqual([]);
      const counts = await store.countActive();
      expect(counts.retryPending).toBeGreaterThanOrEqual(1);
      expect(counts.nextDueAt?.getTime()).toBeLessThanOrEqual(retryAt.getTime());
      await sleep(450);
      const second = await claimNode(plan.id, 'n0');
      expect(second.attempts).toBe(2);
      const released = await store.finishAttempt(second.token, { status: 'released' });
      expect(released).toMatchObject({ status: 'ready', attempts: 1 });
      const third = await claimNode(plan.id, 'n0');
      expect(third.attempts).toBe(2);
      await store.finishAttempt(third.token, { status: 'failed', error: 'final' });
      expect(await store.getNode(plan.id, 'n0')).toMatchObject({ status: 'failed', error: 'final' });
      expect((await store.getPlan(plan.id)).status).toBe('failed');
    });

    it('finishes a batch in one call; a stale token fails only its own entry', async () => {
      const plan = await running(independent(3));
      const claimed = (await store.claimReady({ owner: 'w', limit: 100, leaseMs: 30_000 })).filter((c) => c.planId === plan.id);
      expect(claimed).toHaveLength(3);
      const results = await store.finishAttempts([
        { token: claimed[0]!.token, outcome: { status: 'done', output: '0' } },
        { token: `${claimed[1]!.token.split('.')[0]}.deadbeef`, outcome: { status: 'done', output: 'stale' } },
        { token: claimed[2]!.token, outcome: { status: 'done', output: '2' } },
      ]);
      expect(results[0]).toMatchObject({ id: 'n0', status: 'done', output: '0' });
      expect(results[1]).toBeInstanceOf(ConflictError);
      expect(results[2]).toMatchObject({ id: 'n2', status: 'done', output: '2' });
      expect((await store.getNode(plan.id, 'n1')).status).toBe('running');
      await store.finishAttempt(claimed[1]!.token, { status: 'done' });
      expect((await store.getPlan(plan.id)).status).toBe('completed');
    });

    it('hands a chain step to the finishing worker: one event per move, in order, the next node under its lease', async () => {
      const plan = await running(graphOf({ a: {}, b: {}, c: {}, d: {} }, [['a', 'b'], ['b', 'c'], ['c', 'd']], { mode: 'workflow' }));
      const a = await claimNode(plan.id, 'a');
      const launched: string[][] = [];
      const handOff = (slots: number) => ({ owner: 'w2', leaseMs: 30_000, reserve: () => slots, launch: (claims: Array<{ nodeId: string; token: string }>) => void launched.push(claims.map((c) => c.nodeId)) });
      let claims: Array<{ nodeId: string; token: string; attempts: number; planId: string }> = [];
      const [finishedA] = await store.finishAttempts([{ token: a.token, outcome: { status: 'done', output: 'A' } }], {
        ...handOff(1),
        launch: (c) => {
          claims = c;
          launched.push(c.map((x) => x.nodeId));
        },
      });
      expect(finishedA).toMatchObject({ id: 'a', status: 'done', output: 'A' });
      expect(launched).toEqual([['b']]);
      expect(claims[0]).toMatchObject({ planId: plan.id, nodeId: 'b', attempts: 1 });
      expect(await store.getNode(plan.id, 'b')).toMatchObject({ status: 'running', attempts: 1, leaseOwner: 'w2' });
      await expect(store.finishAttempt(a.token, { status: 'done', output: 'again' })).rejects.toThrow(/lease lost/);

      // No slot for the hand-off: the next node only becomes ready.
      await store.finishAttempts([{ token: claims[0]!.token, outcome: { status: 'done', output: 'B' } }], handOff(0));
      expect(await statuses(plan.id)).toEqual({ a: 'done', b: 'done', c: 'ready', d: 'pending' });
      // A dependent that is no longer pending stays as it is, and the plan settles.
      const c = await claimNode(plan.id, 'c');
      await store.applyNodeMoves(plan.id, [{ node: 'd', to: 'skipped' }], 'operator', 'not needed');
      await store.finishAttempts([{ token: c.token, outcome: { status: 'done', output: 'C' } }], handOff(1));
      expect(await statuses(plan.id)).toEqual({ a: 'done', b: 'done', c: 'done', d: 'skipped' });
      expect((await store.getPlan(plan.id)).status).toBe('completed');

      const events = (await store.listEvents(plan.id)).filter((e) => e.nodeId !== undefined && e.from !== 'draft');
      expect(events.map((e) => [e.nodeId, e.driver, e.from, e.to, e.reason ?? null])).toEqual([
        ['a', 'engine', 'pending', 'ready', expect.any(String)],
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

    it('propagates readiness along taken `when` edges, skips untaken branches with cascade, runs the join', async () => {
      const graph = graphOf(
        {
          draft: {},
          approve: { type: 'confirm', question: 'Publish?' },
          publish: {},
          announce: {},
          revise: {},
          archive: {},
        },
        [
          ['draft', 'approve'],
          ['approve', 'publish', 'yes|y'],
          ['publish', 'announce'],
          ['approve', 'revise', 'no'],
          ['announce', 'archive'],
          ['revise', 'archive'],
        ],
        { mode: 'workflow' },
      );
      const plan = await running(graph);
      expect(await statuses(plan.id)).toMatchObject({ draft: 'ready', approve: 'pending', archive: 'pending' });
      await store.finishAttempt((await claimNode(plan.id, 'draft')).token, { status: 'done', output: 'text' });
      const ask = await claimNode(plan.id, 'approve');
      await store.finishAttempt(ask.token, { status: 'awaiting_input', question: 'Publish now?' });
      const waiting = await store.getNode(plan.id, 'approve');
      expect(waiting.status).toBe('awaiting_input');
      expect(waiting.attributes.question).toBe('Publish now?');
      expect((await store.countActive()).awaitingInput).toBeGreaterThanOrEqual(1);

      await store.answerNode(plan.id, 'approve', 'Y', 'person');
      expect(await statuses(plan.id)).toMatchObject({ approve: 'done', publish: 'ready', revise: 'skipped', announce: 'pending', archive: 'pending' });
      await finishReady(plan.id);
      expect(await statuses(plan.id)).toEqual({ draft: 'done', approve: 'done', publish: 'done', announce: 'done', revise: 'skipped', archive: 'done' });
      expect((await store.getPlan(plan.id)).status).toBe('completed');
      const skip = (await store.listEvents(plan.id)).find((e) => e.nodeId === 'revise')!;
      expect(skip).toMatchObject({ driver: 'engine', from: 'pending', to: 'skipped' });
      expect(skip.reason).toContain('no taken edge');
    });

    it('cascades skips to nodes only reachable through a skipped branch', async () => {
      const graph = graphOf({ ask: { type: 'confirm', question: 'go?' }, a: {}, b: {}, c: {} }, [['ask', 'a', 'yes'], ['a', 'b'], ['b', 'c']], { mode: 'workflow' });
      const plan = await running(graph);
      const ask = await claimNode(plan.id, 'ask');
      await store.finishAttempt(ask.token, { status: 'awaiting_input' });
      await store.answerNode(plan.id, 'ask', 'no', 'person');
      expect(await statuses(plan.id)).toEqual({ ask: 'done', a: 'skipped', b: 'skipped', c: 'skipped' });
      expect((await store.getPlan(plan.id)).status).toBe('completed');
    });

    it('with onFailure=continue runs the other branches, then fails the plan', async () => {
      const graph = graphOf({ bad: {}, after: {}, good: {}, good2: {} }, [['bad', 'after'], ['good', 'good2']], { mode: 'workflow', onFailure: 'continue' });
      const plan = await running(graph);
      const bad = await claimNode(plan.id, 'bad');
      await store.finishAttempt(bad.token, { status: 'failed', error: 'nope' });
      expect(await statuses(plan.id)).toMatchObject({ bad: 'failed', after: 'skipped', good: 'ready' });
      expect((await store.getPlan(plan.id)).status).toBe('running');
      await finishReady(plan.id);
      expect(await statuses(plan.id)).toEqual({ bad: 'failed', after: 'skipped', good: 'done', good2: 'done' });
      const final = await store.getPlan(plan.id);
      expect(final.status).toBe('failed');
      expect((await store.listEvents(plan.id)).at(-1)).toMatchObject({ nodeId: undefined, from: 'running', to: 'failed' });
    });

    it('answers: refuses a node that is not waiting, ignores the same answer twice, refuses a different one', async () => {
      const graph = graphOf({ ask: { type: 'confirm', question: 'ok?' }, then: {} }, [['ask', 'then']], { mode: 'workflow' });
      const plan = await running(graph);
      const early = await store.answerNode(plan.id, 'ask', 'yes', 'person').catch((e: unknown) => e);
      expect(early).toBeInstanceOf(DotplanError);
      expect((early as DotplanError).code).toBe('INVALID_INPUT');
      expect((early as Error).message).toMatch(/"ask".* is ready, not awaiting_input/);
      const ask = await claimNode(plan.id, 'ask');
      await store.finishAttempt(ask.token, { status: 'awaiting_input' });
      await expect(store.answerNode(plan.id, 'ask', 'yes', 'llm')).rejects.toThrow(IllegalTransitionError);
      expect(await store.answerNode(plan.id, 'ask', 'yes', 'person')).toMatchObject({ status: 'done', answer: 'yes' });
      const events = await store.listEvents(plan.id);
      expect(await store.answerNode(plan.id, 'ask', 'yes', 'person')).toMatchObject({ status: 'done', answer: 'yes' });
      expect(await store.listEvents(plan.id)).toEqual(events);
      const conflict = await store.answerNode(plan.id, 'ask', 'no', 'person').catch((e: unknown) => e);
      expect(conflict).toBeInstanceOf(ConflictError);
      expect((conflict as Error).message).toContain('already answered "yes"');
      await expect(store.answerNode(plan.id, 'nobody', 'x', 'person')).rejects.toThrow(NotFoundError);
    });

    it('starts a plan that needs review in awaiting_review; approval makes its roots ready', async () => {
      const graph = graphOf({ a: {}, b: {} }, [['a', 'b']], { mode: 'workflow', review: 'required' });
      const plan = await store.createPlan(planInput(graph));
      expect((await store.startPlan(plan.id)).status).toBe('awaiting_review');
      expect(await statuses(plan.id)).toEqual({ a: 'pending', b: 'pending' });
      await expect(store.setPlanStatus(plan.id, 'running', 'engine')).rejects.toThrow(/engine may not move it from awaiting_review to running/);
      const approved = await store.setPlanStatus(plan.id, 'running', 'person', 'looks good');
      expect(approved.status).toBe('running');
      expect(await statuses(plan.id)).toEqual({ a: 'ready', b: 'pending' });
      const planEvents = (await store.listEvents(plan.id)).filter((e) => e.nodeId === undefined);
      expect(planEvents.map((e) => [e.driver, e.from, e.to, e.reason])).toEqual([
        ['operator', '', 'draft', 'created'],
        ['engine', 'draft', 'awaiting_review', 'started'],
        ['person', 'awaiting_review', 'running', 'looks good'],
      ]);
      await expect(store.startPlan(plan.id)).rejects.toThrow(/only a draft plan can be started/);
      await store.cancelPlan(plan.id, 'operator');
    });

    it('cancels a plan and every unfinished node; a running attempt then loses its lease', async () => {
      const graph = graphOf({ a: {}, b: {}, c: { status: 'done' } }, [['a', 'b']], { mode: 'workflow' });
      const plan = await running(graph);
      const a = await claimNode(plan.id, 'a');
      await expect(store.cancelPlan(plan.id, 'person')).rejects.toThrow(DotplanError);
      const cancelled = await store.cancelPlan(plan.id, 'operator', 'no longer needed');
      expect(cancelled.status).toBe('cancelled');
      expect(await statuses(plan.id)).toEqual({ a: 'cancelled', b: 'cancelled', c: 'done' });
      await expect(store.finishAttempt(a.token, { status: 'done' })).rejects.toThrow(/lease lost/);
    });

    it('lets an operator skip a pending node in a running plan, and readiness follows', async () => {
      const graph = graphOf({ a: {}, b: {}, c: {} }, [['a', 'c'], ['b', 'c']], { mode: 'workflow' });
      const plan = await running(graph);
      await store.applyNodeMoves(plan.id, [{ node: 'a', to: 'skipped' }], 'operator');
      expect(await statuses(plan.id)).toEqual({ a: 'skipped', b: 'ready', c: 'pending' });
      await finishReady(plan.id);
      expect(await statuses(plan.id)).toEqual({ a: 'skipped', b: 'done', c: 'done' });
      expect((await store.getPlan(plan.id)).status).toBe('completed');
    });

    it('counts what keeps a worker busy', async () => {
      const plan = await running(independent(2));
      const counts = await store.countActive();
      expect(counts.ready).toBeGreaterThanOrEqual(2);
      const claimed = (await store.claimReady({ owner: 'w', limit: 100, leaseMs: 30_000 })).filter((c) => c.planId === plan.id);
      const during = await store.countActive();
      expect(during.running).toBeGreaterThanOrEqual(2);
      await store.finishAttempts(claimed.map((c) => ({ token: c.token, outcome: { status: 'done' as const } })));
      expect((await store.getPlan(plan.id)).status).toBe('completed');
    });

    it('wakes listeners after commits that create ready work or finish nodes', async () => {
      const wakes: WakeEvent[] = [];
      const stop = store.onWake((e) => wakes.push(e));
      try {
        const plan = await running(independent(1));
        expect(wakes).toContainEqual({ reason: 'ready', planId: plan.id });
        const claimed = await claimNode(plan.id, 'n0');
        await store.finishAttempt(claimed.token, { status: 'done' });
        expect(wakes).toContainEqual({ reason: 'finished', planId: plan.id });
        expect(wakes).toContainEqual({ reason: 'plan', planId: plan.id });
      } finally {
        stop();
      }
      const count = wakes.length;
      await running(independent(1));
      expect(wakes).toHaveLength(count);
    });

    if (backend === 'postgres') {
      it('wakes a store in another process through LISTEN/NOTIFY', async () => {
        const other = await openStore({ url: store.url });
        try {
          const wakes: WakeEvent[] = [];
          other.onWake((e) => wakes.push(e));
          await (other as unknown as { listening: Promise<void> }).listening;
          const plan = await running(independent(1));
          // Wait for the wake-up asserted below: the plan's creation announces itself first.
          for (let i = 0; i < 100 && !wakes.some((w) => w.planId === plan.id && w.reason === 'ready'); i++) await sleep(10);
          expect(wakes).toContainEqual({ reason: 'ready', planId: plan.id });
        } finally {
          await other.close();
        }
      });
    }

    it('applies migrations once: opening again and migrating again change nothing', async () => {
      const again = await openStore({ url: store.url });
      try {
        const plans = await again.listPlans();
        expect(plans.length).toBeGreaterThan(0);
      } finally {
        await again.close();
      }
      const { connect, resolveDatabase } = await import('../../src/store/connect.js');
      const connection = await connect(resolveDatabase(store.url));
      try {
        expect(await migrate(connection.db)).toEqual([]);
        const rows = await connection.db.all<{ name: string }>('SELECT name FROM _dotplan_migrations ORDER BY name');
        expect(rows.map((r) => r.name)).toEqual(readdirSync(join(DEFAULT_MIGRATIONS_DIR, store.backend === 'sqlite' ? 'sqlite' : 'postgresql')).sort());
      } finally {
        await connection.db.close();
      }
    });
  });
}
