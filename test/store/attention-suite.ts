/**
 * The store specification for what waits for a person (issue 13): one "since" per wait, written
 * with the move into waiting and kept through edits; a wait entered again starts afresh; timeouts
 * come in due order; a reflection plan under review waits for its reviewer once its draft exists.
 * Run against every backend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDot } from '../../src/dot/index.js';
import * as engine from '../../src/engine/index.js';
import type { DueNotice } from '../../src/store/index.js';
import { NO_TIMEOUT } from '../../src/store/attention-queue.js';
import type { TestBackend } from '../support/db.js';
import { graphOf } from './fixtures.js';
import { openHarness, type Harness } from './harness.js';

export function attentionSuite(backend: TestBackend): void {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(backend);
  });
  afterAll(async () => {
    await h?.close();
  });

  const mine = (planId: string, waits: DueNotice[]) => waits.filter((w) => w.planId === planId);

  /** A plan with confirm nodes `ids`, each asked (awaiting_input). */
  async function asking(ids: string[], attributes: Record<string, Record<string, string>> = {}): Promise<string> {
    const graph = graphOf(Object.fromEntries(ids.map((id) => [id, { type: 'confirm', question: `${id}?`, ...attributes[id] }])), [], { mode: 'workflow' });
    const plan = await h.create(graph, { dot: writeDot(graph) }); // its text as revision 1, for the edit below
    for (const id of ids) await h.finish(await h.claim(plan.id, id), { kind: 'asked' });
    return plan.id;
  }

  describe(`what waits for a person on ${backend}`, () => {
    it('counts a wait from its move into waiting, through edits; a wait entered again starts afresh', async () => {
      const planId = await asking(['ask']);
      const asked = (await h.store.events.list(planId)).find((e) => e.to === 'awaiting_input')!;
      const [wait] = mine(planId, await h.store.attention.due(100));
      expect(wait).toMatchObject({ kind: 'question', nodeId: 'ask', remindAt: null, timeoutAt: null });
      expect(Math.abs(wait!.since.getTime() - asked.at.getTime())).toBeLessThan(100);
      expect(await h.store.attention.claim(wait!, Date.now() + 60_000)).toBe(true);
      expect(mine(planId, await h.store.attention.due(100))).toEqual([]); // announced: not due again before its reminder

      // A display attribute edited while it waits: the node row changes, its wait does not.
      const shown = await h.ops.show(planId);
      expect((await h.ops.apply(planId, shown.replace('question="ask?"', 'label="Ask (edited)", question="ask?"'))).applied).toBe(true);
      const [inbox] = await h.ops.inbox({ planId });
      expect(inbox!.since.getTime()).toBe(wait!.since.getTime());

      // Timed out with no default (failed), retried by an operator, asked again: a new wait, due its first notice.
      await h.store.plans.change(planId, { nodes: ['ask'] }, (snapshot) => engine.answerTimedOut(snapshot, 'ask', 'no answer within answerTimeout=1s'));
      expect((await h.store.plans.node(planId, 'ask')).status).toBe('failed');
      expect(mine(planId, await h.store.attention.due(100))).toEqual([]);
      await h.ops.retry(planId, 'ask');
      await h.finish(await h.claim(planId, 'ask'), { kind: 'asked' });
      const [again] = mine(planId, await h.store.attention.due(100));
      expect(again).toMatchObject({ nodeId: 'ask', remindAt: null, timeoutAt: null });
      expect(again!.since.getTime()).toBeGreaterThan(wait!.since.getTime());
    });

    it('gives the timeouts that have come in due order, whichever waits were read first', async () => {
      const planId = await asking(['a', 'b', 'c']);
      const waits = mine(planId, await h.store.attention.unscheduled(100));
      expect(waits.map((w) => w.nodeId).sort()).toEqual(['a', 'b', 'c']);
      const at = (id: string) => waits.find((w) => w.nodeId === id)!;
      const now = await h.store.attention.now();
      await h.store.attention.schedule(at('a'), now - 1_000);
      await h.store.attention.schedule(at('b'), undefined); // never
      await h.store.attention.schedule(at('c'), now - 5_000);
      expect(mine(planId, await h.store.attention.unscheduled(100))).toEqual([]);
      expect(mine(planId, await h.store.attention.timedOut(100)).map((w) => [w.nodeId, w.timeoutAt])).toEqual([
        ['c', now - 5_000],
        ['a', now - 1_000],
      ]);
      const b = (await h.store.attention.due(1_000)).find((w) => w.planId === planId && w.nodeId === 'b');
      expect(b?.timeoutAt).toBe(NO_TIMEOUT);
      // Another worker scheduling the same wait again changes nothing.
      await h.store.attention.schedule(at('a'), now + 60_000);
      expect(mine(planId, await h.store.attention.timedOut(100)).map((w) => w.nodeId)).toEqual(['c', 'a']);
    });

    it("waits for a reflection plan's reviewer once the LLM's draft exists, counted from then", async () => {
      const plan = await h.create(graphOf({}, [], { mode: 'reflection', review: 'required', goal: 'g' }));
      expect((await h.store.plans.get(plan.id)).status).toBe('awaiting_review');
      const reviews = async () => (await h.store.attention.due(1_000)).filter((w) => w.planId === plan.id);
      expect(await reviews()).toEqual([]); // the LLM has not written it yet
      expect(await h.ops.inbox({ planId: plan.id })).toEqual([]);
      const work = (await h.store.llm.claim('w1', 30_000))!;
      expect(work.planId).toBe(plan.id);
      const drafted = await h.store.attention.now();
      await h.store.llm.done(work);
      const [review] = await reviews();
      expect(review).toMatchObject({ kind: 'review', remindAt: null });
      expect(review!.since.getTime()).toBeGreaterThanOrEqual(drafted);
    });
  });
}
