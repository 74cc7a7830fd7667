/**
 * External agents over A2A: an agent node whose agent is `kind: "a2a"` sends its task to the fixture
 * agent (a real process, the SDK's protocol traffic on loopback) and maps the remote task onto the
 * node — a question becomes the node's own (in the inbox, announced, answered on the same task), a
 * completion its output, a rejection a failure that is not retried — through the wrapper: what leaves
 * is redacted, a call the policy does not allow never leaves, and every exchange is a `remote` event.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../src/agents/types.js';
import type { Dotplan } from '../../src/operations/dotplan.js';
import type { Worker } from '../../src/worker/worker.js';
import { openTestDotplan, type TestDotplan } from '../api/open.js';
import { waitUntil } from '../support/wait.js';
import { recorded, startAgent, stats, type FixtureAgent } from './agent-fixture.js';

const SECRET = 'fixture-secret-4f2a9c1e';

describe('external agents over A2A', () => {
  let dir = '';
  let record = '';
  let fixture: FixtureAgent;
  let t: TestDotplan | undefined;
  let worker: Worker | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dotplan-a2a-client-'));
    record = join(dir, 'record.jsonl');
    fixture = await startAgent('--port', '0', '--record', record, '--slow-ms', '1500');
  });
  afterAll(async () => {
    await fixture?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await t?.cleanup();
    t = undefined;
    delete process.env.DOTPLAN_TEST_A2A_SECRET;
  });

  async function open(agent: Partial<AgentDefinition> = {}): Promise<Dotplan> {
    process.env.DOTPLAN_TEST_A2A_SECRET = SECRET;
    t = await openTestDotplan({
      config: {
        // The agent's token is read from the environment: its value is a secret the wrapper redacts.
        agents: [
          { code: 'helper', kind: 'a2a', description: 'the fixture agent', url: fixture.base, auth: { bearer: 'env:DOTPLAN_TEST_A2A_SECRET' }, ...agent },
        ],
        retry: { retries: 2, retryDelay: '50ms' },
        worker: { poll: '*/1 * * * * *' },
      },
    });
    return t.dotplan;
  }

  async function ended(dotplan: Dotplan, planId: string): Promise<string> {
    return waitUntil(
      async () => {
        const { status } = await dotplan.plan(planId);
        return ['completed', 'failed', 'cancelled'].includes(status) && status;
      },
      `plan ${planId} to end`,
      30_000,
    );
  }

  /** The node's status moves, as `from>to`. */
  async function moves(dotplan: Dotplan, planId: string, nodeId: string): Promise<string[]> {
    return (await dotplan.events.list({ planId, kind: 'status' })).filter((e) => e.nodeId === nodeId).map((e) => `${e.from}>${e.to}`);
  }

  it("a question of the agent is the node's: running → awaiting_input (inbox, announced, options) → answered on the same task → running → done", async () => {
    const dotplan = await open();
    const plan = await dotplan.create({ dot: `digraph p { pick [type=agent agentCode=helper task="please ask me about the colour"] }` });
    worker = dotplan.worker().start();
    const announced: string[] = [];
    worker.on('question:asked', (q) => announced.push(q.question ?? ''));
    const waiting = await waitUntil(async () => (await dotplan.inbox()).find((e) => e.nodeId === 'pick'), "the agent's question in the inbox", 30_000);
    expect(waiting.question).toBe('Which colour should it be?');
    expect(waiting.options).toEqual(['red', 'green']);
    await waitUntil(() => announced.length > 0 || undefined, 'the question announced');
    expect(announced).toEqual(['Which colour should it be?']);
    // The options are the agent's: anything else is refused, naming them.
    await expect(dotplan.answer(plan.id, 'pick', 'blue')).rejects.toThrow(/one of "red", "green"/);
    await dotplan.answer(plan.id, 'pick', 'Red', { by: 'ana' });
    expect(await ended(dotplan, plan.id)).toBe('completed');
    expect((await dotplan.node(plan.id, 'pick')).output).toBe('chose red');
    expect(await moves(dotplan, plan.id, 'pick')).toEqual([
      'pending>ready',
      'ready>running',
      'running>awaiting_input',
      'awaiting_input>ready',
      'ready>running',
      'running>done',
    ]);
    // One task at the agent: the answer went to it with the task's and the context's ids.
    const messages = recorded(record).filter((e) => e.event === 'message' && ['please ask me about the colour', 'red'].includes(e.text as string));
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatchObject({ taskId: messages[0]!.taskId, contextId: messages[0]!.contextId });
    // The audit trail: sent, received (the question), sent (the answer), received (the result), with the task's id.
    const audit = (await dotplan.events.list({ planId: plan.id, kind: 'remote' })).map((e) => [e.detail?.direction, e.detail?.text, e.detail?.taskId]);
    expect(audit).toEqual([
      ['sent', 'please ask me about the colour', undefined],
      ['received', 'Which colour should it be?', messages[0]!.taskId],
      ['sent', 'red', messages[0]!.taskId],
      ['received', 'chose red', messages[0]!.taskId],
    ]);
  });

  it('what leaves is redacted: an e-mail, a phone number, an sk- key and an env: secret never reach the agent; the audit shows the redacted text', async () => {
    const dotplan = await open({ redact: ['ACME-\\d+'] });
    const task = `summarise for bob@example.com, phone +44 20 7946 0958, key sk-proj-a1b2c3d4e5f6g7h8i9, secret ${SECRET}, order ACME-4471`;
    const plan = await dotplan.create({ dot: `digraph p { s [type=agent agentCode=helper task=${JSON.stringify(task)}] }` });
    worker = dotplan.worker().start();
    expect(await ended(dotplan, plan.id)).toBe('completed');
    const received = recorded(record).filter((e) => e.event === 'message' && String(e.text).startsWith('summarise'));
    expect(received).toHaveLength(1);
    const text = String(received[0]!.text);
    for (const leaked of ['bob@example.com', '7946', 'sk-proj', SECRET, 'ACME-4471']) expect(text).not.toContain(leaked);
    expect(text).toBe('summarise for [redacted email], phone [redacted phone], key [redacted key], secret [redacted], order [redacted]');
    const sent = (await dotplan.events.list({ planId: plan.id, kind: 'remote' })).find((e) => e.detail?.direction === 'sent');
    expect(sent?.detail?.text).toBe(text);
    // What came back is redacted too before it became the node's output.
    expect((await dotplan.node(plan.id, 's')).output).toBe(`done: ${text}`);
  });

  it('a REJECTED task fails the node at once, not retried (retries: 2)', async () => {
    const dotplan = await open();
    const plan = await dotplan.create({ dot: `digraph p { r [type=agent agentCode=helper task="reject this one"] }` });
    worker = dotplan.worker().start();
    expect(await ended(dotplan, plan.id)).toBe('failed');
    const node = await dotplan.node(plan.id, 'r');
    expect(node.attempts).toBe(1);
    expect(node.error).toBe('agent helper rejected the task: I do not take this kind of task');
  });

  it('a skill the agent does not allow, or a message over maxPayload, is refused before it leaves', async () => {
    const before = (await stats(fixture)).tasks;
    const dotplan = await open({ allowSkills: ['research'], maxPayload: 64 });
    const skill = await dotplan.create({
      dot: `digraph p { t [type=agent agentCode=helper task="translate this" agentParams="{\\"skill\\": \\"translate\\"}"] }`,
    });
    const big = await dotplan.create({
      dot: `digraph p { big [type=agent agentCode=helper task="${'x'.repeat(100)}" agentParams="{\\"skill\\": \\"research\\"}"] }`,
    });
    worker = dotplan.worker().start();
    expect(await ended(dotplan, skill.id)).toBe('failed');
    expect(await ended(dotplan, big.id)).toBe('failed');
    expect((await dotplan.node(skill.id, 't')).error).toBe('agent helper does not allow skill "translate" (allowSkills: research)');
    expect((await dotplan.node(big.id, 'big')).error).toMatch(/^the message for agent helper is 100 bytes, over its maxPayload of 64/);
    expect((await stats(fixture)).tasks).toBe(before);
    for (const plan of [skill, big]) {
      const refused = (await dotplan.events.list({ planId: plan.id, kind: 'remote' })).map((e) => e.detail?.direction);
      expect(refused).toEqual(['refused']);
    }
  });

  it('detached: while the task works the node is running with no lease and no worker slot; a worker reads the task every pollEvery until it ends', async () => {
    const slow = await startAgent('--port', '0', '--record', join(dir, 'detached.jsonl'), '--slow-ms', '4000');
    try {
      const dotplan = await open({ url: slow.base, mode: 'detached', pollEvery: '1s' });
      const plan = await dotplan.create({ dot: `digraph p { long [type=agent agentCode=helper task="a slow report"] }` });
      const running = (worker = dotplan.worker().start());
      await waitUntil(
        async () => {
          const node = await dotplan.node(plan.id, 'long');
          return (node.status === 'running' && node.leaseOwner === undefined && running.running === 0) || undefined;
        },
        'the node parked on its task',
        20_000,
      );
      expect(await ended(dotplan, plan.id)).toBe('completed');
      expect((await dotplan.node(plan.id, 'long')).output).toBe('slow done');
      // No move while it worked: the checks are takeovers, not attempts.
      expect(await moves(dotplan, plan.id, 'long')).toEqual(['pending>ready', 'ready>running', 'running>done']);
      expect((await dotplan.node(plan.id, 'long')).attempts).toBe(1);
      const seen = recorded(join(dir, 'detached.jsonl')).map((e) => e.event);
      expect(seen.filter((e) => e === 'message')).toHaveLength(1);
      expect(seen.filter((e) => e === 'get').length).toBeGreaterThanOrEqual(2);
      expect(seen).not.toContain('subscribe');
    } finally {
      await slow.stop();
    }
  });

  it("detached: a question of the agent is still the node's, and the answer goes back on the same task", async () => {
    const dotplan = await open({ mode: 'detached', pollEvery: '1s' });
    const plan = await dotplan.create({ dot: `digraph p { pick [type=agent agentCode=helper task="please ask me again"] }` });
    worker = dotplan.worker().start();
    const waiting = await waitUntil(async () => (await dotplan.inbox()).find((e) => e.planId === plan.id), "the agent's question in the inbox", 30_000);
    expect(waiting).toMatchObject({ question: 'Which colour should it be?', options: ['red', 'green'] });
    await dotplan.answer(plan.id, 'pick', 'green');
    expect(await ended(dotplan, plan.id)).toBe('completed');
    expect((await dotplan.node(plan.id, 'pick')).output).toBe('chose green');
    const mine = recorded(record).filter((e) => e.event === 'message' && ['please ask me again', 'green'].includes(e.text as string));
    expect(mine).toHaveLength(2);
    expect(mine[1]).toMatchObject({ taskId: mine[0]!.taskId, contextId: mine[0]!.contextId });
    // The answer went once: the task as it stood right after still showed the question, which is not asked again.
    const exchanges = (await dotplan.events.list({ planId: plan.id, kind: 'remote' })).map((e) => `${String(e.detail?.direction)}:${String(e.detail?.text)}`);
    expect(exchanges).toEqual(['sent:please ask me again', 'received:Which colour should it be?', 'sent:green', 'received:chose green']);
  });

  it('a card whose interface points at another host is refused unless allowHosts names it', async () => {
    const elsewhere = await startAgent('--port', '0', '--card-url', 'http://localhost:9/a2a/jsonrpc');
    try {
      const dotplan = await open({ url: elsewhere.base });
      const plan = await dotplan.create({ dot: `digraph p { n [type=agent agentCode=helper task="hello"] }` });
      worker = dotplan.worker().start();
      expect(await ended(dotplan, plan.id)).toBe('failed');
      const node = await dotplan.node(plan.id, 'n');
      expect(node.error).toMatch(/sends requests to localhost:9, another host than 127\.0\.0\.1:\d+; add "localhost:9" to the agent's allowHosts/);
      expect(node.attempts).toBe(1);
      expect((await stats(elsewhere)).tasks).toBe(0);
    } finally {
      await elsewhere.stop();
    }
  });
});
