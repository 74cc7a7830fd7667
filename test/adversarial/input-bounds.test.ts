/**
 * Bounded input, linear work (issue 14, cases 5, 6, 11 and 13), through the commands and a real worker with the real
 * `openai` client against the scripted server: a plan nested 2,300 or 100,000 deep is a DOT_TOO_DEEP diagnostic from
 * `validate --json`, `plan create` and `render`, and a reply nested that deep is one refused attempt (before: a stack
 * overflow that released the work uncounted, forever); a 900 KB reply is refused unread; an "İ" before the markers
 * does not shift them; 20,000 references to unknown nodes are validated in one pass; a `when` pattern that would hold a
 * worker is refused when the plan is created.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/llm/scripted-server.js';
import { writeReply } from '../../src/llm/reply.js';
import { openWorkspace, type Workspace } from '../integration/workspace.js';

const WORKER_MS = 120_000;
const READY = 'digraph G {\n  a [type="function", toolCode="echo", toolInput="hi", status="ready"];\n}\n';
const DONE = 'digraph G {\n  a [type="function", toolCode="echo", toolInput="hi"];\n}\n';

function nested(depth: number): string {
  return `digraph G {\n${'subgraph {\n'.repeat(depth)}a [type="function", toolCode="echo", toolInput="hi", status="ready"];\n${'}\n'.repeat(depth)}}\n`;
}

describe('bounded input', () => {
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

  /** A reflection plan served by a worker until idle against `replies`; its id. */
  async function reflect(replies: string[]): Promise<string> {
    server = await startScriptedServer({ script: { replies: replies.map((content) => ({ content })) } });
    const env = { OPENAI_BASE_URL: server.url, OPENAI_MODEL: 'scripted-model' };
    const { id } = JSON.parse(await ws.ok(['plan', 'create', '--goal', 'Say hi', '--json'], { env })) as { id: string };
    expect((await ws.dotplan(['worker', '--until-idle'], { env, timeoutMs: WORKER_MS })).code).toBe(0);
    return id;
  }

  it.each([2_300, 100_000])(
    'case 5: a plan file nesting subgraph { %i deep is DOT_TOO_DEEP with its line from validate --json, plan create and render',
    async (depth) => {
      const file = ws.write('deep.dot', nested(depth));
      const validated = await ws.dotplan(['validate', '--json', file]);
      expect(validated.code).toBe(1);
      expect(JSON.parse(validated.stdout)).toMatchObject({ valid: false, diagnostics: [{ code: 'DOT_TOO_DEEP', line: 102, column: 10 }] });
      for (const args of [
        ['plan', 'create', '--dot', file],
        ['render', file],
      ]) {
        const run = await ws.dotplan(args);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/deep\.dot:102: error DOT_TOO_DEEP: .*nests deeper than 100 levels.*Fix: flatten the nesting/);
        expect(run.stderr).not.toMatch(/INTERNAL|call stack/);
      }
    },
    WORKER_MS,
  );

  it(
    'case 5: a reply nesting 2,300 deep is a refused attempt with DOT_TOO_DEEP; three of them fail the plan after three requests',
    async () => {
      const deep = writeReply({ updateLog: 'deep', dot: nested(2_300) });
      const id = await reflect([deep, deep, deep]);
      expect(server!.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(3);
      const calls = await ws.store.llm.calls(id);
      expect(calls.map((c) => `${c.purpose}:${c.outcome}`)).toEqual(['plan:refused', 'plan:refused', 'plan:refused']);
      const deepAt106: unknown = [expect.objectContaining({ code: 'DOT_TOO_DEEP', line: 106, message: expect.stringContaining('at line 106, column 10') })];
      expect(calls.map((c) => c.diagnostics)).toEqual([deepAt106, deepAt106, deepAt106]);
      expect(await ws.store.plans.get(id)).toMatchObject({ status: 'failed' });
    },
    WORKER_MS,
  );

  it(
    'case 6: a 900 KB reply (30,000 update-log markers) is refused unread with REPLY_TOO_LARGE; the next reply is applied',
    async () => {
      const huge = '@epupdatelog@\nx\n@epupdatelog@\n'.repeat(30_000) + writeReply({ updateLog: 'huge', dot: READY });
      const id = await reflect([huge, writeReply({ updateLog: 'Run a.', dot: READY }), writeReply({ id: 'x', updateLog: 'Done.', dot: DONE }), 'hi']);
      const calls = await ws.store.llm.calls(id);
      expect(calls.map((c) => `${c.purpose}:${c.outcome}`)).toEqual(['plan:refused', 'plan:applied', 'rewrite:ok', 'answer:ok']);
      expect(calls[0]!.diagnostics).toMatchObject([
        { code: 'REPLY_TOO_LARGE', message: expect.stringMatching(/more than the limit of 256 KiB; it was not read/) },
      ]);
      expect(await ws.store.plans.get(id)).toMatchObject({ status: 'completed', result: 'hi' });
    },
    WORKER_MS,
  );

  it(
    'case 6: an "İ" (U+0130) before the markers leaves them in place: the update log is read as written',
    async () => {
      const reply = `İstanbul: İİİ\n${writeReply({ updateLog: 'Run a.', dot: READY })}`;
      const id = await reflect([reply, writeReply({ id: 'x', updateLog: 'Done.', dot: DONE }), 'hi']);
      const revisions = await ws.store.plans.revisions(id);
      expect(revisions.map((r) => r.updateLog)).toContain('Run a.');
      expect(await ws.store.plans.get(id)).toMatchObject({ status: 'completed' });
    },
    WORKER_MS,
  );

  it(
    'case 11: validate --json reads 20,000 references to unknown nodes: one diagnostic each, a guess for the first 20',
    async () => {
      const lines = ['digraph G {'];
      for (let i = 0; i < 20_000; i++) lines.push(`n${i} [type=function status=pending toolCode=echo toolInput="{{nodes.m${i}.output}}"]`);
      lines.push('}');
      const run = await ws.dotplan(['validate', '--json', ws.write('refs.dot', lines.join('\n'))]);
      expect(run.code).toBe(1);
      const { diagnostics } = JSON.parse(run.stdout) as { diagnostics: Array<{ code: string; fix: string }> };
      expect(diagnostics.filter((d) => d.code === 'REFERENCE_UNKNOWN_NODE')).toHaveLength(20_000);
      expect(diagnostics.filter((d) => d.fix.startsWith('did you mean'))).toHaveLength(20);
    },
    WORKER_MS,
  );

  it('case 13: plan create refuses when="/(.*a){1000}/" with WHEN_TOO_COMPLEX naming the edge and the fix', async () => {
    const file = ws.write(
      'when.dot',
      'digraph G {\n  a [type="function", toolCode="echo", toolInput="hi", status="ready"];\n  b [type="function", toolCode="echo", toolInput="b"];\n  a -> b [when="/(.*a){1000}/"];\n}\n',
    );
    const run = await ws.dotplan(['plan', 'create', '--dot', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /when\.dot:4: error WHEN_TOO_COMPLEX: when="\/\(\.\*a\)\{1000\}\/" on the edge "a" -> "b" is too complex .*Fix: simplify the pattern/,
    );
    expect((await ws.dotplan(['plan', 'list', '--json'])).stdout).not.toMatch(/"id"/);
  });
});
