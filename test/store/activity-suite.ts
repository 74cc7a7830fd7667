/**
 * The store specification for what a plan's row says of its nodes, run against every backend (on
 * PostgreSQL through both the one-statement finish and the locking one): its `updatedAt` moves with
 * every claim, step, command and revision; a plan failed by its nodes records why; a retried node
 * reopens what the engine skipped because it failed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDot, writeDot } from '../../src/dot/index.js';
import type { PlanRecord } from '../../src/store/types.js';
import type { TestBackend } from '../support/db.js';
import { waitUntil } from '../support/cli.js';
import { graphOf } from './fixtures.js';
import { openHarness, type Harness } from './harness.js';

const CONTINUE = `digraph continue {
  mode="workflow"
  onFailure="continue"
  node [type=function status=pending toolCode=echo]
  bad; after; last; other
  bad -> after -> last
}`;

export function activitySuite(backend: TestBackend): void {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(backend);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Waits until the clock has moved past `plan`'s updatedAt, so that a later write shows as later. */
  const after = async (plan: PlanRecord) => {
    await waitUntil(() => Date.now() > plan.updatedAt.getTime() + 1, 'the clock to move on');
    return plan;
  };

  describe(`a plan's row follows its nodes on ${backend}`, () => {
    it('updatedAt moves with each claim, finished attempt, operator command and answer, and is never older than a node', async () => {
      const plan = await h.create(graphOf({ a: {}, q: { type: 'confirm', question: 'ok?' }, b: {} }, [['a', 'q']], { mode: 'workflow' }));
      const seen: string[] = [];
      let last = await after(await h.store.plans.get(plan.id));
      const moved = async (what: string) => {
        const now = await h.store.plans.get(plan.id);
        const newest = Math.max(...(await h.store.plans.nodes(plan.id)).map((n) => n.updatedAt.getTime()));
        if (now.updatedAt > last.updatedAt && now.updatedAt.getTime() >= newest) seen.push(what);
        last = await after(now);
      };

      const a = await h.claim(plan.id, 'a');
      await moved('claim');
      await h.finish(a, { kind: 'done', output: 'A' });
      await moved('finish');
      const q = await h.claim(plan.id, 'q');
      await moved('claim q');
      await h.finish(q, { kind: 'asked' });
      await moved('asked');
      await h.ops.skip(plan.id, 'b', { by: 'ops' });
      await moved('skip');
      await h.ops.answer(plan.id, 'q', 'yes', { by: 'ada' });
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
      await moved('answer');
      expect(seen).toEqual(['claim', 'finish', 'claim q', 'asked', 'skip', 'answer']);
    });

    it('a plan failed by a failing node records its error (onFailure=stop); a retry clears it', async () => {
      const plan = await h.create(graphOf({ bad: {}, after: {} }, [['bad', 'after']], { mode: 'workflow' }));
      await h.finish(await h.claim(plan.id, 'bad'), { kind: 'failed', error: 'disk full', retryable: false });
      expect(await h.store.plans.get(plan.id)).toMatchObject({ status: 'failed', error: 'node "bad" failed: disk full' });
      await h.ops.retry(plan.id, 'bad', { by: 'ops' });
      const resumed = await h.store.plans.get(plan.id);
      expect(resumed.status).toBe('running');
      expect(resumed.error).toBeUndefined();
    });

    it('onFailure=continue: the plan that fails once nothing is left names the first failed node and how many others failed', async () => {
      const plan = await h.create(graphOf({ one: {}, two: {}, three: {}, fine: {} }, [], { mode: 'workflow', onFailure: 'continue' }));
      for (const [id, error] of [
        ['two', 'first'],
        ['one', 'second'],
        ['three', 'third'],
      ] as const) {
        await h.finish(await h.claim(plan.id, id), { kind: 'failed', error, retryable: false });
        await waitUntil(async () => (await h.store.plans.node(plan.id, id)).finishedAt!.getTime() < Date.now() - 1, 'the clock to move on');
      }
      expect((await h.store.plans.get(plan.id)).status).toBe('running');
      await h.runReady(plan.id);
      const failed = await h.store.plans.get(plan.id);
      expect(failed).toMatchObject({ status: 'failed', error: 'node "two" failed: first (2 more nodes failed: "one" and "three")' });
      const last = (await h.store.events.list(plan.id)).at(-1)!;
      expect(last).toMatchObject({ from: 'running', to: 'failed', reason: failed.error });
    });

    /** bad -> after -> last, and other, under onFailure=continue: bad failed, the plan failed. */
    async function failedContinue(): Promise<string> {
      const plan = await h.ops.create({ dot: CONTINUE, source: 'continue.dot' });
      await h.finish(await h.claim(plan.id, 'bad'), { kind: 'failed', error: 'nope', retryable: false });
      await h.runReady(plan.id);
      expect(await h.statuses(plan.id)).toEqual({ bad: 'failed', after: 'skipped', last: 'skipped', other: 'done' });
      expect((await h.store.plans.get(plan.id)).status).toBe('failed');
      return plan.id;
    }

    it('onFailure=continue: a retried node reopens what its failure skipped, and the plan runs them to the end', async () => {
      const plan = { id: await failedContinue() };
      await h.ops.retry(plan.id, 'bad', { by: 'ops' });
      expect(await h.statuses(plan.id)).toEqual({ bad: 'ready', after: 'pending', last: 'pending', other: 'done' });
      await h.runReady(plan.id);
      expect(await h.statuses(plan.id)).toEqual({ bad: 'done', after: 'done', last: 'done', other: 'done' });
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
      const reopened = (await h.store.events.list(plan.id)).filter((e) => e.from === 'skipped' && e.to === 'pending');
      expect(reopened.map((e) => [e.nodeId, e.driver, e.reason])).toEqual([
        ['after', 'engine', 'reopened: its parent "bad" is ready again'],
        ['last', 'engine', 'reopened: its parent "after" is pending again'],
      ]);
    });

    it('plan apply with status="ready" on the failed node reopens the same nodes as node retry', async () => {
      const id = await failedContinue();
      const shown = readDot(await h.ops.show(id));
      const edited = { ...shown, nodes: shown.nodes.map((n) => (n.id === 'bad' ? { ...n, attributes: { ...n.attributes, status: 'ready' } } : n)) };
      expect(await h.ops.apply(id, writeDot(edited), { by: 'ops' })).toMatchObject({ applied: true });
      expect(await h.statuses(id)).toEqual({ bad: 'ready', after: 'pending', last: 'pending', other: 'done' });
      expect((await h.store.plans.get(id)).status).toBe('running');
      await h.runReady(id);
      expect((await h.store.plans.get(id)).status).toBe('completed');
    });
  });
}
