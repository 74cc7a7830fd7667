/**
 * The store specification for plans, revisions, commands and the audit log, run against every
 * backend (store.sqlite.test.ts, store.postgres.test.ts), like langgraph's checkpoint-validation.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, DotplanError, NotFoundError } from '../../src/errors/errors.js';
import { IllegalTransitionError } from '../../src/state/node-moves.js';
import { migrate, openStore } from '../../src/store/index.js';
import { DEFAULT_MIGRATIONS_DIR } from '../../src/store/migrate.js';
import type { TestBackend } from '../support/db.js';
import { graphOf, independent } from './fixtures.js';
import { openHarness, type Harness } from './harness.js';

export function plansSuite(backend: TestBackend): void {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(backend);
  });
  afterAll(async () => {
    await h?.close();
  });

  describe(`plans on ${backend}`, () => {
    it('creates a plan with its revision, nodes, edges and creation events, and starts it', async () => {
      const graph = graphOf(
        {
          a: { status: 'done', toolOutput: 'A', label: 'Fetch', toolCode: 'echo' },
          b: { type: 'confirm', question: 'ok?', answer: 'yes', status: 'done' },
          c: { toolCode: 'echo', toolInput: '{"x":"{{nodes.a.output}}"}' },
        },
        [
          ['a', 'b'],
          ['b', 'c', 'yes'],
        ],
        { mode: 'workflow', goal: 'test', params: 'topic' },
      );
      graph.nodes[2]!.cluster = 'cluster_main';
      const plan = await h.create(graph, { template: 'demo', params: { topic: 'cats' }, updateLog: 'first', actor: 'ada' });
      expect(plan.id).toMatch(/^p_[0-9a-z]{15}$/);
      expect(plan).toMatchObject({ title: 'test plan', status: 'running', mode: 'workflow', template: 'demo', params: { topic: 'cats' }, revision: 1 });
      expect(plan.attributes).toEqual({ mode: 'workflow', goal: 'test', params: 'topic' });
      expect(await h.store.plans.get(plan.id)).toEqual(plan);

      const nodes = await h.store.plans.nodes(plan.id);
      expect(nodes.map((n) => [n.id, n.type, n.status, n.output, n.answer, n.waiting, n.taken])).toEqual([
        ['a', 'function', 'done', 'A', undefined, 0, 0],
        ['b', 'confirm', 'done', undefined, 'yes', 0, 1],
        ['c', 'function', 'ready', undefined, undefined, 0, 1],
      ]);
      expect(nodes[0]!.label).toBe('Fetch');
      expect(nodes[0]!.attributes).toEqual({ type: 'function', label: 'Fetch', toolCode: 'echo' });
      expect(nodes[2]!.cluster).toBe('cluster_main');
      expect(await h.store.plans.node(plan.id, 'c')).toEqual(nodes[2]);
      expect(await h.store.plans.edges(plan.id)).toEqual([
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c', when: 'yes' },
      ]);

      const revisions = await h.store.plans.revisions(plan.id);
      expect(revisions).toHaveLength(1);
      expect(revisions[0]).toMatchObject({ planId: plan.id, number: 1, dot: 'digraph G { a }', author: 'template', updateLog: 'first' });
      expect(revisions[0]!.parent).toBeUndefined();
      expect(await h.store.plans.revision(plan.id)).toEqual(revisions[0]);
      await expect(h.store.plans.revision(plan.id, 2)).rejects.toThrow(NotFoundError);

      const events = await h.store.events.list(plan.id);
      expect(events.map((e) => [e.kind, e.nodeId ?? null, e.driver, e.actor ?? null, e.from, e.to])).toEqual([
        ['revision', null, 'operator', 'ada', '', ''],
        ['status', null, 'operator', 'ada', '', 'draft'],
        ['status', null, 'engine', null, 'draft', 'running'],
        ['status', 'c', 'engine', null, 'pending', 'ready'],
      ]);
      expect(events[0]!.detail).toEqual({ revision: 1, author: 'template' });
    });

    it('lists plans, filtered by status, and names a missing plan or node with a hint', async () => {
      const a = await h.create(independent(1), { title: 'list a' });
      const b = await h.create(graphOf({ x: {} }, [], { review: 'required' }), { title: 'list b' });
      const all = await h.store.plans.list();
      expect(all.findIndex((p) => p.id === a.id)).toBeLessThan(all.findIndex((p) => p.id === b.id));
      const waiting = (await h.store.plans.list({ status: 'awaiting_review' })).map((p) => p.id);
      expect(waiting).toContain(b.id);
      expect(waiting).not.toContain(a.id);
      const error = await h.store.plans.get('p_missing').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as Error).message).toMatch(/p_missing.*dotplan plan list/);
      await expect(h.store.plans.node(a.id, 'nope')).rejects.toThrow(/"nope".*not found/);
      await expect(h.store.plans.nodes('p_missing')).rejects.toThrow(NotFoundError);
      await expect(h.ops.skip(a.id, 'ghost')).rejects.toThrow(/node "ghost" not found/);
    });

    it('refuses an illegal move and leaves nodes, events, plan and revisions exactly as they were', async () => {
      const plan = await h.create(independent(3));
      const claimed = await h.claim(plan.id, 'n2');
      await h.finish(claimed, { kind: 'done', output: 'x' });
      const snapshot = async () => ({
        plan: await h.store.plans.get(plan.id),
        nodes: await h.store.plans.nodes(plan.id),
        events: await h.store.events.list(plan.id),
        revisions: await h.store.plans.revisions(plan.id),
      });
      const before = await snapshot();
      const error = await h.ops.skip(plan.id, 'n2', { by: 'ops' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IllegalTransitionError);
      expect((error as Error).message).toMatch(/node "n2": operator may not move it from done to skipped/);
      await expect(h.ops.retry(plan.id, 'n0')).rejects.toThrow(/from ready to ready|may not move it from ready/);
      expect(await snapshot()).toEqual(before);
    });

    it('waits for review when review="required": nothing is ready and the engine may not start it', async () => {
      const plan = await h.create(graphOf({ a: {}, b: {} }, [['a', 'b']], { review: 'required' }));
      expect(plan.status).toBe('awaiting_review');
      expect(await h.statuses(plan.id)).toEqual({ a: 'pending', b: 'pending' });
      expect(await h.store.queue.claim({ owner: 'w', limit: 100, leaseMs: 1000 }).then((c) => c.filter((x) => x.planId === plan.id))).toEqual([]);
      await expect(h.ops.pause(plan.id)).rejects.toThrow(/operator may not move it from awaiting_review to paused/);
    });

    it('answers: refuses a node that is not waiting, accepts the same answer twice, refuses a different one; records the answer', async () => {
      const plan = await h.create(graphOf({ ask: { type: 'confirm', question: 'ok?' }, then: {} }, [['ask', 'then']]));
      const early = await h.ops.answer(plan.id, 'ask', 'yes').catch((e: unknown) => e);
      expect(early).toBeInstanceOf(DotplanError);
      expect((early as DotplanError).code).toBe('INVALID_INPUT');
      expect((early as Error).message).toMatch(/"ask".* is ready, not awaiting_input/);
      await h.finish(await h.claim(plan.id, 'ask'), { kind: 'asked' });
      expect(await h.ops.answer(plan.id, 'ask', 'yes', { by: 'ada' })).toMatchObject({ status: 'done', answer: 'yes' });
      expect(await h.statuses(plan.id)).toEqual({ ask: 'done', then: 'ready' });
      const events = await h.store.events.list(plan.id);
      expect(
        events
          .filter((e) => e.nodeId === 'ask')
          .slice(-2)
          .map((e) => [e.kind, e.driver, e.actor, e.from, e.to, e.detail ?? null]),
      ).toEqual([
        ['answer', 'person', 'ada', '', '', { answer: 'yes' }],
        ['status', 'person', 'ada', 'awaiting_input', 'done', null],
      ]);
      expect(await h.ops.answer(plan.id, 'ask', ' yes ')).toMatchObject({ answer: 'yes' });
      expect(await h.store.events.list(plan.id)).toEqual(events);
      const conflict = await h.ops.answer(plan.id, 'ask', 'no').catch((e: unknown) => e);
      expect(conflict).toBeInstanceOf(ConflictError);
      expect((conflict as Error).message).toContain('already answered "yes"');
    });

    it('cancels a plan and every unfinished node; a running attempt then loses its lease', async () => {
      const plan = await h.create(graphOf({ a: {}, b: {}, c: { status: 'done' } }, [['a', 'b']]));
      const a = await h.claim(plan.id, 'a');
      const cancelled = await h.ops.cancel(plan.id, { by: 'ops', reason: 'no longer needed' });
      expect(cancelled.status).toBe('cancelled');
      expect(await h.statuses(plan.id)).toEqual({ a: 'cancelled', b: 'cancelled', c: 'done' });
      expect((await h.finish(a, { kind: 'done', output: 'late' })).results[0]).toBeInstanceOf(ConflictError);
      expect((await h.store.plans.node(plan.id, 'a')).output).toBeUndefined();
      await expect(h.ops.cancel(plan.id)).rejects.toThrow(/cancelled plan cannot be moved/);
    });

    it('lets an operator skip a pending node; the plan goes on past it', async () => {
      const plan = await h.create(
        graphOf({ a: {}, b: {}, c: {} }, [
          ['a', 'c'],
          ['b', 'c'],
        ]),
      );
      await h.ops.skip(plan.id, 'a', { reason: 'not needed' });
      expect(await h.statuses(plan.id)).toEqual({ a: 'skipped', b: 'ready', c: 'pending' });
      await h.runReady(plan.id);
      expect(await h.statuses(plan.id)).toEqual({ a: 'skipped', b: 'done', c: 'done' });
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
    });

    it('retries a failed node: a failed plan resumes, its attempts start afresh, and it runs to the end', async () => {
      const plan = await h.create(graphOf({ a: {}, b: {} }, [['a', 'b']]));
      await h.finish(await h.claim(plan.id, 'a'), { kind: 'failed', error: 'broken', retryable: false });
      expect(await h.store.plans.get(plan.id)).toMatchObject({ status: 'failed', error: 'node "a" failed: broken' });
      expect(await h.ops.retry(plan.id, 'a', { by: 'ops' })).toMatchObject({ status: 'ready', attempts: 0, error: undefined });
      expect((await h.store.plans.get(plan.id)).status).toBe('running');
      await h.runReady(plan.id);
      expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'done' });
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
    });

    it('pauses: ready nodes are not claimed, a running one finishes; resume goes on where it stopped', async () => {
      const plan = await h.create(graphOf({ a: {}, b: {}, c: {} }, [['a', 'c']]));
      const a = await h.claim(plan.id, 'a');
      expect((await h.ops.pause(plan.id, { by: 'ops' })).status).toBe('paused');
      expect((await h.store.queue.claim({ owner: 'w', limit: 100, leaseMs: 1000 })).filter((c) => c.planId === plan.id)).toEqual([]);
      expect((await h.finish(a, { kind: 'done', output: 'A' })).results[0]).toEqual({ status: 'done' });
      expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'ready', c: 'pending' });
      expect((await h.ops.resume(plan.id)).status).toBe('running');
      expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'ready', c: 'ready' });
      await h.runReady(plan.id);
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
      const moves = (await h.store.events.list(plan.id)).filter((e) => e.nodeId === undefined && e.kind === 'status').map((e) => [e.driver, e.from, e.to]);
      expect(moves).toEqual([
        ['operator', '', 'draft'],
        ['engine', 'draft', 'running'],
        ['operator', 'running', 'paused'],
        ['operator', 'paused', 'running'],
        ['engine', 'running', 'completed'],
      ]);
    });

    it('completes at once a plan that has nothing to run', async () => {
      const plan = await h.create(graphOf({ a: { status: 'done' } }));
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
    });

    it('stores and reads back text holding NUL characters faithfully', async () => {
      const plan = await h.create(independent(1));
      const output = 'before\u0000after \u0001dotplan-json:"not json"';
      await h.finish(await h.claim(plan.id, 'n0'), { kind: 'done', output });
      expect((await h.store.plans.node(plan.id, 'n0')).output).toBe(output);
      const other = await h.create(independent(1));
      await h.finish(await h.claim(other.id, 'n0'), { kind: 'failed', error: 'bad\u0000byte', retryable: false });
      expect((await h.store.plans.node(other.id, 'n0')).error).toBe('bad\u0000byte');
      expect((await h.store.events.list(other.id)).some((e) => e.reason === 'bad\u0000byte')).toBe(true);
      // A plan whose DOT holds NUL in values (validate accepts it) is stored and shown back as written.
      const dot = 'digraph nul { label="title\u0000x" a [type=function status=pending toolCode=echo label="x\u0000y" toolInput="in\u0000put"] }';
      const created = await h.ops.create({ dot, source: 'nul.dot' });
      expect(created.title).toBe('title\u0000x');
      expect((await h.store.plans.node(created.id, 'a')).attributes).toMatchObject({ label: 'x\u0000y', toolInput: 'in\u0000put' });
      expect((await h.store.plans.revision(created.id)).dot).toContain('in\u0000put');
      expect(await h.ops.show(created.id)).toContain('x\u0000y');
    });

    it('reads each plan, node, edge and revision as the generated Prisma client reads the same rows, and lists each plan as reading it alone', async () => {
      const answered = await h.create(independent(1), { title: 'with an answer' });
      const rerun = await h.create(independent(1), { title: 'run again' });
      // A node under a lease, and a plan at its second revision (a label changed), with an edge that has a condition.
      const leased = await h.create(graphOf({ a: { toolCode: 'echo' }, b: { toolCode: 'echo' } }, [['a', 'b']]), { title: 'leased' });
      await h.claim(leased.id, 'a', 'w-reads', 60_000);
      const edited = await h.ops.create({
        dot: 'digraph e { a [type=confirm question="go?"] b [type=function toolCode=echo] a -> b [when="yes"] }',
        source: 'e.dot',
      });
      const report = await h.ops.apply(
        edited.id,
        'digraph e { a [type=confirm question="go?"] b [type=function toolCode=echo label="second"] a -> b [when="yes"] }',
        { by: 'ada' },
      );
      expect(report.revision, JSON.stringify(report)).toBe(2);
      const { connect, resolveDatabase } = await import('../../src/store/connect.js');
      const { toEdgeRecord, toNodeRecord, toPlanRecord, toRevisionRecord } = await import('../../src/store/rows.js');
      const connection = await connect(resolveDatabase(h.store.url));
      try {
        // Fields written by other paths than create: the final answer, the tokens, an error, the plan rerun.
        await connection.db.run('UPDATE plans SET result = ?, tokens_used = ?, error = ? WHERE id = ?', ['the answer', 42, 'it broke', answered.id]);
        await connection.db.run('UPDATE plans SET rerun_of = ? WHERE id = ?', [answered.id, rerun.id]);
        const listed = await h.store.plans.list();
        expect(listed.map((p) => p.id)).toEqual(expect.arrayContaining([answered.id, rerun.id, leased.id, edited.id]));
        expect(listed.find((p) => p.id === answered.id)).toMatchObject({ result: 'the answer', tokensUsed: 42, error: 'it broke' });
        expect(listed.find((p) => p.id === rerun.id)).toMatchObject({ rerunOf: answered.id });
        expect((await h.store.plans.node(leased.id, 'a')).leaseOwner).toBe('w-reads');
        expect((await h.store.plans.revision(edited.id)).number).toBe(2);
        // The store reads in SQL; the client generated from the schema is the reference, mapped by the same functions.
        const prisma = await connection.prisma();
        for (const plan of listed) {
          const id = plan.id;
          expect(plan).toEqual(await h.store.plans.get(id));
          expect(plan).toEqual(toPlanRecord((await prisma.plan.findUnique({ where: { id } }))!));
          const nodes = (await prisma.node.findMany({ where: { planId: id }, orderBy: { id: 'asc' } })).map(toNodeRecord);
          expect(await h.store.plans.nodes(id)).toEqual(nodes);
          for (const node of nodes) expect(await h.store.plans.node(id, node.id)).toEqual(node);
          expect(await h.store.plans.edges(id)).toEqual((await prisma.edge.findMany({ where: { planId: id }, orderBy: { id: 'asc' } })).map(toEdgeRecord));
          const revisions = (await prisma.revision.findMany({ where: { planId: id }, orderBy: { number: 'asc' } })).map(toRevisionRecord);
          expect(await h.store.plans.revisions(id)).toEqual(revisions);
          expect(await h.store.plans.revision(id)).toEqual(revisions.at(-1));
          expect(await h.store.plans.revision(id, 1)).toEqual(revisions[0]);
        }
        for (const status of ['running', 'awaiting_review'] as const) {
          const some = await h.store.plans.list({ status });
          expect(some.map((p) => p.id)).toEqual(listed.filter((p) => p.status === status).map((p) => p.id));
        }
      } finally {
        await (await connection.prisma()).$disconnect();
        await connection.db.close();
      }
    });

    it('applies migrations once: opening again and migrating again change nothing', async () => {
      const again = await openStore({ url: h.store.url });
      try {
        expect((await again.plans.list()).length).toBeGreaterThan(0);
      } finally {
        await again.close();
      }
      const { connect, resolveDatabase } = await import('../../src/store/connect.js');
      const connection = await connect(resolveDatabase(h.store.url));
      try {
        expect(await migrate(connection.db)).toEqual([]);
        const rows = await connection.db.all<{ name: string }>('SELECT name FROM _dotplan_migrations ORDER BY name');
        expect(rows.map((r) => r.name)).toEqual(readdirSync(join(DEFAULT_MIGRATIONS_DIR, h.store.backend === 'sqlite' ? 'sqlite' : 'postgresql')).sort());
      } finally {
        await connection.db.close();
      }
    });
  });
}
