/**
 * The LLM's work on reflection plans, on the suite's backend: finishing nodes ask for a rewrite;
 * a plan's work is leased to one worker at a time and taken over when the lease runs out; requests
 * that arrive while a rewrite is being served stay due and are served together by the next one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackend } from '../support/db.js';
import { waitUntil } from '../support/wait.js';
import { openHarness, type Harness } from './harness.js';

describe(`LLM work on reflection plans (${testBackend()})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(testBackend());
  });
  afterAll(async () => {
    await h?.close();
  });

  const reflection = `digraph r {
    mode="reflection"
    goal="test"
    a [type=function toolCode=echo toolInput="a" status=ready]
    b [type=function toolCode=echo toolInput="b" status=ready]
  }`;

  it('asks for a plan when started, leases the work to one worker at a time, and coalesces finishes that arrive meanwhile', async () => {
    const plan = await h.ops.create({ dot: reflection, source: 'r.dot' });
    const first = await h.store.llm.claim('w1', 60_000);
    expect(first).toMatchObject({ planId: plan.id, due: 1, attempts: 0 });
    expect(await h.store.llm.claim('w2', 60_000)).toBeUndefined(); // one rewrite of a plan at a time

    // Two nodes finish while the rewrite is served: two more requests, neither served by it.
    await h.finish(await h.claim(plan.id, 'a'), { kind: 'done', output: 'A' });
    await h.finish(await h.claim(plan.id, 'b'), { kind: 'failed', error: 'boom', retryable: false });
    expect(await h.store.llm.due(plan.id)).toBe(3);
    await h.store.llm.done(first!);
    expect(await h.store.llm.due(plan.id)).toBe(2);

    const next = await h.store.llm.claim('w2', 60_000);
    expect(next).toMatchObject({ planId: plan.id, due: 2 }); // both served by one rewrite
    await h.store.llm.done(next!);
    expect(await h.store.llm.claim('w2', 60_000)).toBeUndefined();
    // The engine made nothing ready by itself: in reflection mode that is the LLM's move.
    expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'failed' });
    await h.ops.cancel(plan.id);
  });

  it('gives the work to another worker once the lease runs out; the first one can no longer renew it or take requests off', async () => {
    const plan = await h.ops.create({ dot: reflection, source: 'r.dot' });
    const lost = await h.store.llm.claim('w1', 50);
    expect(lost).toBeDefined();
    const taken = await waitUntil(() => h.store.llm.claim('w2', 60_000), 'the 50 ms lease to run out and another worker to take the work');
    expect(taken).toMatchObject({ planId: plan.id, due: 1 });
    expect(await h.store.llm.renew(lost!, 60_000)).toBe(false);
    await h.store.llm.done(lost!); // too late: changes nothing
    expect(await h.store.llm.due(plan.id)).toBe(1);
    expect(await h.store.llm.failed(taken, 1, 0)).toBe(true);
    expect(await h.store.llm.claim('w3', 60_000)).toMatchObject({ planId: plan.id, attempts: 1 }); // the failure count survives a takeover
    await h.ops.cancel(plan.id);
  });

  it('holds the backoff of a failed exchange for every worker, and stops renewing the work of a cancelled plan', async () => {
    const plan = await h.ops.create({ dot: reflection, source: 'r.dot' });
    const first = await h.store.llm.claim('w1', 60_000);
    expect(await h.store.llm.failed(first!, 1, 60_000)).toBe(true);
    expect(await h.store.llm.claim('w2', 60_000)).toBeUndefined(); // backing off, though no lease holds it
    expect((await h.store.queue.outlook()).nextWakeAt!.getTime()).toBeGreaterThan(Date.now() + 30_000); // workers wake when it ends

    const other = await h.ops.create({ dot: reflection, source: 'r.dot' });
    const served = await h.store.llm.claim('w1', 60_000);
    expect(served).toMatchObject({ planId: other.id });
    expect(await h.store.llm.renew(served!, 60_000)).toBe(true);
    await h.ops.cancel(other.id);
    expect(await h.store.llm.renew(served!, 60_000)).toBe(false); // the call in flight is aborted
    await h.ops.cancel(plan.id);
  });

  it('stores token counts no INTEGER column holds without failing, the total of the plan capped', async () => {
    const plan = await h.ops.create({ dot: reflection, source: 'r.dot' });
    const call = { planId: plan.id, purpose: 'rewrite' as const, model: 'm', prompt: '[]', ms: 1e308, outcome: 'ok' as const };
    await h.store.llm.record({ ...call, promptTokens: 1e308, completionTokens: Number.NaN });
    await h.store.llm.record({ ...call, promptTokens: 2 ** 40, completionTokens: -5 });
    expect((await h.store.llm.calls(plan.id)).map((c) => [c.promptTokens, c.completionTokens])).toEqual([
      [2_147_483_647, 0],
      [2_147_483_647, 0],
    ]);
    expect((await h.store.plans.get(plan.id)).tokensUsed).toBe(2_147_483_647);
    await h.ops.cancel(plan.id);
  });

  it('records every call with its tokens, and adds them to the plan', async () => {
    const plan = await h.ops.create({ dot: reflection, source: 'r.dot' });
    await h.store.llm.record({
      planId: plan.id,
      purpose: 'plan',
      model: 'm',
      prompt: '[]',
      reply: 'x\u0000y',
      promptTokens: 10,
      completionTokens: 5,
      ms: 12,
      outcome: 'applied',
    });
    await h.store.llm.record({
      planId: plan.id,
      nodeId: 'a',
      purpose: 'verify',
      model: 'm',
      prompt: '[]',
      promptTokens: 3,
      completionTokens: 2,
      ms: 4,
      outcome: 'error',
      diagnostics: [{ code: 'LLM_FAILED' }],
    });
    const calls = await h.store.llm.calls(plan.id);
    expect(calls.map((c) => [c.purpose, c.nodeId ?? null, c.reply ?? null, c.outcome, c.diagnostics ?? null])).toEqual([
      ['plan', null, 'x\u0000y', 'applied', null],
      ['verify', 'a', null, 'error', [{ code: 'LLM_FAILED' }]],
    ]);
    expect((await h.store.plans.get(plan.id)).tokensUsed).toBe(20);
    await h.ops.cancel(plan.id);
  });
});
