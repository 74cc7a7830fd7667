/**
 * Issue 14, rights and edges: limits and governance belong to the people who run a plan, not to the
 * model, and an edge means "waits for" whoever writes the status. Through the real `openai` client
 * against the scripted server and a real worker (in process), on the suite's backend:
 *
 * 1. a reply that lifts `maxRewriteAttempts` is refused, naming it; the configured limit holds;
 * 2. a reply that lifts `maxTokens` is refused, naming it; the budget holds;
 * 3. a confirm node the model adds with `default` and `answerTimeout` is refused: nobody answers for
 *    the person, and the payment behind it does not run;
 * 4. a node marked ready while a parent of it is pending is refused, naming the parent — for the
 *    LLM, an operator's edit, a reviewer's modification and `node retry` alike.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeReply } from '../../src/llm/reply.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import { startScriptedServer, type ScriptedServer } from '../../src/llm/scripted-server.js';
import { waitUntil } from '../support/wait.js';
import { openWorkspace, type Workspace } from '../integration/workspace.js';

const fn = (id: string, status: string, extra = '') => `  ${id} [type="function", toolCode="echo", toolInput="${id}", status="${status}"${extra}];`;
const digraph = (...lines: string[]) => `digraph G {\n${lines.join('\n')}\n}`;

describe('a model cannot lift its limits, answer for a person or run a node early (issue 14)', () => {
  let ws: Workspace;
  let server: ScriptedServer | undefined;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await ws.cleanup();
  });

  /** A reflection plan for `goal`, served by the scripted `replies` with one call per attempt (no client retries). */
  async function reflection(goal: string, replies: Parameters<typeof startScriptedServer>[0]['script']['replies'], env: Record<string, string> = {}) {
    server = await startScriptedServer({ script: { replies } });
    const run = { env: { OPENAI_BASE_URL: server.url, OPENAI_MODEL: 'scripted-model', OPENAI_MAX_RETRIES: '0', ...env } };
    const { id } = JSON.parse(await ws.ok(['plan', 'create', '--goal', goal, '--json'], run)) as { id: string };
    /** Workers until the plan is `status` (a worker leaves LLM work in backoff to a later one). */
    const until = (status: string) =>
      waitUntil(async () => {
        await ws.ok(['worker', '--until-idle', '--quiet'], run);
        return (await ws.store.plans.get(id)).status === status;
      }, `plan ${id} ${status}`);
    const completions = () => server!.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
    return { id, run, until, completions };
  }

  const callsOf = async (id: string) => (await ws.store.llm.calls(id)).map((c) => `${c.purpose}:${c.outcome}`);
  /** The first call's outcome and the problems recorded with it. */
  const firstCall = async (id: string) => {
    const [first] = await ws.store.llm.calls(id);
    if (!first) throw new Error(`plan ${id}: no call recorded`);
    return { outcome: first.outcome, diagnostics: (first.diagnostics ?? []) as Diagnostic[] };
  };

  it('1. a reply that sets maxRewriteAttempts is refused, naming it; the configured limit fails the plan', async () => {
    const lift = writeReply({ updateLog: 'More attempts for me.', dot: digraph('  maxRewriteAttempts="1000";', fn('a', 'ready')) });
    const plan = await reflection('Run a', [{ content: lift }, { content: 'no markers at all', repeat: true }], { DOTPLAN_MAX_REWRITE_ATTEMPTS: '2' });
    await plan.until('failed');

    const first = await firstCall(plan.id);
    expect(first.diagnostics).toContainEqual(expect.objectContaining({ code: 'NOT_ALLOWED', attribute: 'maxRewriteAttempts' }));
    expect(first.diagnostics.find((d) => d.attribute === 'maxRewriteAttempts')!.message).toMatch(/one of the plan's limits.*llm may not set or change it/);
    expect(await callsOf(plan.id)).toEqual(['plan:refused', 'plan:refused']);
    expect(plan.completions()).toBe(2); // the configured limit, not the model's
    const stored = await ws.store.plans.get(plan.id);
    expect(stored.error).toMatch(/refused 2 times in a row \(maxRewriteAttempts=2\)/);
    expect(stored.attributes.maxRewriteAttempts).toBeUndefined();
    expect((await ws.store.plans.revisions(plan.id)).map((r) => r.author)).toEqual(['person']); // nothing of the model's applied
  });

  it("1. an operator may still change the plan's limits: a hand edit that sets maxRewriteAttempts is applied", async () => {
    server = await startScriptedServer({ script: { replies: [{ content: 'never asked' }] } });
    const { id } = JSON.parse(await ws.ok(['plan', 'create', '--goal', 'Run a', '--json'], { env: { OPENAI_BASE_URL: server.url } })) as { id: string };
    const shown = await ws.ok(['plan', 'show', id, '--format', 'dot']);
    const file = ws.write('edit.dot', shown.replace(/digraph ([^{]*)\{/, 'digraph $1{\n  maxRewriteAttempts="5";\n  maxTokens="1000";'));
    const report = JSON.parse(await ws.ok(['plan', 'apply', id, file, '--json'])) as { applied: boolean };
    expect(report.applied).toBe(true);
    expect((await ws.store.plans.get(id)).attributes).toMatchObject({ maxRewriteAttempts: '5', maxTokens: '1000' });
  });

  it('2. a reply that sets maxTokens is refused, naming it; the budget holds', async () => {
    const usage = { prompt_tokens: 60, completion_tokens: 20 };
    const lift = writeReply({ updateLog: 'A bigger budget.', dot: digraph('  maxTokens="999999999";', fn('a', 'ready')) });
    const plain = writeReply({ updateLog: 'Run a.', dot: digraph(fn('a', 'ready')) });
    const plan = await reflection(
      'Run a',
      [
        { content: lift, usage },
        { content: plain, usage, repeat: true },
      ],
      { DOTPLAN_MAX_TOKENS: '50' },
    );
    await plan.until('failed');

    const first = await firstCall(plan.id);
    expect(first.outcome).toBe('refused');
    expect(first.diagnostics).toContainEqual(expect.objectContaining({ code: 'NOT_ALLOWED', attribute: 'maxTokens' }));
    const stored = await ws.store.plans.get(plan.id);
    expect(stored.error).toMatch(/the plan's token budget is spent \(\d+ of maxTokens=50\)/);
    expect(stored.attributes.maxTokens).toBeUndefined();
    expect(plan.completions()).toBeLessThanOrEqual(2); // the budget ends it: one refused call, at most one more
  });

  it('3. a confirm node the model adds may not answer for the person: default and answerTimeout are refused; nothing runs behind it', async () => {
    const payment = (confirm: string) =>
      writeReply({
        updateLog: 'Ask, then pay.',
        dot: digraph(
          `  approve [type="confirm", question="Pay 1000 EUR to ACME?", options="yes,no"${confirm}, status="ready"];`,
          fn('pay', 'pending'),
          '  approve -> pay [when="yes"];',
        ),
      });
    const plan = await reflection('Pay ACME if approved', [
      { content: payment(', default="yes", answerTimeout="1ms"') },
      { content: payment(''), match: 'NOT_ALLOWED' },
      { content: writeReply({ id: 'x', updateLog: 'Approved: pay.', dot: digraph(fn('pay', 'ready')) }), repeat: true },
    ]);
    await ws.ok(['worker', '--until-idle', '--quiet'], plan.run); // its idle rounds apply answerTimeouts that have passed

    const first = await firstCall(plan.id);
    expect(first.outcome).toBe('refused');
    expect(first.diagnostics.filter((d) => d.code === 'NOT_ALLOWED').map((d) => [d.node, d.attribute])).toEqual([
      ['approve', 'default'],
      ['approve', 'answerTimeout'],
    ]);
    expect(await callsOf(plan.id)).toEqual(['plan:refused', 'plan:applied']);
    const nodes = await ws.nodes(plan.id);
    expect(nodes.get('approve')).toMatchObject({ status: 'awaiting_input' }); // a person is asked, and nobody answers for them
    expect(nodes.get('pay')!.status).toBe('pending');
    const events = await ws.store.events.list(plan.id);
    expect(events.filter((e) => e.kind === 'answer')).toEqual([]);
    expect(events.some((e) => e.nodeId === 'pay' && e.to === 'running')).toBe(false);
    expect((await ws.store.plans.get(plan.id)).status).toBe('running');
  });

  it('4. a reply that marks a node ready while its parent is pending is refused, naming the parent; it runs after it', async () => {
    const plan = await reflection('Run d, then e', [
      { content: writeReply({ updateLog: 'e first.', dot: digraph(fn('d', 'pending'), fn('e', 'ready'), '  d -> e;') }) },
      { content: writeReply({ updateLog: 'd first.', dot: digraph(fn('d', 'ready'), fn('e', 'pending'), '  d -> e;') }), match: 'PARENTS_UNFINISHED' },
      { content: writeReply({ id: 'x', updateLog: 'd is done: e.', dot: digraph(fn('d', 'done'), fn('e', 'ready'), '  d -> e;') }), match: 'Results' },
      { content: writeReply({ id: 'x', updateLog: 'Done.', dot: digraph(fn('d', 'done'), fn('e', 'done'), '  d -> e;') }), match: 'Results' },
      { content: 'd then e ran.' },
    ]);
    await plan.until('completed');

    const first = await firstCall(plan.id);
    expect(first.diagnostics).toEqual([expect.objectContaining({ code: 'PARENTS_UNFINISHED', node: 'e', attribute: 'status' })]);
    expect(first.diagnostics[0]!.message).toBe('node "e" cannot be ready: it waits for "d" (pending), which has not finished');
    const events = await ws.store.events.list(plan.id);
    const at = (node: string, to: string) => events.find((e) => e.nodeId === node && e.kind === 'status' && e.to === to)!.id;
    expect(at('e', 'running')).toBeGreaterThan(at('d', 'done'));
  });

  it('4. an operator, a reviewer and node retry are held to the edges too', async () => {
    // An operator's edit marks e ready while d, its parent, is pending: refused, naming d.
    const id = await ws.createPlan(
      digraph(
        '  mode="workflow";',
        '  ask [type="confirm", question="Go?"];',
        '  d [type="function", toolCode="echo", toolInput="d"];',
        '  e [type="function", toolCode="echo", toolInput="e"];',
        '  ask -> d -> e;',
      ),
    );
    const shown = await ws.ok(['plan', 'show', id, '--format', 'dot']);
    const edit = ws.write('early.dot', shown.replace(/(\n\s*e \[[^\]]*status=")pending"/, '$1ready"'));
    expect(edit).not.toBe(shown);
    const refused = await ws.dotplan(['plan', 'apply', id, edit]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/PARENTS_UNFINISHED: node "e" cannot be ready: it waits for "d" \(pending\)/);
    expect((await ws.nodes(id)).get('e')!.status).toBe('pending');

    // A reviewer's modification likewise.
    const reviewed = await ws.createPlan(digraph('  review="required";', fn('d', 'pending'), fn('e', 'pending'), '  d -> e;'));
    const draft = await ws.ok(['plan', 'show', reviewed, '--format', 'dot']);
    const modified = ws.write('modified.dot', draft.replace(/(\n\s*e \[[^\]]*status=")pending"/, '$1ready"'));
    const modify = await ws.dotplan(['plan', 'modify', reviewed, '--dot', modified, '--by', 'rita']);
    expect(modify.code).toBe(1);
    expect(modify.stderr).toMatch(/PARENTS_UNFINISHED: node "e" cannot be ready: it waits for "d" \(pending\)/);

    // node retry: b failed after c; a (its other parent) is retried; b cannot run again before a has.
    const retried = await ws.createPlan(
      digraph(
        '  onFailure="continue";',
        '  a [type="function", toolCode="fail", toolInput="{}"];',
        '  c [type="function", toolCode="echo", toolInput="c"];',
        '  b [type="function", toolCode="fail", toolInput="{}"];',
        '  a -> b; c -> b;',
      ),
    );
    await ws.ok(['worker', '--until-idle', '--quiet']);
    expect([...(await ws.nodes(retried)).values()].map((n) => `${n.id}:${n.status}`).sort()).toEqual(['a:failed', 'b:failed', 'c:done']);
    await ws.ok(['node', 'retry', retried, 'a']);
    const early = await ws.dotplan(['node', 'retry', retried, 'b']);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/node "b" of plan \S+ cannot be ready yet: 1 node it waits for has not finished/);
    expect((await ws.nodes(retried)).get('b')!.status).toBe('failed');
  });
});
