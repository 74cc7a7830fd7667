/**
 * Issue 14, "every failed model exchange counts, is recorded and backs off" (cases 1, 5, 7, 15a,
 * 15c): whatever goes wrong in an exchange with the model is one attempt — recorded in `plan calls`,
 * counted against maxRewriteAttempts, followed by a backoff before the next call for the plan — and
 * cancel or pause stops the calls. Real worker, real `openai` client, the scripted server; every
 * bound is counted in requests and calls.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeReply } from '../../src/llm/reply.js';
import { MAX_CALL_TOKENS } from '../../src/llm/call-record.js';
import type { ScriptedServer } from '../../src/llm/scripted-server.js';
import { testBackend } from '../support/db.js';
import { waitUntil } from '../support/wait.js';
import { MAX_REWRITE_ATTEMPTS, REPLIES, RETRY_DELAY_MS, completions, createGoal, openRig, runUntilIdle, serve, type Rig } from './llm-failures-setup.js';

/** The gaps between consecutive requests, in ms. */
function gaps(server: ScriptedServer): number[] {
  const times = completions(server).map((r) => Date.parse(r.at));
  return times.slice(1).map((t, i) => t - times[i]!);
}

describe(`every failed model exchange counts, is recorded and backs off (${testBackend()})`, () => {
  let rig: Rig;
  let server: ScriptedServer | undefined;
  beforeEach(async () => {
    rig = await openRig();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rig.close();
  });

  it('case 1: a model that lifts its rewrite limit and then sends garbage is backed off exponentially, stored call by call, and stopped by cancel', async () => {
    const lifted = `digraph G {\n  maxRewriteAttempts="1000";\n  a [type="function", toolCode="echo", toolInput="x", status="ready"];\n}`;
    server = await serve({
      replies: [
        { content: writeReply({ updateLog: 'Plan.', dot: lifted }) },
        { ...REPLIES.garbage, content: `${REPLIES.garbage.content} ${'x'.repeat(4_000)}`, repeat: true },
      ],
    });
    const planId = await createGoal(rig.dotplan);
    const worker = rig.dotplan.worker({ llm: { baseURL: server.url } }).start();
    try {
      // Until the plan fails (a limit the model could not lift) or five garbage replies came.
      await waitUntil(async () => completions(server!).length >= 6 || (await rig.dotplan.plan(planId)).status === 'failed', 'garbage replies', 30_000);
      const cancelledAt = completions(server).length;
      if ((await rig.dotplan.plan(planId)).status === 'running') await rig.dotplan.cancel(planId);
      await waitUntil(async () => !(await rig.store.llm.state(planId)).servedBy, 'the slot to give the work back');
      // Cancelled: no call starts afterwards (at most the one already on its way).
      const after = completions(server).length;
      expect(after - cancelledAt).toBeLessThanOrEqual(1);

      // Each failure in a row waits at least half its exponential backoff (equal jitter) before the next call.
      const waits = gaps(server).slice(1); // the first gap is the step's run, not a backoff
      expect(waits.length).toBeGreaterThanOrEqual(1);
      waits.forEach((gap, i) => expect(gap, `wait after failure ${i + 1}`).toBeGreaterThanOrEqual((RETRY_DELAY_MS * 2 ** i) / 2 - 5));

      // Every call is recorded with what it cost, and what each one stores does not grow with the conversation.
      const calls = await rig.dotplan.calls(planId);
      expect(calls).toHaveLength(after);
      const refused = calls.filter((c) => c.outcome === 'refused');
      const sizes = refused.map((c) => c.prompt.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(2 * (REPLIES.garbage.content.length + 4_000) + 2_000);
      for (const call of refused.slice(2)) expect(call.prompt.split('x'.repeat(4_000)).length - 1).toBeLessThanOrEqual(1);
    } finally {
      await worker.stop();
    }
    expect(completions(server).length).toBeLessThanOrEqual(7);
  });

  it('case 5: a reply nested 2,300 deep is one counted, recorded attempt; the plan fails after maxRewriteAttempts with the reason', async () => {
    server = await serve({ replies: [{ ...REPLIES.deep, repeat: true }] });
    const planId = await createGoal(rig.dotplan);
    await runUntilIdle(rig.dotplan, server);
    expect(completions(server)).toHaveLength(MAX_REWRITE_ATTEMPTS);
    const calls = await rig.dotplan.calls(planId);
    expect(calls.map((c) => c.outcome)).toEqual(Array(MAX_REWRITE_ATTEMPTS).fill('refused'));
    for (const call of calls) expect(JSON.stringify(call.diagnostics)).not.toMatch(/INTERNAL/);
    const plan = await rig.dotplan.plan(planId);
    expect(plan.status).toBe('failed');
    expect(plan.error).toMatch(new RegExp(`${MAX_REWRITE_ATTEMPTS} times in a row \\(maxRewriteAttempts=${MAX_REWRITE_ATTEMPTS}\\)`));
  });

  it('case 7: a bad usage (1e308, "abc") is stored sanitised and the plan goes on to its answer', async () => {
    server = await serve({
      replies: [
        { ...REPLIES.valid, rawUsage: { prompt_tokens: 1e308, completion_tokens: 7 } },
        { content: 'The answer.', rawUsage: { prompt_tokens: 'abc', completion_tokens: -3.5 } },
      ],
    });
    const planId = await createGoal(rig.dotplan);
    await runUntilIdle(rig.dotplan, server);
    expect(completions(server)).toHaveLength(2);
    const calls = await rig.dotplan.calls(planId);
    expect(calls.map((c) => `${c.purpose}:${c.outcome}`)).toEqual(['plan:applied', 'answer:ok']);
    expect(calls[0]).toMatchObject({ promptTokens: MAX_CALL_TOKENS, completionTokens: 7 });
    // Not a number: estimated from the text (4 characters a token), so the budget still counts the call.
    expect(calls[1]!.promptTokens).toBeGreaterThan(0);
    expect(calls[1]!.promptTokens).toBeLessThan(MAX_CALL_TOKENS);
    expect(calls[1]!.completionTokens).toBe(Math.ceil('The answer.'.length / 4));
    expect((await rig.dotplan.plan(planId)).tokensUsed).toBe(MAX_CALL_TOKENS + 7 + calls[1]!.promptTokens + 3);
    expect(await rig.dotplan.plan(planId)).toMatchObject({ status: 'completed', result: 'The answer.' });
  });

  it('case 15a: a reply that leaves nothing to run and rewrites history is told both problems at once', async () => {
    const first = `digraph G {\n  a [type="function", toolCode="echo", toolInput="x", status="ready"];\n  b [type="function", toolCode="echo", toolInput="y"];\n  a -> b;\n}`;
    const forged = `digraph G {\n  a [type="function", toolCode="echo", toolInput="x", toolOutput="forged"];\n  b [type="function", toolCode="echo", toolInput="y"];\n  a -> b;\n}`;
    server = await serve({
      replies: [{ content: writeReply({ updateLog: 'Plan.', dot: first }) }, { content: writeReply({ id: 'x', updateLog: 'Forge.', dot: forged }) }],
    });
    const planId = await createGoal(rig.dotplan);
    const worker = rig.dotplan.worker({ llm: { baseURL: server.url } }).start();
    try {
      await waitUntil(async () => (await rig.dotplan.calls(planId)).length >= 2, 'the second reply to be judged');
    } finally {
      await worker.stop();
    }
    const codes = ((await rig.dotplan.calls(planId))[1]!.diagnostics as Array<{ code: string }>).map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(['REPLY_NOTHING_TO_RUN', 'NODE_HISTORY']));
  });

  it('cancel and pause abort the call in flight; no call starts for the plan afterwards, and an aborted call is not counted', async () => {
    server = await serve({ replies: [{ ...REPLIES.valid, delayMs: 120_000, repeat: true }] });
    const planId = await createGoal(rig.dotplan);
    const worker = rig.dotplan.worker({ llm: { baseURL: server.url } }).start();
    try {
      await waitUntil(() => completions(server!).length === 1, 'the first call');
      await rig.dotplan.pause(planId);
      await waitUntil(() => completions(server!)[0]!.aborted === true, 'the paused plan’s call to be aborted', 10_000);
      await waitUntil(async () => !(await rig.store.llm.state(planId)).servedBy, 'the work to be given back');
      expect(await rig.dotplan.calls(planId)).toEqual([]); // not a failure: nothing counted

      await rig.dotplan.resume(planId);
      await waitUntil(() => completions(server!).length === 2, 'the call again after resume');
      await rig.dotplan.cancel(planId);
      await waitUntil(() => completions(server!)[1]!.aborted === true, 'the cancelled plan’s call to be aborted', 10_000);
      await waitUntil(async () => !(await rig.store.llm.state(planId)).servedBy, 'the work to be given back');
    } finally {
      await worker.stop();
    }
    // Another worker finds nothing to do for the cancelled plan: it goes idle without calling the model.
    await runUntilIdle(rig.dotplan, server);
    expect(completions(server)).toHaveLength(2);
    expect(await rig.dotplan.calls(planId)).toEqual([]);
  });

  it('case 15c: llmSlots lets one worker serve several plans at once, so one hanging endpoint does not hold every plan', async () => {
    await rig.close();
    rig = await openRig({ worker: { llmSlots: 2 } });
    server = await serve({ replies: [{ ...REPLIES.valid, delayMs: 120_000, repeat: true }] });
    await createGoal(rig.dotplan, 'first');
    await createGoal(rig.dotplan, 'second');
    const worker = rig.dotplan.worker({ llm: { baseURL: server.url } }).start();
    try {
      await waitUntil(() => completions(server!).filter((r) => !r.aborted).length === 2, 'two calls in flight at once', 10_000);
    } finally {
      await worker.stop();
    }
    await waitUntil(() => completions(server!).every((r) => r.aborted), 'both calls to be aborted by the stop');
    expect(completions(server)).toHaveLength(2);
  });

  it('a hanging endpoint costs at most timeoutMs × (maxRetries + 1) per attempt, maxRewriteAttempts attempts, then the plan fails with the reason', async () => {
    await rig.close();
    rig = await openRig({ openai: { timeoutMs: 300, maxRetries: 1 }, reflection: { maxRewriteAttempts: 2 } });
    server = await serve({ replies: [{ ...REPLIES.valid, delayMs: 120_000, repeat: true }] });
    const planId = await createGoal(rig.dotplan);
    await runUntilIdle(rig.dotplan, server);
    expect(completions(server)).toHaveLength(2 * 2); // (maxRetries + 1) × maxRewriteAttempts
    expect((await rig.dotplan.calls(planId)).map((c) => c.outcome)).toEqual(['error', 'error']);
    const plan = await rig.dotplan.plan(planId);
    expect(plan.status).toBe('failed');
    expect(plan.error).toMatch(/kept failing \(maxRewriteAttempts=2\).*did not answer within 300 ms/);
  });

  it('the backoff holds across workers: after a failure no worker calls the model for the plan before it ends', async () => {
    await rig.close();
    rig = await openRig({ reflection: { retryDelay: '1h' } });
    server = await serve({ replies: [REPLIES.error, REPLIES.valid, { content: 'The answer.' }] });
    const planId = await createGoal(rig.dotplan);
    const first = rig.dotplan.worker({ llm: { baseURL: server.url } }).start();
    const second = rig.dotplan.worker({ llm: { baseURL: server.url } }).start();
    try {
      await waitUntil(async () => (await rig.dotplan.calls(planId)).length === 1, 'the failed call to be recorded');
      first.wake();
      second.wake();
      await waitUntil(async () => (await rig.store.queue.outlook()).nextWakeAt !== undefined, 'the backoff to be known');
      const outlook = await rig.store.queue.outlook();
      // 1 h, capped at 10 minutes, equal jitter: 5 to 10 minutes.
      expect(outlook.nextWakeAt!.getTime() - Date.now()).toBeGreaterThan(4 * 60_000);
      expect(await rig.store.llm.claim('third', 60_000)).toBeUndefined();
    } finally {
      await first.stop();
      await second.stop();
    }
    expect(completions(server)).toHaveLength(1);
  });
});
