/**
 * ReAct agents (seed 004: multiFunction nodes for ReAct mode): the model, through the real `openai`
 * client against the scripted server, calls tools natively; each turn that asks for tools is one
 * multiFunction node of the child plan, its results go back as `tool` messages, and the turn that
 * answers completes the child. Each instance sends its own history only; `maxTurns` ends a loop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { historyProblem } from '../../src/llm/history.js';
import { startScriptedServer, type ScriptedServer } from '../../src/llm/scripted-server.js';
import type { TreeView } from '../../src/operations/tree-views.js';
import type { Tool } from '../../src/tools/types.js';
import { runInProcess } from '../support/in-process.js';
import { cleanEnv } from '../support/run.js';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

const lookup: Tool<{ q: string }> = {
  code: 'lookup',
  description: 'looks a word up',
  inputSchema: z.object({ q: z.string() }),
  run: (input) => `found ${input.q}`,
};

describe('ReAct agents', () => {
  let h: TreeHarness | undefined;
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await h?.cleanup();
    await server?.close();
  });

  it('two tools, then one, then an answer: two multiFunction nodes, the answer as the result, a history the API accepts', async () => {
    server = await startScriptedServer({
      script: {
        replies: [
          {
            toolCalls: [
              { name: 'lookup', arguments: { q: 'a1' } },
              { name: 'lookup', arguments: { q: 'a2' } },
            ],
          },
          { match: 'found a2', toolCalls: [{ name: 'lookup', arguments: { q: 'a3' } }] },
          { match: 'found a3', content: 'A is 42' },
        ],
      },
    });
    h = await openTreeHarness({ agents: [{ code: 'searcher', kind: 'react', tools: ['lookup'] }], tools: [lookup], llmUrl: server.url });
    const root = await h.create(`digraph root { s [type=agent agentCode=searcher task="find A"] }`);
    await h.runUntilIdle();
    const s = await h.store.plans.node(root, 's');
    expect(s.status).toBe('done');
    expect(s.output).toBe('A is 42');
    const child = await h.store.plans.get(s.childPlanId!);
    expect(child).toMatchObject({ status: 'completed', mode: 'react', instance: 'searcher_001', result: 'A is 42' });
    const nodes = await h.store.plans.nodes(child.id);
    expect(nodes.map((n) => [n.id, n.type, n.status, n.output])).toEqual([
      ['turn_1', 'multiFunction', 'done', '["found a1","found a2"]'],
      ['turn_2', 'multiFunction', 'done', '["found a3"]'],
    ]);
    expect(await h.store.plans.edges(child.id)).toEqual([{ from: 'turn_1', to: 'turn_2' }]);
    const history = (await h.store.tree.messages(child.id)) as Array<{ role: string; content: string | null }>;
    expect(history.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']);
    expect(history.at(-1)!.content).toBe('A is 42');
    expect(historyProblem(history)).toBeUndefined();
    // Every request offered the agent's tool (and request_replan) as a JSON schema, and the server accepted each history.
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    const tools = (server.requests[0]!.body as { tools: Array<{ function: { name: string; parameters: unknown } }> }).tools;
    expect(tools.map((t) => t.function.name)).toEqual(['lookup', 'request_replan']);
    expect(tools[0]!.function.parameters).toMatchObject({ type: 'object', properties: { q: { type: 'string' } } });
  });

  it('two instances run side by side, each sending its own history only', async () => {
    server = await startScriptedServer({
      script: {
        replies: [
          { matchAny: 'find A', match: 'find A', toolCalls: [{ name: 'lookup', arguments: { q: 'a' } }] },
          { matchAny: 'find B', match: 'find B', toolCalls: [{ name: 'lookup', arguments: { q: 'b' } }] },
          { matchAny: 'find A', match: 'found a', content: 'A done' },
          { matchAny: 'find B', match: 'found b', content: 'B done' },
        ],
      },
    });
    h = await openTreeHarness({ agents: [{ code: 'searcher', kind: 'react', tools: ['lookup'] }], tools: [lookup], llmUrl: server.url });
    const root = await h.create(`digraph root { a [type=agent agentCode=searcher task="find A"] b [type=agent agentCode=searcher task="find B"] }`);
    await h.runUntilIdle();
    expect((await h.store.plans.node(root, 'a')).output).toBe('A done');
    expect((await h.store.plans.node(root, 'b')).output).toBe('B done');
    const texts = server.requests.map((r) => JSON.stringify((r.body as { messages: unknown[] }).messages));
    expect(texts.filter((t) => t.includes('find A'))).toHaveLength(2);
    expect(texts.filter((t) => t.includes('find B'))).toHaveLength(2);
    expect(texts.filter((t) => t.includes('find A') && t.includes('find B'))).toEqual([]);
    const instances = (await h.store.plans.list())
      .filter((p) => p.rootPlanId === root)
      .map((p) => p.instance)
      .sort();
    expect(instances).toEqual(['searcher_001', 'searcher_002']);
  });

  it("reflection.maxTokens is the tree's budget: one child's tokens count against the next, and the tree stops", async () => {
    server = await startScriptedServer({
      script: {
        replies: [
          { matchAny: 'first', content: 'first done', usage: { prompt_tokens: 500, completion_tokens: 200 } },
          { matchAny: 'second', content: 'never asked' },
        ],
      },
    });
    h = await openTreeHarness({
      agents: [{ code: 'searcher', kind: 'react', tools: ['lookup'] }],
      tools: [lookup],
      llmUrl: server.url,
      reflection: { maxTokens: 600 },
    });
    const root = await h.create(`digraph root { a [type=agent agentCode=searcher task="first"] b [type=agent agentCode=searcher task="second"] a -> b }`);
    await h.runUntilIdle();
    expect((await h.store.plans.node(root, 'a')).output).toBe('first done');
    const b = await h.store.plans.node(root, 'b');
    expect(b.status).toBe('failed');
    expect(b.error).toContain('the token budget of its tree is spent (700 of maxTokens=600)');
    expect((await h.store.plans.get(root)).status).toBe('failed');
    expect(server.remaining()).toBe(1); // the second instance never called the model
    // `plan tree` counts the tokens where they were spent, and in all.
    const tree = await runInProcess(['--db', h.store.url, 'plan', 'tree', root, '--json'], { env: cleanEnv(), cwd: h.dir });
    const view = JSON.parse(tree.stdout) as TreeView;
    expect(view.plans.map((p) => [p.instance ?? 'root', p.tokensUsed])).toEqual([
      ['root', 0],
      ['searcher_001', 700],
      ['searcher_002', 0],
    ]);
    expect(view.tokensUsed).toBe(700);
  });

  it('maxTurns ends a runaway loop with a clear error naming the agent and the limit', async () => {
    server = await startScriptedServer({ script: { replies: [{ toolCalls: [{ name: 'lookup', arguments: { q: 'again' } }], repeat: true }] } });
    h = await openTreeHarness({
      agents: [{ code: 'looper', kind: 'react', tools: ['lookup'], limits: { maxTurns: 3 } }],
      tools: [lookup],
      llmUrl: server.url,
    });
    const root = await h.create(`digraph root { l [type=agent agentCode=looper task="loop"] }`);
    await h.runUntilIdle();
    const l = await h.store.plans.node(root, 'l');
    expect(l.status).toBe('failed');
    expect(l.error).toContain('REACT_MAX_TURNS: agent looper took 3 turns without answering (limits.maxTurns=3)');
    expect(await h.store.plans.nodes(l.childPlanId!)).toHaveLength(3);
  });
});
