/**
 * Reflection mode end to end (issue 8): a goal is planned by the LLM, run by a real worker process,
 * re-planned after each step and answered — through the real `openai` client against the scripted
 * OpenAI-compatible server. The model's bad replies are refused with their diagnostics and the
 * corrected ones applied; what the tools recorded stays as they wrote it; an endpoint that fails
 * twice is retried; a worker killed during a call leaves the work to another.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkScript, startScriptedServer } from '../../src/llm/scripted-server.js';
import { writeReply } from '../../src/llm/reply.js';
import { runDotplan, spawnDotplan, waitUntil } from '../support/cli.js';
import { openWorkspace, type Workspace } from './workspace.js';

const lookup = `lookup [label="Find ACME's revenue", type="function", toolCode="search", toolInput="{\\"query\\": \\"ACME revenue\\"}"`;
const summary = `summary [label="Summarise", type="function", toolCode="echo", toolInput="Revenue: {{nodes.lookup.output}}"`;
const plan = (lookupStatus: string, summaryStatus: string, extra = '') =>
  `digraph G {\n  ${lookup}, status="${lookupStatus}"${extra}];\n  ${summary}, status="${summaryStatus}"];\n  lookup -> summary;\n}`;

describe('reflection mode', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('plans a goal, runs it, re-plans after each step and writes the final answer; bad replies are refused and corrected', async () => {
    const server = await startScriptedServer({
      script: {
        replies: [
          // The endpoint fails twice before it answers: the client retries.
          { status: 500, content: 'overloaded' },
          { status: 500, content: 'overloaded' },
          { content: `Here is my plan.\n\n${writeReply({ updateLog: 'Look up the revenue, then summarise.', dot: plan('ready', 'pending') })}` },
          // After lookup: a pending node marked done is refused ...
          { content: writeReply({ id: 'x', updateLog: 'Done already.', dot: plan('done', 'done') }) },
          // ... and the corrected reply runs it.
          { content: writeReply({ id: 'x', updateLog: 'Summarise next.', dot: plan('done', 'ready') }) },
          // After summary: rewriting a done node's output is refused ...
          { content: writeReply({ id: 'x', updateLog: 'Better numbers.', dot: plan('done', 'done', ', toolOutput="a billion"') }) },
          // ... then the plan as it stands: nothing left to run.
          { content: writeReply({ id: 'x', updateLog: 'Goal reached.', dot: plan('done', 'done') }) },
          { content: 'ACME Corp reported revenue of 12 million dollars in 2025.' },
        ],
      },
    });
    try {
      const env = { ...ws.env, OPENAI_BASE_URL: server.url, OPENAI_MODEL: 'scripted-model' };
      const created = await runDotplan(['plan', 'create', '--goal', "What was ACME's revenue?", '--json'], { cwd: ws.dir, env });
      expect(created.code).toBe(0);
      const { id } = JSON.parse(created.stdout) as { id: string };

      const worker = await runDotplan(['worker', '--until-idle'], { cwd: ws.dir, env });
      expect(worker.code).toBe(0);

      const shown = JSON.parse((await runDotplan(['plan', 'show', id, '--format', 'json'], { cwd: ws.dir, env })).stdout) as {
        status: string;
        goal: string;
        result: string;
        nodes: Array<{ id: string; status: string; output?: string }>;
      };
      expect(shown).toMatchObject({
        status: 'completed',
        goal: "What was ACME's revenue?",
        result: 'ACME Corp reported revenue of 12 million dollars in 2025.',
      });
      const nodes = Object.fromEntries(shown.nodes.map((n) => [n.id, n]));
      expect(nodes.lookup).toMatchObject({ status: 'done', output: 'ACME Corp reported revenue of 12 million dollars in 2025.' }); // as the tool wrote it
      expect(nodes.summary).toMatchObject({ status: 'done', output: 'Revenue: ACME Corp reported revenue of 12 million dollars in 2025.' });

      const calls = JSON.parse((await runDotplan(['plan', 'calls', id, '--json'], { cwd: ws.dir, env })).stdout) as {
        calls: Array<{ purpose: string; outcome: string; model: string; diagnostics?: Array<{ code: string; node?: string; attribute?: string }> }>;
      };
      expect(calls.calls.map((c) => `${c.purpose}:${c.outcome}`)).toEqual([
        'plan:applied',
        'rewrite:refused',
        'rewrite:applied',
        'rewrite:refused',
        'rewrite:ok',
        'answer:ok',
      ]);
      expect(calls.calls[1]!.diagnostics).toEqual([expect.objectContaining({ code: 'MOVE_REFUSED', node: 'summary' })]);
      expect(calls.calls[3]!.diagnostics).toEqual([expect.objectContaining({ code: 'NODE_HISTORY', node: 'lookup', attribute: 'toolOutput' })]);
      expect(calls.calls.every((c) => c.model === 'scripted-model')).toBe(true);
      // The refusal went back to the model with the exact problem.
      const retry = server.requests[4]!.body as { messages: Array<{ role: string; content: string }> };
      expect(server.requests).toHaveLength(8); // 2 failures, 5 plans, 1 answer
      expect(retry.messages.at(-1)!.content).toMatch(/MOVE_REFUSED.*summary/);

      const revisions = await ws.store.plans.revisions(id);
      expect(revisions.map((r) => r.author)).toEqual(['person', 'llm', 'llm']);

      // The run's calls as a script: replayed offline, the same goal takes the same course to the same answer.
      const script = JSON.parse((await runDotplan(['plan', 'calls', id, '--script'], { cwd: ws.dir, env })).stdout) as { replies: unknown[] };
      expect(script.replies).toHaveLength(6);
      const replay = await startScriptedServer({ script: checkScript(script) });
      try {
        const again = { ...env, OPENAI_BASE_URL: replay.url };
        const second = (
          JSON.parse((await runDotplan(['plan', 'create', '--goal', "What was ACME's revenue?", '--json'], { cwd: ws.dir, env: again })).stdout) as {
            id: string;
          }
        ).id;
        expect((await runDotplan(['worker', '--until-idle'], { cwd: ws.dir, env: again })).code).toBe(0);
        expect(await ws.store.plans.get(second)).toMatchObject({ status: 'completed', result: shown.result });
        expect((await ws.store.llm.calls(second)).map((c) => `${c.purpose}:${c.outcome}`)).toEqual(calls.calls.map((c) => `${c.purpose}:${c.outcome}`));
      } finally {
        await replay.close();
      }
    } finally {
      await server.close();
    }
  });

  it('takes a reply that leaves out the statuses and outputs of nodes that ran: they are kept, and only what it changes moves', async () => {
    const bare = (lookupStatus?: string, summaryStatus?: string) =>
      `digraph G {\n  ${lookup}${lookupStatus ? `, status="${lookupStatus}"` : ''}];\n  ${summary}${summaryStatus ? `, status="${summaryStatus}"` : ''}];\n  lookup -> summary;\n}`;
    const server = await startScriptedServer({
      script: {
        replies: [
          { content: writeReply({ updateLog: 'Look up the revenue first.', dot: bare('ready', 'pending') }) },
          // After lookup: only summary's status is written (lookup's status and output left out, as the prompt allows).
          { content: writeReply({ id: 'x', updateLog: 'Summarise next.', dot: bare(undefined, 'ready') }) },
          // After summary: nothing to change, so no status at all.
          { content: writeReply({ id: 'x', updateLog: 'Goal reached.', dot: bare() }) },
          { content: 'ACME Corp reported revenue of 12 million dollars in 2025.' },
        ],
      },
    });
    try {
      const env = { ...ws.env, OPENAI_BASE_URL: server.url };
      const { id } = JSON.parse((await runDotplan(['plan', 'create', '--goal', "What was ACME's revenue?", '--json'], { cwd: ws.dir, env })).stdout) as {
        id: string;
      };
      expect((await runDotplan(['worker', '--until-idle'], { cwd: ws.dir, env })).code).toBe(0);
      const calls = await ws.store.llm.calls(id);
      expect(calls.map((c) => `${c.purpose}:${c.outcome}`)).toEqual(['plan:applied', 'rewrite:applied', 'rewrite:ok', 'answer:ok']);
      expect(await ws.store.plans.get(id)).toMatchObject({ status: 'completed', result: 'ACME Corp reported revenue of 12 million dollars in 2025.' });
      const nodes = await ws.nodes(id);
      expect(nodes.get('lookup')).toMatchObject({ status: 'done', output: 'ACME Corp reported revenue of 12 million dollars in 2025.', attempts: 1 });
      expect(nodes.get('summary')).toMatchObject({ status: 'done', output: 'Revenue: ACME Corp reported revenue of 12 million dollars in 2025.', attempts: 1 });
      // The rewrite changed summary's status only: no move of lookup by the LLM.
      const llmMoves = (await ws.store.events.list(id, { kind: 'status' })).filter((e) => e.driver === 'llm').map((e) => `${e.nodeId}:${e.from}->${e.to}`);
      expect(llmMoves).toEqual(['summary:pending->ready']);
    } finally {
      await server.close();
    }
  });

  it('a worker killed during an LLM call leaves the call to another worker, which finishes the plan', async () => {
    const first = writeReply({ updateLog: 'One step.', dot: 'digraph G {\n  only [type="function", toolCode="echo", toolInput="42", status="ready"];\n}' });
    const server = await startScriptedServer({
      script: {
        replies: [
          { content: first, delayMs: 30_000 }, // the killed worker's call: never answered in time
          { content: first },
          {
            content: writeReply({
              id: 'x',
              updateLog: 'Done.',
              dot: 'digraph G {\n  only [type="function", toolCode="echo", toolInput="42", status="done"];\n}',
            }),
          },
          { content: 'The answer is 42.' },
        ],
      },
    });
    try {
      const env = { ...ws.env, OPENAI_BASE_URL: server.url, DOTPLAN_LEASE_MS: '1000' };
      const created = await runDotplan(['plan', 'create', '--goal', 'Compute the answer', '--json'], { cwd: ws.dir, env });
      const { id } = JSON.parse(created.stdout) as { id: string };
      const doomed = spawnDotplan(['worker'], { cwd: ws.dir, env });
      await waitUntil(async () => server.requests.length === 1, 'the first worker to call the model');
      doomed.kill('SIGKILL');
      await doomed.exited;

      const rescuer = await runDotplan(['worker', '--until-idle'], { cwd: ws.dir, env });
      expect(rescuer.code).toBe(0);
      const plan = await ws.store.plans.get(id);
      expect(plan).toMatchObject({ status: 'completed', result: 'The answer is 42.' });
      const calls = await ws.store.llm.calls(id);
      expect(calls.map((c) => `${c.purpose}:${c.outcome}`)).toEqual(['plan:applied', 'rewrite:ok', 'answer:ok']); // the killed call left no trace but its lease
    } finally {
      await server.close();
    }
  });

  it('fails the plan after maxRewriteAttempts refused replies in a row, its last good revision intact and every problem recorded', async () => {
    const node = (id: string, status: string) => `  ${id} [type="function", toolCode="echo", toolInput="${id}", status="${status}"];`;
    const dot = (...lines: string[]) => `digraph G {\n${lines.join('\n')}\n}`;
    const server = await startScriptedServer({
      script: {
        replies: [
          { content: writeReply({ updateLog: 'a then b', dot: dot(node('a', 'ready'), node('b', 'pending'), '  a -> b;') }) },
          { content: writeReply({ id: 'x', updateLog: 'c instead of b', dot: dot(node('a', 'done'), node('c', 'ready'), '  a -> c;') }) },
          {
            content: writeReply({
              id: 'x',
              updateLog: 'b again',
              dot: dot(node('a', 'done'), node('c', 'done'), node('b', 'ready'), '  a -> c;', '  c -> b;'),
            }),
          },
          {
            content: writeReply({
              id: 'x',
              updateLog: 'a loop',
              dot: dot(node('a', 'done'), node('c', 'done'), node('d', 'ready'), node('e', 'pending'), '  a -> c;', '  d -> e;', '  e -> d;'),
            }),
          },
          { content: 'I am not sure what to do next.' },
        ],
      },
    });
    try {
      const env = { ...ws.env, OPENAI_BASE_URL: server.url };
      const { id } = JSON.parse((await runDotplan(['plan', 'create', '--goal', 'Run a and c', '--json'], { cwd: ws.dir, env })).stdout) as { id: string };
      expect((await runDotplan(['worker', '--until-idle'], { cwd: ws.dir, env })).code).toBe(0);
      const plan = await ws.store.plans.get(id);
      expect(plan.status).toBe('failed');
      expect(plan.error).toMatch(/refused 3 times in a row \(maxRewriteAttempts=3\).*REPLY_NO_PLAN/s);
      const calls = await ws.store.llm.calls(id);
      expect(calls.slice(2).map((c) => (c.diagnostics as Array<{ code: string }>).map((d) => d.code))).toEqual([
        ['REPLY_ID_REUSED'],
        ['CYCLE'],
        ['REPLY_NO_PLAN'],
      ]);
      expect(calls.map((c) => `${c.purpose}:${c.outcome}`)).toEqual([
        'plan:applied',
        'rewrite:applied',
        'rewrite:refused',
        'rewrite:refused',
        'rewrite:refused',
      ]);
      expect((await ws.store.plans.revisions(id)).map((r) => r.author)).toEqual(['person', 'llm', 'llm']);
      expect([...(await ws.nodes(id)).values()].map((n) => `${n.id}:${n.status}`).sort()).toEqual(['a:done', 'c:done']);
    } finally {
      await server.close();
    }
  });

  it('stops a plan whose token budget is spent, the reason recorded', async () => {
    const one = (status: string) =>
      `digraph G {\n  a [type="function", toolCode="echo", toolInput="a", status="${status}"];\n  b [type="function", toolCode="echo", toolInput="b", status="pending"];\n  a -> b;\n}`;
    const usage = { prompt_tokens: 60, completion_tokens: 20 };
    const server = await startScriptedServer({
      script: {
        replies: [
          { content: writeReply({ updateLog: 'a first', dot: one('ready') }), usage },
          { content: 'never asked', usage },
        ],
      },
    });
    try {
      const env = { ...ws.env, OPENAI_BASE_URL: server.url, DOTPLAN_MAX_TOKENS: '50' };
      const { id } = JSON.parse((await runDotplan(['plan', 'create', '--goal', 'Run a, then b', '--json'], { cwd: ws.dir, env })).stdout) as { id: string };
      expect((await runDotplan(['worker', '--until-idle'], { cwd: ws.dir, env })).code).toBe(0);
      const plan = await ws.store.plans.get(id);
      expect(plan).toMatchObject({ status: 'failed', tokensUsed: 80 });
      expect(plan.error).toBe("the plan's token budget is spent (80 of maxTokens=50)");
      expect(server.requests).toHaveLength(1); // the rewrite after a finished was not asked for
      expect((await ws.nodes(id)).get('a')!.status).toBe('done');
    } finally {
      await server.close();
    }
  });
});
