/**
 * Agents across real worker processes, on the suite's backend (SQLite and PostgreSQL):
 * - two agent nodes of one plan run their children concurrently on two `dotplan worker` processes,
 *   and no message of searcher_001 is in any request of searcher_002;
 * - SIGKILL a worker during a child's tool, and during a ReAct model call: another worker finishes
 *   the tree, with one child per attempt and each tool call run once per attempt, and every history
 *   the model is sent is one the API accepts (the scripted server refuses any other with 400).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { historyProblem } from '../../src/llm/history.js';
import { startScriptedServer, type ScriptedServer, type ScriptedReply } from '../../src/llm/scripted-server.js';
import { waitUntil } from '../support/wait.js';
import { openWorkspace, type Workspace } from '../integration/workspace.js';

describe('agents on worker processes', () => {
  let ws: Workspace;
  let server: ScriptedServer | undefined;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
    await server?.close();
  });

  async function setUp(replies: ScriptedReply[]): Promise<Record<string, string>> {
    server = await startScriptedServer({ script: { replies } });
    ws.write(
      'dotplan.config.json',
      JSON.stringify({ agents: [{ code: 'searcher', kind: 'react', description: 'searches', tools: ['search', 'record', 'gate'] }] }),
    );
    return { OPENAI_BASE_URL: server.url };
  }

  async function rootDone(planId: string): Promise<void> {
    await waitUntil(async () => ['completed', 'failed'].includes((await ws.store.plans.get(planId)).status) || undefined, 'the root to end', 60_000);
  }

  it('two children run concurrently on two worker processes; each instance sends only its own messages', async () => {
    const env = await setUp([
      { matchAny: 'find A', match: 'find A', delayMs: 3000, toolCalls: [{ name: 'search', arguments: { query: 'founded' } }] },
      { matchAny: 'find B', match: 'find B', delayMs: 3000, toolCalls: [{ name: 'search', arguments: { query: 'revenue' } }] },
      { matchAny: 'find A', match: 'founded in 1999', content: 'A: 1999' },
      { matchAny: 'find B', match: 'revenue of 12', content: 'B: 12M' },
    ]);
    // Both workers up (their start-up line printed) before there is work, so that a slow start under load cannot leave one idle.
    const workers = [1, 2].map(() => ws.spawnProcess(['worker', '--concurrency', '1', '--llm-slots', '1', '--poll', '*/1 * * * * *'], { env }));
    await waitUntil(() => workers.every((w) => /concurrency 1/.test(w.stderr())) || undefined, 'both workers to start', 60_000);
    const root = await ws.createPlan(`digraph root { a [type=agent agentCode=searcher task="find A"] b [type=agent agentCode=searcher task="find B"] }`);
    await rootDone(root);
    for (const w of workers) w.kill('SIGTERM');
    expect((await ws.store.plans.get(root)).status).toBe('completed');
    expect((await ws.store.plans.node(root, 'a')).output).toBe('A: 1999');
    expect((await ws.store.plans.node(root, 'b')).output).toBe('B: 12M');
    const requests = server!.requests.map((r) => ({
      at: Date.parse(r.at),
      text: JSON.stringify((r.body as { messages: unknown[] }).messages),
      status: r.status,
    }));
    expect(requests.filter((r) => r.text.includes('find A') && r.text.includes('find B'))).toEqual([]);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    // The two first turns were in flight at once (each answered after 3 s), and a worker serves one
    // model call at a time (--llm-slots 1): the two children ran side by side, on the two processes.
    const [first, second] = requests.slice(0, 2);
    expect(Math.abs(first!.at - second!.at)).toBeLessThan(3000);
  });

  it("SIGKILL during a child's tool: another worker finishes the tree, one child per attempt, each call once per attempt", async () => {
    const log = join(ws.dir, 'calls.log');
    const gate = join(ws.dir, 'gate');
    const env = await setUp([
      {
        matchAny: 'find C',
        match: 'find C',
        toolCalls: [
          { name: 'record', arguments: { file: log } },
          { name: 'gate', arguments: { file: gate } },
        ],
      },
      { matchAny: 'find C', match: 'opened', content: 'C found' },
    ]);
    const root = await ws.createPlan(`digraph root { c [type=agent agentCode=searcher task="find C"] }`);
    const first = ws.spawnProcess(['worker', '--lease-ms', '1500', '--poll', '*/1 * * * * *'], { env });
    await waitUntil(() => existsSync(log) || undefined, 'the first call to run', 60_000);
    // The second worker is up before the first dies: the node the first holds is leased, so only a takeover gives it to the second.
    const second = ws.spawnProcess(['worker', '--lease-ms', '1500', '--poll', '*/1 * * * * *'], { env });
    await waitUntil(() => /concurrency/.test(second.stderr()) || undefined, 'the second worker to start', 60_000);
    first.kill('SIGKILL');
    await first.exited;
    const runs = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0);
    await waitUntil(() => runs() === 2 || undefined, 'the takeover to run the calls again', 90_000).catch(async (error: unknown) => {
      const child = (await ws.store.plans.list()).find((p) => p.rootPlanId === root);
      const nodes = child ? await ws.store.plans.nodes(child.id) : [];
      const state = JSON.stringify(nodes.map((n) => [n.id, n.status, n.attempts, n.leaseOwner, n.error]));
      throw new Error(`${String(error)}; turn nodes: ${state}; second worker: ${second.stderr().slice(-2000)}`);
    });
    writeFileSync(gate, 'open');
    await rootDone(root);
    second.kill('SIGTERM');
    expect((await ws.store.plans.node(root, 'c')).output).toBe('C found');
    const children = (await ws.store.plans.list()).filter((p) => p.rootPlanId === root);
    expect(children).toHaveLength(1);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.map((l) => l.split(' ')[2])).toEqual(['1', '2']); // the record call: once in each attempt of its node
    expect(new Set(lines.map((l) => l.split(' ')[3])).size).toBe(2); // by two processes
    expect(historyProblem(await ws.store.tree.messages(children[0]!.id))).toBeUndefined();
    expect(server!.requests.every((r) => r.status === 200)).toBe(true);
  });

  it('SIGKILL during a ReAct model call: another worker asks again and finishes; the history stays one the API accepts', async () => {
    const env = await setUp([
      { matchAny: 'find D', match: 'find D', delayMs: 60_000, content: 'never sent' },
      { matchAny: 'find D', match: 'find D', toolCalls: [{ name: 'search', arguments: { query: 'history' } }] },
      { matchAny: 'find D', match: 'founded in 1999', content: 'D found' },
    ]);
    const root = await ws.createPlan(`digraph root { d [type=agent agentCode=searcher task="find D"] }`);
    const first = ws.spawnProcess(['worker', '--lease-ms', '1500', '--poll', '*/1 * * * * *'], { env });
    await waitUntil(() => server!.requests.length >= 1 || undefined, 'the first model call');
    first.kill('SIGKILL');
    await first.exited;
    const second = ws.spawnProcess(['worker', '--lease-ms', '1500', '--poll', '*/1 * * * * *'], { env });
    await rootDone(root);
    second.kill('SIGTERM');
    expect((await ws.store.plans.node(root, 'd')).output).toBe('D found');
    const children = (await ws.store.plans.list()).filter((p) => p.rootPlanId === root);
    expect(children).toHaveLength(1);
    const history = await ws.store.tree.messages(children[0]!.id);
    expect((history as Array<{ role: string }>).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(historyProblem(history)).toBeUndefined();
    expect(server!.requests.filter((r) => r.status === 400)).toEqual([]);
  });
});
