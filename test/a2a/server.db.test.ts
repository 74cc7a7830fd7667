/**
 * dotplan as an A2A agent, as another agent reaches it: a real `dotplan serve --worker` process on a
 * loopback port, driven by the A2A SDK's own client (`ClientFactory`, JSON-RPC, protocol 1.0) with the
 * API's tokens. A template skill makes a plan whose question comes back as INPUT_REQUIRED with its
 * options; the reply answers it and the task completes with the end node's output as its artifact; a
 * review is rejected; a task is cancelled; bad input is an A2A error naming the fix; each method needs
 * its scope; and after the server is stopped and started again on the same database, the same client
 * polls the same tasks and finishes one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/llm/scripted-server.js';
import { testBackend, testDatabase } from '../support/db.js';
import { cleanEnv } from '../support/run.js';
import { runDotplanProcess, spawnDotplan, type DotplanProcess } from '../support/subprocess.js';
import { waitUntil } from '../support/wait.js';
import { clientFor, data, dataOf, refusal, send, statusText, text, writeTemplates } from './server-fixture.js';

const LISTENING = /dotplan serve on (http:\/\/127\.0\.0\.1:(\d+))/;

/** The goal skill's plan, as the scripted model writes it: one step, then the final answer from its result. */
const GOAL = 'Say hello to the team';
const PLAN =
  '@epupdatelog@\n- one step\n@epupdatelog@\n@EP@\n*graph=digraph G {\n  greet [type=function toolCode=echo toolInput="hello team" status="ready"];\n}\n@EP@\n';

describe(`dotplan as an A2A agent (${testBackend()})`, () => {
  let cwd: string;
  let url: string;
  let drop: (() => Promise<void>) | undefined;
  let server: DotplanProcess | undefined;
  let llm: ScriptedServer;
  let base: string;
  let port: string;
  const tokens: Record<'operate' | 'answer' | 'read', string> = { operate: '', answer: '', read: '' };
  const clients = {} as Record<'operate' | 'answer' | 'read', Client>;
  /** Tasks the restart test reads again. */
  const seen: { completed?: Task; cancelled?: Task } = {};

  const start = async (onPort: string) => {
    server = spawnDotplan(['serve', '--port', onPort, '--worker', '--no-ui', '--db', url], {
      cwd,
      env: cleanEnv({ OPENAI_BASE_URL: llm.url }),
      timeoutMs: 300_000,
    });
    const match = LISTENING.exec(await server.waitForOutput(LISTENING, 30_000))!;
    base = match[1]!;
    port = match[2]!;
  };
  const stop = async () => {
    server?.kill('SIGTERM');
    const exit = await server?.exited;
    expect(exit?.code, exit?.stderr).toBe(0);
    expect(exit?.stderr).not.toMatch(/\n\s+at /);
  };
  /** A JSON-RPC request as any client sends it, without the SDK. */
  const rpc = async (body: unknown, headers: Record<string, string> = { 'a2a-version': '1.0' }) => {
    const response = await fetch(`${base}/v1/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.operate}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as { error?: { code: number; message: string }; result?: unknown } };
  };

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-a2a-'));
    writeTemplates(cwd);
    ({ url, drop } = await testDatabase(cwd));
    llm = await startScriptedServer({
      script: {
        replies: [
          { match: '^## Goal\\n[^#]*\\n\\n## Results', content: 'Hello, team!' },
          { matchAny: GOAL, match: 'There is no plan yet', content: PLAN },
          { matchAny: GOAL, repeat: true, content: PLAN.replace(' status="ready"', '') },
        ],
      },
    });
    for (const scope of ['operate', 'answer', 'read'] as const) {
      const made = await runDotplanProcess(['token', 'create', '--name', `${scope}-agent`, '--scope', scope, '--db', url], { cwd });
      expect(made.code, made.stderr).toBe(0);
      tokens[scope] = made.stdout.trim();
    }
    await start('0');
    for (const scope of ['operate', 'answer', 'read'] as const) clients[scope] = await clientFor(base, tokens[scope]);
  });

  afterAll(async () => {
    server?.kill('SIGTERM');
    await server?.exited;
    await llm?.close();
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('publishes its agent card without a token: a skill per template and goal, JSON-RPC 1.0 at /v1/a2a, the bearer scheme', async () => {
    const response = await fetch(`${base}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    const card = (await response.json()) as {
      name: string;
      supportedInterfaces: Array<{ url: string; protocolBinding: string; protocolVersion: string }>;
      securitySchemes: Record<string, { httpAuthSecurityScheme?: { scheme: string } }>;
      skills: Array<{ id: string; description: string; examples: string[] }>;
    };
    expect(card.name).toBe('dotplan');
    expect(card.supportedInterfaces).toEqual([expect.objectContaining({ url: `${base}/v1/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' })]);
    expect(card.securitySchemes.bearer?.httpAuthSecurityScheme?.scheme).toBe('Bearer');
    const ids = card.skills.map((s) => s.id);
    expect(ids).toEqual(expect.arrayContaining(['ship', 'slow', 'approval', 'goal']));
    const ship = card.skills.find((s) => s.id === 'ship')!;
    expect(ship.description).toContain('version (required), channel (default "stable")');
    expect(JSON.parse(ship.examples[0]!)).toEqual({ skill: 'ship', values: { version: '<version>' } });
    // The SDK's client read the same card.
    expect((await clients.read.getAgentCard()).skills.map((s) => s.id)).toEqual(ids);
    // The endpoint itself needs a token once one exists.
    const anonymous = await fetch(`${base}/v1/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
  });

  it('makes a plan from a template skill, asks its question as INPUT_REQUIRED with the options, and completes with the result after the reply', async () => {
    const task = (await clients.operate.sendMessage(send([data({ skill: 'ship', values: { version: '2.0' } })]))) as Task;
    expect(task.id).toMatch(/^p_/);
    expect(task.contextId).toBe(task.id);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(statusText(task)).toContain('node "ask" asks: Ship version 2.0 for stable now? Options: yes, no.');
    expect(dataOf(task.status?.message?.parts)).toMatchObject({
      waiting: [{ kind: 'question', planId: task.id, nodeId: 'ask', question: 'Ship version 2.0 for stable now?', options: ['yes', 'no'] }],
    });
    expect(task.metadata).toMatchObject({ dotplan: { planId: task.id, status: 'running', template: 'ship' } });

    // The reply in the task (a token with the answer scope is enough): its text answers the question.
    const done = (await clients.answer.sendMessage(send([text('yes')], { task }))) as Task;
    expect(done.id).toBe(task.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts).toHaveLength(1);
    const [result] = done.artifacts;
    expect(result?.name).toBe('result');
    expect(result?.parts[0]?.content).toEqual({ $case: 'text', value: 'shipped 2.0 to stable' });
    expect(dataOf(result?.parts)).toEqual({ outputs: [{ node: 'ship', output: 'shipped 2.0 to stable' }] });
    // It is the plan's own state: the answer and who gave it, over the HTTP API.
    const node = (await (await fetch(`${base}/v1/plans/${task.id}/nodes/ask`, { headers: { authorization: `Bearer ${tokens.read}` } })).json()) as {
      answer?: string;
      events?: Array<{ kind: string; actor?: string }>;
    };
    expect(node.answer).toBe('yes');
    expect(node.events?.find((e) => e.kind === 'answer')?.actor).toBe('answer-agent');
    expect(await clients.read.getTask({ tenant: '', id: task.id })).toEqual(done);
    seen.completed = done;
  });

  it("takes a text message without a skill as a goal: the LLM's plan runs, and its final answer is the artifact", async () => {
    const task = (await clients.operate.sendMessage(send([text(GOAL)]))) as Task;
    expect(task.status?.state, statusText(task)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.metadata).toMatchObject({ dotplan: { mode: 'reflection', status: 'completed' } });
    const [result] = task.artifacts;
    expect(result?.parts[0]?.content).toEqual({ $case: 'text', value: 'Hello, team!' });
    expect(dataOf(result?.parts)).toEqual({ answer: 'Hello, team!', outputs: [{ node: 'greet', output: 'hello team' }] });
  });

  it('shows a plan under review as INPUT_REQUIRED with the plan; a rejection needs a reason, and ends the task REJECTED', async () => {
    const task = (await clients.operate.sendMessage(send([data({ skill: 'ship', values: { version: '9' }, review: true })]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(statusText(task)).toContain('waits for a review before it runs. Reply "approve"');
    expect(dataOf(task.status?.message?.parts)).toMatchObject({ waiting: [{ kind: 'review', planId: task.id }], dot: expect.stringContaining('digraph') });
    const bare = await refusal(() => clients.answer.sendMessage(send([text('reject')], { task })));
    expect(bare.message).toContain('a rejection says why: reply "reject <reason>"');
    const rejected = (await clients.answer.sendMessage(send([text('reject: not this week')], { task }))) as Task;
    expect(rejected.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(statusText(rejected)).toContain('rejected in review: not this week');
  });

  it('cancels a task that works: CANCELED, its plan cancelled; a reply to a task that asks nothing is refused, saying why', async () => {
    const task = (await clients.operate.sendMessage(send([data({ skill: 'slow' })], { returnImmediately: true }))) as Task;
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status?.state);
    const early = await refusal(() => clients.answer.sendMessage(send([text('yes')], { task })));
    expect(early.message).toMatch(/^task p_\w+ asks nothing now: it is WORKING \(plan running\); reply only while it is INPUT_REQUIRED/);

    const cancelled = await clients.operate.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(statusText(cancelled)).toContain('was cancelled');
    const plan = (await (await fetch(`${base}/v1/plans/${task.id}`, { headers: { authorization: `Bearer ${tokens.read}` } })).json()) as {
      plan: { status: string };
    };
    expect(plan.plan.status).toBe('cancelled');
    // Cancelling again says the same; a cancelled task takes no more messages.
    expect((await clients.operate.cancelTask({ tenant: '', id: task.id, metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const late = await refusal(() => clients.answer.sendMessage(send([text('yes')], { task })));
    expect(late.message).toContain('is CANCELED (plan cancelled) and takes no more messages; send a message without taskId to start a new task');
    seen.cancelled = cancelled;
  });

  it('ends a blocking SendMessage that waits on a working plan with CANCELED when another call cancels the task', async () => {
    const newest = async () =>
      (
        (await (await fetch(`${base}/v1/plans?limit=1`, { headers: { authorization: `Bearer ${tokens.read}` } })).json()) as {
          plans: Array<{ id: string; title: string; status: string }>;
        }
      ).plans[0];
    const before = (await newest())?.id;
    const waiting = clients.operate.sendMessage(send([data({ skill: 'slow', title: 'Slow, waited on' })])) as Promise<Task>;
    const plan = await waitUntil(async () => {
      const latest = await newest();
      return latest !== undefined && latest.id !== before && latest.title === 'Slow, waited on' && latest.status === 'running' && latest;
    }, 'the waited-on plan to be created and running');
    const cancelled = await clients.operate.cancelTask({ tenant: '', id: plan.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const answered = await waiting;
    expect(answered.id).toBe(plan.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('refuses bad input with an A2A error that names the fix, never a stack trace, and goes on serving', async () => {
    const unknown = await refusal(() => clients.operate.sendMessage(send([data({ skill: 'deploy' })])));
    expect(unknown.envelopeCode).toBe(-32602);
    expect(unknown.message).toMatch(/^unknown skill "deploy": this agent's skills are .*\bship\b.*\bgoal\b/);
    const missing = await refusal(() => clients.operate.sendMessage(send([data({ skill: 'ship' })])));
    expect(missing.envelopeCode).toBe(-32602);
    expect(missing.message).toContain('version');
    expect(missing.message).toContain('required');
    const nothing = await refusal(() => clients.operate.sendMessage(send([data({ values: { version: '1' } })])));
    expect(nothing.message).toContain('the message names no skill and has no text');
    const noTask = await refusal(() => clients.read.getTask({ tenant: '', id: 'p_nosuchplan' }));
    expect(noTask.envelopeCode).toBe(-32001);
    expect(noTask.message).toContain('no task "p_nosuchplan" on this server');

    // An answer that is not among the options: refused, the question still waits.
    const task = (await clients.operate.sendMessage(send([data({ skill: 'ship', values: { version: '5' } })]))) as Task;
    const maybe = await refusal(() => clients.answer.sendMessage(send([text('maybe')], { task })));
    expect(maybe.message).toMatch(/yes.*no/);
    expect((await clients.read.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const elsewhere = await refusal(() => clients.answer.sendMessage(send([text('yes')], { task: { id: task.id, contextId: 'ctx-1' } })));
    expect(elsewhere.message).toContain(`a task's context id is its plan id, "${task.id}"`);

    // What the SDK's client would never send: a 0.3 method name, no params, no version header, a body that is not JSON.
    const legacy = await rpc({ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} });
    expect(legacy.json.error).toMatchObject({ code: -32601, message: expect.stringContaining('this agent answers SendMessage, GetTask, CancelTask') });
    const noParams = await rpc({ jsonrpc: '2.0', id: 2, method: 'GetTask' });
    expect(noParams.json.error).toMatchObject({ code: -32602, message: expect.stringContaining('"params" must be an object') });
    const noMessage = await rpc({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: {} });
    expect(noMessage.json.error?.message).toContain('params.message is required');
    const old = await rpc({ jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: task.id } }, {});
    expect(old.json.error?.message).toContain('send the header A2A-Version: 1.0');
    const stream = await rpc({ jsonrpc: '2.0', id: 5, method: 'SendStreamingMessage', params: { message: { messageId: 'm5', parts: [{ text: 'hi' }] } } });
    expect(stream.json.error).toMatchObject({ code: -32004, message: expect.stringContaining('streaming is not offered') });
    const garbled = await rpc('{"jsonrpc": "2.0", ');
    expect(garbled.json.error).toMatchObject({ code: -32700 });
    for (const answer of [legacy, noParams, noMessage, old, stream, garbled]) expect(JSON.stringify(answer.json)).not.toMatch(/\n\s+at |\\n\s+at /);
    expect((await clients.read.getTask({ tenant: '', id: task.id })).id).toBe(task.id);
  });

  it("needs each move's scope: read for GetTask, answer for a reply, operate for a new task or a cancel", async () => {
    const asReader = await refusal(() => clients.read.sendMessage(send([data({ skill: 'ship', values: { version: '1' } })])));
    expect(asReader.message).toContain("A new task needs the 'operate' scope; the token 'read-agent' has 'read'");
    const asAnswerer = await refusal(() => clients.answer.sendMessage(send([data({ skill: 'ship', values: { version: '1' } })])));
    expect(asAnswerer.message).toContain("needs the 'operate' scope; the token 'answer-agent' has 'answer'");
    const cancel = await refusal(() => clients.answer.cancelTask({ tenant: '', id: seen.completed!.id, metadata: undefined }));
    expect(cancel.message).toContain("CancelTask needs the 'operate' scope");
    const reply = await refusal(() => clients.read.sendMessage(send([text('yes')], { task: seen.completed! })));
    expect(reply.message).toContain("A reply in a task needs the 'answer' scope");
    // A read token reads: a method that is not a read is refused to it before it is looked at.
    const other = await rpc({ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} }, { 'a2a-version': '1.0', authorization: `Bearer ${tokens.read}` });
    expect(other.status).toBe(403);
    expect((other.json as { detail?: string }).detail).toContain('may only call GetTask here (got method "message/send")');
    expect((await clients.read.getTask({ tenant: '', id: seen.completed!.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('answers GetTask from the plans after the server restarts: the same client polls its tasks and finishes one', async () => {
    const waiting = (await clients.operate.sendMessage(send([data({ skill: 'ship', values: { version: '3.0', channel: 'beta' } })]))) as Task;
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const before = base;
    await stop();
    await expect(clients.read.getTask({ tenant: '', id: waiting.id })).rejects.toThrow();
    await start(port);
    expect(base).toBe(before);

    expect(await clients.read.getTask({ tenant: '', id: waiting.id })).toEqual(waiting);
    expect(await clients.read.getTask({ tenant: '', id: seen.completed!.id })).toEqual(seen.completed);
    expect((await clients.read.getTask({ tenant: '', id: seen.cancelled!.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const held = (await clients.answer.sendMessage(send([text('no')], { task: waiting }))) as Task;
    expect(held.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(held.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'held 3.0' });
  });
});
