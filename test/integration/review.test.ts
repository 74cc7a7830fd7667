/**
 * People in the loop (issue 9, seed 003): a plan under review runs nothing until a person approves
 * it; a rejected one never runs; a reviewer's DOT becomes a revision and the plan waits again;
 * questions with options refuse other answers, and `when` branches see the chosen one; `inbox`
 * lists what waits for a person across plans, oldest first. Real worker processes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeReply } from '../../src/llm/reply.js';
import { startScriptedServer } from '../../src/llm/scripted-server.js';
import { startReceiver } from '../notify/receivers.js';
import { runDotplan } from '../support/cli.js';
import { openWorkspace, statuses, workflow, type Workspace } from './workspace.js';

const twoSteps = workflow('reviewed', {
  nodes: ['a [type=function toolCode=echo toolInput="A"]', 'b [type=function toolCode=echo toolInput="B"]'],
  edges: ['a -> b'],
});

describe('plan review and questions', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  async function createReviewed(): Promise<string> {
    const file = ws.write(`reviewed-${Math.random().toString(36).slice(2, 8)}.dot`, twoSteps);
    return (JSON.parse(await ws.ok(['plan', 'create', '--dot', file, '--review', '--json'])) as { id: string }).id;
  }

  it('runs nothing before approval and everything after; a rejected plan never runs; every decision names who and why', async () => {
    const approved = await createReviewed();
    const rejected = await createReviewed();
    expect(await statuses(ws, approved)).toEqual({ plan: 'awaiting_review', a: 'pending', b: 'pending' });
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0); // nothing to claim: it stops at once
    expect(await statuses(ws, approved)).toEqual({ plan: 'awaiting_review', a: 'pending', b: 'pending' });

    expect(await ws.ok(['plan', 'approve', approved, '--by', 'rita', '--reason', 'looks right'])).toMatch(/approved: running/);
    const refusal = await ws.dotplan(['plan', 'reject', rejected]);
    expect(refusal.code).toBe(2); // --reason is required
    await ws.ok(['plan', 'reject', rejected, '--by', 'rita', '--reason', 'wrong inputs']);
    expect((await ws.dotplan(['plan', 'approve', rejected])).stderr).toMatch(/is rejected, not awaiting_review/);

    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    expect(await statuses(ws, approved)).toEqual({ plan: 'completed', a: 'done', b: 'done' });
    expect(await statuses(ws, rejected)).toEqual({ plan: 'rejected', a: 'pending', b: 'pending' });
    const review = (await ws.store.events.list(approved)).find((e) => e.kind === 'review');
    expect(review).toMatchObject({ driver: 'person', actor: 'rita', reason: 'looks right', detail: { decision: 'approved' } });
    expect((await ws.store.events.list(rejected)).find((e) => e.kind === 'review')).toMatchObject({ actor: 'rita', detail: { decision: 'rejected' } });
  });

  it("sends a reviewer's suggestion on a reflection plan to the LLM, whose new plan waits for review again", async () => {
    const look = 'look [type="function", toolCode="echo", toolInput="ACME", status="ready"];';
    const filter = 'europe [type="function", toolCode="echo", toolInput="Europe: {{nodes.look.output}}", status="pending"]; look -> europe;';
    const server = await startScriptedServer({
      script: {
        replies: [
          { content: writeReply({ updateLog: 'Look it up.', dot: `digraph G {\n  ${look}\n}` }) },
          // A ready node is not the LLM's to change (SPEC §9): it adds a step after it.
          { match: 'only European', content: writeReply({ id: 'x', updateLog: 'Europe only, as asked.', dot: `digraph G {\n  ${look}\n  ${filter}\n}` }) },
        ],
      },
    });
    try {
      const env = { ...ws.env, OPENAI_BASE_URL: server.url, OPENAI_MODEL: 'scripted-model' };
      const cli = async (args: string[]) => {
        const run = await runDotplan(args, { cwd: ws.dir, env });
        expect(run.code, `dotplan ${args.join(' ')}: ${run.stderr}`).toBe(0);
        return run.stdout;
      };
      const { id } = JSON.parse(await cli(['plan', 'create', '--goal', 'Where does ACME sell?', '--review', '--json'])) as { id: string };
      await cli(['worker', '--until-idle', '--quiet']); // the LLM's first plan, for the reviewer to see
      expect((await ws.store.plans.node(id, 'look')).attributes.toolInput).toBe('ACME');

      expect(await cli(['plan', 'modify', id, '--suggestion', 'Count only European sales', '--by', 'rita'])).toMatch(
        /the suggestion goes to the LLM; the plan waits for review again/,
      );
      await cli(['worker', '--until-idle', '--quiet']);
      const asked = JSON.stringify(server.requests.at(-1)?.body);
      expect(asked).toContain('Count only European sales'); // the model was shown the suggestion
      expect(await statuses(ws, id)).toEqual({ plan: 'awaiting_review', look: 'ready', europe: 'pending' }); // nothing ran: it waits for review again
      expect(server.remaining()).toBe(0);
      expect((await ws.store.plans.revisions(id)).map((r) => r.author)).toEqual(['person', 'llm', 'llm']);
      expect((await ws.store.events.list(id)).find((e) => e.kind === 'review')).toMatchObject({
        actor: 'rita',
        detail: { decision: 'modify', suggestion: 'Count only European sales' },
      });
    } finally {
      await server.close();
    }
  });

  it("keeps a reviewer's suggestion due while the endpoint fails and applies it once it recovers; fails the plan after maxRewriteAttempts", async () => {
    const look = 'look [type="function", toolCode="echo", toolInput="ACME", status="ready"];';
    const europe = 'europe [type="function", toolCode="echo", toolInput="Europe: {{nodes.look.output}}", status="pending"]; look -> europe;';
    const server = await startScriptedServer({
      script: {
        replies: [
          { content: writeReply({ updateLog: 'Look it up.', dot: `digraph G {\n  ${look}\n}` }) },
          // The endpoint is down for two calls, then answers the suggestion ...
          { status: 503, content: 'overloaded' },
          { status: 503, content: 'overloaded' },
          { match: 'only European', content: writeReply({ id: 'x', updateLog: 'Europe only, as asked.', dot: `digraph G {\n  ${look}\n  ${europe}\n}` }) },
          // ... and then stays down.
          { status: 503, content: 'overloaded', repeat: true },
        ],
      },
    });
    try {
      // One call per attempt (no client retries), so that each failure counts as one of maxRewriteAttempts (3).
      const env = { ...ws.env, OPENAI_BASE_URL: server.url, OPENAI_MODEL: 'scripted-model', OPENAI_MAX_RETRIES: '0' };
      const cli = async (args: string[]) => {
        const run = await runDotplan(args, { cwd: ws.dir, env, timeoutMs: 30_000 });
        expect(run.code, `dotplan ${args.join(' ')}: ${run.stderr}`).toBe(0);
        return run.stdout;
      };
      const { id } = JSON.parse(await cli(['plan', 'create', '--goal', 'Where does ACME sell?', '--review', '--json'])) as { id: string };
      await cli(['worker', '--until-idle', '--quiet']);
      await cli(['plan', 'modify', id, '--suggestion', 'Count only European sales', '--by', 'rita']);
      await cli(['worker', '--until-idle', '--quiet']);
      expect(await statuses(ws, id)).toEqual({ plan: 'awaiting_review', look: 'ready', europe: 'pending' }); // applied after two failures
      expect((await ws.store.llm.calls(id)).map((c) => `${c.purpose}:${c.outcome}`)).toEqual([
        'plan:applied',
        'rewrite:error',
        'rewrite:error',
        'rewrite:applied',
      ]);

      await cli(['plan', 'modify', id, '--suggestion', 'Add Asia too', '--by', 'rita']);
      await cli(['worker', '--until-idle', '--quiet']);
      const plan = await ws.store.plans.get(id);
      expect(plan.status).toBe('failed'); // as a running plan would: the suggestion is not dropped in silence
      expect(plan.error).toMatch(/the LLM endpoint kept failing \(maxRewriteAttempts=3\).*503.*the reviewer's suggestion "Add Asia too" was not acted on/s);
      expect(server.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(7); // 1 + 3 + 3: bounded, not a loop
      expect(await statuses(ws, id)).toEqual({ plan: 'failed', look: 'ready', europe: 'pending' }); // the last good revision intact, nothing ran
    } finally {
      await server.close();
    }
  });

  it('fails a plan under review whose first plan the LLM endpoint cannot write, after maxRewriteAttempts', async () => {
    const server = await startScriptedServer({ script: { replies: [{ status: 500, content: 'overloaded', repeat: true }] } });
    try {
      const env = { ...ws.env, OPENAI_BASE_URL: server.url, OPENAI_MODEL: 'scripted-model', OPENAI_MAX_RETRIES: '0' };
      const created = await runDotplan(['plan', 'create', '--goal', 'Where does ACME sell?', '--review', '--json'], { cwd: ws.dir, env });
      const { id } = JSON.parse(created.stdout) as { id: string };
      const worker = await runDotplan(['worker', '--until-idle', '--quiet'], { cwd: ws.dir, env, timeoutMs: 20_000 });
      expect(worker.code, worker.stderr).toBe(0);
      expect(server.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(3); // reflection.maxRewriteAttempts, not a loop
      expect(await ws.store.plans.get(id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/the LLM endpoint kept failing/) });
      expect((await ws.store.events.list(id)).filter((e) => e.kind === 'notice')).toEqual([]); // no reviewer was asked to review nothing
    } finally {
      await server.close();
    }
  });

  it("announces a reflection plan under review once the LLM's first plan exists, not before", async () => {
    const look = 'look [type="function", toolCode="echo", toolInput="ACME", status="ready"];';
    // The model takes a while: a notice sent before its plan exists would come first.
    const server = await startScriptedServer({
      script: { replies: [{ content: writeReply({ updateLog: 'Look it up.', dot: `digraph G {\n  ${look}\n}` }), delayMs: 1_500 }] },
    });
    const hook = await startReceiver();
    try {
      const env = { ...ws.env, OPENAI_BASE_URL: server.url, OPENAI_MODEL: 'scripted-model', DOTPLAN_NOTIFY_WEBHOOK: hook.url };
      const created = await runDotplan(['plan', 'create', '--goal', 'Where does ACME sell?', '--review', '--json'], { cwd: ws.dir, env });
      const { id } = JSON.parse(created.stdout) as { id: string };
      const worker = await runDotplan(['worker', '--until-idle', '--quiet'], { cwd: ws.dir, env });
      expect(worker.code, worker.stderr).toBe(0);
      expect(hook.received.map((r) => r.json)).toEqual([expect.objectContaining({ kind: 'review', planId: id, reminder: 0 })]);
      const events = await ws.store.events.list(id);
      const draft = events.find((e) => e.kind === 'revision' && e.driver === 'llm')!;
      const notice = events.find((e) => e.kind === 'notice' && e.detail?.channel === 'webhook')!;
      expect(notice.id).toBeGreaterThan(draft.id);
      // The wait for the reviewer counts from the draft: what the notice and the inbox say.
      expect(Date.parse(hook.received[0]!.json.since as string)).toBeGreaterThanOrEqual(draft.at.getTime());
    } finally {
      await hook.close();
      await server.close();
    }
  });

  it("takes a reviewer's DOT as a revision by the person and keeps the plan waiting for review", async () => {
    const id = await createReviewed();
    const shown = await ws.ok(['plan', 'show', id, '--format', 'dot']);
    const modified = ws.write('modified.dot', shown.replace('toolInput="B"', 'toolInput="B, reviewed"'));
    expect(await ws.ok(['plan', 'modify', id, '--dot', modified, '--by', 'rita'])).toMatch(/revision 2 applied[\s\S]*waits for review again/);
    expect(await statuses(ws, id)).toEqual({ plan: 'awaiting_review', a: 'pending', b: 'pending' });
    expect((await ws.store.plans.node(id, 'b')).attributes.toolInput).toBe('B, reviewed');
    expect((await ws.store.plans.revisions(id)).map((r) => r.author)).toEqual(['person', 'person']);
    // --review is part of the plan's text, so the revision made from `plan show` keeps it.
    expect(shown).toMatch(/review="?required"?/);
    expect((await ws.store.plans.get(id)).attributes.review).toBe('required');
    const suggestion = await ws.dotplan(['plan', 'modify', id, '--suggestion', 'do less']);
    expect(suggestion.code).toBe(1);
    expect(suggestion.stderr).toMatch(/--suggestion has no one to act on it: plan \S+ is a workflow plan, which no LLM rewrites/);
  });

  it('refuses an answer outside the options with the list, takes one of them, and lists waiting questions and reviews oldest first', async () => {
    const asks = await ws.createPlan(
      workflow('asks', {
        nodes: [
          'ask [type=confirm question="Ship it?" options="approve,reject,later"]',
          'ship [type=function toolCode=echo toolInput="shipped"]',
          'hold [type=function toolCode=echo toolInput="held"]',
        ],
        edges: ['ask -> ship [when="approve"]', 'ask -> hold [when="reject|later"]'],
      }),
    );
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    const review = await createReviewed();

    const inbox = JSON.parse(await ws.ok(['inbox', '--json'])) as Array<{
      kind: string;
      planId: string;
      nodeId?: string;
      options?: string[];
      command: string;
      waitedMs: number;
    }>;
    expect(inbox.map((e) => [e.kind, e.planId, e.nodeId ?? null])).toEqual([
      ['question', asks, 'ask'],
      ['review', review, null],
    ]);
    expect(inbox[0]).toMatchObject({ options: ['approve', 'reject', 'later'], command: `dotplan answer ${asks} ask approve` });
    expect(inbox[1]!.command).toBe(`dotplan plan approve ${review}`);
    expect(inbox[0]!.waitedMs).toBeGreaterThanOrEqual(inbox[1]!.waitedMs);

    const wrong = await ws.dotplan(['answer', asks, 'ask', 'maybe']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('takes one of "approve", "reject", "later"; "maybe" is not among them');
    await ws.ok(['answer', asks, 'ask', 'Approve']);
    expect((await ws.store.plans.node(asks, 'ask')).answer).toBe('approve'); // written as the option is
    await ws.ok(['answer', asks, 'ask', 'APPROVE']); // the same choice again, spelled differently: accepted, nothing changes
    expect((await ws.dotplan(['answer', asks, 'ask', 'later'])).stderr).toContain('was already answered "approve"');
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    expect(await statuses(ws, asks)).toEqual({ plan: 'completed', ask: 'done', ship: 'done', hold: 'skipped' });
    expect((JSON.parse(await ws.ok(['inbox', '--json'])) as unknown[]).length).toBe(1); // only the review is left
  });
});
