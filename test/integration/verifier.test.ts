/**
 * The seeds' flaky search (000/001: Planner → Executor → Verifier): a search tool that finds nothing
 * about employee counts. With verify="llm" the model's judgement catches the empty result, the
 * node fails with the reasoning, and the next rewrite re-plans with a different query — or, past
 * `maxReplans`, the plan ends with an explanation instead of a wrong answer. Real worker processes,
 * the real `openai` client, the scripted server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedReply } from '../../src/llm/scripted-server.js';
import { writeReply } from '../../src/llm/reply.js';
import { runDotplan } from '../support/cli.js';
import { openWorkspace, type Workspace } from './workspace.js';

const search = (id: string, query: string, status: string, extra = '') =>
  `  ${id} [label="Find how many employees ACME has", type="function", toolCode="search", toolInput="{\\"query\\": \\"${query}\\"}", verify="llm", status="${status}"${extra}];`;
const plan = (...nodes: string[]) => writeReply({ id: 'x', updateLog: 'Plan.', dot: `digraph G {\n${nodes.join('\n')}\n}` });
const judgement = (ok: boolean, reasoning: string): ScriptedReply => ({ json: { is_successful: ok, reasoning } });

describe('the verifier', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  async function run(replies: ScriptedReply[], extraEnv: Record<string, string> = {}) {
    const server = await startScriptedServer({ script: { replies } });
    try {
      const env = { ...ws.env, OPENAI_BASE_URL: server.url, ...extraEnv };
      const created = await runDotplan(['plan', 'create', '--goal', 'How many employees does ACME Corp have?', '--json'], { cwd: ws.dir, env });
      const { id } = JSON.parse(created.stdout) as { id: string };
      expect((await runDotplan(['worker', '--until-idle'], { cwd: ws.dir, env })).code).toBe(0);
      return { id, plan: await ws.store.plans.get(id), nodes: await ws.nodes(id), calls: await ws.store.llm.calls(id), requests: server.requests };
    } finally {
      await server.close();
    }
  }

  it('catches the empty search result, and the re-plan with a different query succeeds', async () => {
    const {
      plan: done,
      nodes,
      calls,
      requests,
    } = await run([
      { content: plan(search('count', 'ACME employee count', 'ready')) },
      judgement(false, 'The search returned no results about employees.'),
      { content: plan(search('count', 'ACME employee count', 'failed'), search('history', 'ACME history', 'ready')) },
      judgement(true, 'The company history is a usable result.'),
      { content: plan(search('count', 'ACME employee count', 'failed'), search('history', 'ACME history', 'done')) },
      { content: 'The sources do not give a head count; ACME Corp was founded in 1999 in Lyon.' },
    ]);
    expect(nodes.get('count')).toMatchObject({ status: 'failed', error: 'verification failed: The search returned no results about employees.' });
    expect(nodes.get('history')).toMatchObject({ status: 'done', output: 'ACME Corp was founded in 1999 in Lyon.' });
    expect(done).toMatchObject({ status: 'completed', result: 'The sources do not give a head count; ACME Corp was founded in 1999 in Lyon.' });
    expect(calls.map((c) => `${c.purpose}${c.nodeId ? `(${c.nodeId})` : ''}:${c.outcome}`)).toEqual([
      'plan:applied',
      'verify(count):ok',
      'rewrite:applied',
      'verify(history):ok',
      'rewrite:ok',
      'answer:ok',
    ]);
    // The judgement was asked as structured output, and the rewrite saw the verifier's reasoning.
    expect((requests[1]!.body as { response_format?: { type: string } }).response_format?.type).toBe('json_schema');
    expect(JSON.stringify(requests[2]!.body)).toContain('verification failed: The search returned no results about employees.');
  });

  it('ends the plan with an explanation once re-plans pass maxReplans', async () => {
    const { plan: ended, calls } = await run(
      [
        { content: plan(search('count', 'ACME employee count', 'ready')) },
        judgement(false, 'No results about employees.'),
        { content: plan(search('count', 'ACME employee count', 'failed'), search('staff', 'ACME staff numbers', 'ready')) },
        judgement(false, 'Still no results about employees.'),
        { content: 'I could not find how many employees ACME Corp has: two searches returned nothing.' },
      ],
      { DOTPLAN_MAX_REPLANS: '1' },
    );
    expect(ended).toMatchObject({ status: 'failed', result: 'I could not find how many employees ACME Corp has: two searches returned nothing.' });
    expect(ended.error).toMatch(/verification failed 2 times \(maxReplans=1\)/);
    expect(calls.map((c) => c.purpose)).toEqual(['plan', 'verify', 'rewrite', 'verify', 'answer']);
  });
});
