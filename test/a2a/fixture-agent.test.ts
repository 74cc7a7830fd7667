/**
 * The fixture A2A agent (test/fixtures/a2a/agent.mjs) in a real process, driven by the SDK's own client
 * (`ClientFactory` from `@a2a-js/sdk/client`). It pins down what dotplan's tests rely on the fixture
 * for, and doubles as the contract test of the SDK version: if an upgrade changes how a client is
 * built, how messages and tasks look, or how streams, cancels and subscriptions behave, this fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, TaskState, type AgentCard, type Message, type Part, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait.js';
import { recorded as recordedBy, startAgent, type FixtureAgent } from './agent-fixture.js';

/** A user message with one text part; `to` continues a task (an INPUT_REQUIRED one, say). */
function userMessage(text: string, to?: { taskId: string; contextId: string }): SendMessageRequest {
  return {
    tenant: '',
    metadata: undefined,
    configuration: undefined,
    message: {
      messageId: crypto.randomUUID(),
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
      taskId: to?.taskId ?? '',
      contextId: to?.contextId ?? '',
      extensions: [],
      metadata: undefined,
      referenceTaskIds: [],
    },
  };
}

/** The same, but the send returns as soon as the task exists (`returnImmediately`). */
function returningImmediately(request: SendMessageRequest): SendMessageRequest {
  return { ...request, configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true } };
}

function asTask(result: Message | Task): Task {
  if ('messageId' in result) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

const texts = (parts: Part[] | undefined): string[] => (parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []));
const data = (parts: Part[] | undefined): unknown[] => (parts ?? []).flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as unknown] : []));
const artifactTexts = (task: Task): string[] => task.artifacts.flatMap((a) => texts(a.parts));

/** A stream's events as `task:<state>`, `status:<state>[:<text>]`, `artifact:<text>` (states by name). */
function describeEvent(event: StreamResponse): string {
  const p = event.payload;
  switch (p?.$case) {
    case 'task':
      return `task:${TaskState[p.value.status!.state]}`;
    case 'statusUpdate': {
      const text = texts(p.value.status?.message?.parts).join(' ');
      return `status:${TaskState[p.value.status!.state]}${text ? `:${text}` : ''}`;
    }
    case 'artifactUpdate':
      return `artifact:${texts(p.value.artifact?.parts).join(' ')}`;
    case 'message':
      return `message:${texts(p.value.parts).join(' ')}`;
    default:
      return 'empty';
  }
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of stream) seen.push(describeEvent(event));
  return seen;
}

describe('the fixture A2A agent, through the SDK client', () => {
  let dir = '';
  let recordFile = '';
  let agent: FixtureAgent;
  let client: Client;

  const recorded = () => recordedBy(recordFile);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dotplan-a2a-'));
    recordFile = join(dir, 'record.jsonl');
    agent = await startAgent('--port', '0', '--record', recordFile, '--slow-ms', '1200');
    client = await new ClientFactory().createFromUrl(agent.base);
  });
  afterAll(async () => {
    // SIGTERM ends it cleanly, even with a task still holding.
    expect(await agent?.stop()).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves its card, with both skills, streaming, and the JSON-RPC interface', async () => {
    const card = (await (await fetch(`${agent.base}/.well-known/agent-card.json`)).json()) as AgentCard;
    expect(card.name).toBe('fixture-agent');
    expect(card.description).not.toBe('');
    expect(card.skills.map((s) => s.id)).toEqual(['research', 'translate']);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces).toEqual([{ url: `${agent.base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }]);
    // The client read the same card.
    expect((await client.getAgentCard()).name).toBe('fixture-agent');
  });

  it('"ask": INPUT_REQUIRED with a question and options, then COMPLETED with the answer, recorded', async () => {
    const asked = asTask(await client.sendMessage(userMessage('Please ask me something')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(texts(asked.status?.message?.parts)).toEqual(['Which colour should it be?']);
    const [question] = data(asked.status?.message?.parts) as [{ options: string[] }];
    expect(question.options).toEqual(['red', 'green']);
    // "looking into it" came before, as a WORKING status message: it is in the task's history.
    expect(asked.history.flatMap((m) => texts(m.parts))).toContain('looking into it');

    const answer = question.options[0]!;
    const done = asTask(await client.sendMessage(userMessage(answer, { taskId: asked.id, contextId: asked.contextId })));
    expect(done.id).toBe(asked.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts.map((a) => a.name)).toEqual(['result']);
    expect(artifactTexts(done)).toEqual(['chose red']);

    const mine = recorded().filter((e) => e.taskId === asked.id);
    expect(mine).toEqual([
      {
        event: 'message',
        taskId: asked.id,
        contextId: asked.contextId,
        text: 'Please ask me something',
        parts: [{ text: 'Please ask me something', mediaType: 'text/plain' }],
      },
      { event: 'task', taskId: asked.id },
      { event: 'message', taskId: asked.id, contextId: asked.contextId, text: 'red', parts: [{ text: 'red', mediaType: 'text/plain' }] },
    ]);
  });

  it('"reject" ends REJECTED, "fail" ends FAILED, anything else COMPLETED at once, each with its text', async () => {
    const rejected = asTask(await client.sendMessage(userMessage('Reject this')));
    expect(rejected.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(texts(rejected.status?.message?.parts)).toEqual(['I do not take this kind of task']);

    const failed = asTask(await client.sendMessage(userMessage('FAIL please')));
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(texts(failed.status?.message?.parts)).toEqual(['the fixture failed on purpose']);

    const done = asTask(await client.sendMessage(userMessage('hello there')));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactTexts(done)).toEqual(['done: hello there']);
  });

  it('"hold" stays WORKING until cancelled; cancelTask answers CANCELED, and the cancel is recorded and counted', async () => {
    const held = asTask(await client.sendMessage(returningImmediately(userMessage('hold on'))));
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(held.status?.state);
    await waitUntil(
      async () => (await client.getTask({ tenant: '', id: held.id })).status?.state === TaskState.TASK_STATE_WORKING,
      'the held task to be WORKING',
    );

    const cancelled = await client.cancelTask({ tenant: '', id: held.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: held.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(recorded()).toContainEqual({ event: 'cancel', taskId: held.id });
    const stats = (await (await fetch(`${agent.base}/_stats`)).json()) as { tasks: number; cancels: string[] };
    expect(stats.cancels).toContain(held.id);
    expect(stats.tasks).toBeGreaterThanOrEqual(1);
  });

  it('a streaming send of "slow" yields the task, progress updates, the artifact, then COMPLETED', async () => {
    const seen = await collect(client.sendMessageStream(userMessage('slow please')));
    expect(seen[0]).toBe('task:TASK_STATE_SUBMITTED');
    expect(seen[1]).toBe('status:TASK_STATE_WORKING');
    const progress = seen.filter((e) => e.startsWith('status:TASK_STATE_WORKING:progress '));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.slice(0, 2)).toEqual(['status:TASK_STATE_WORKING:progress 1', 'status:TASK_STATE_WORKING:progress 2']);
    expect(seen.slice(-2)).toEqual(['artifact:slow done', 'status:TASK_STATE_COMPLETED']);
  });

  it('a cancelled "slow" task ends CANCELED and never completes', async () => {
    const slow = asTask(await client.sendMessage(returningImmediately(userMessage('slow, then cancelled'))));
    expect((await client.cancelTask({ tenant: '', id: slow.id, metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const task = await client.getTask({ tenant: '', id: slow.id });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(task.artifacts).toEqual([]);
  });

  it('getTask of a finished task returns its state and artifacts, and is recorded', async () => {
    const done = asTask(await client.sendMessage(userMessage('translate hello')));
    const got = await client.getTask({ tenant: '', id: done.id });
    expect(got).toMatchObject({ id: done.id, contextId: done.contextId, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect(artifactTexts(got)).toEqual(['done: translate hello']);
    expect(texts(got.history[0]?.parts)).toEqual(['translate hello']);
    expect(recorded()).toContainEqual({ event: 'get', taskId: done.id });
  });

  it('another client resubscribing to a WORKING task sees its progress and completion', async () => {
    const started = asTask(await client.sendMessage(returningImmediately(userMessage('slow for someone else'))));
    const other = await new ClientFactory().createFromUrl(agent.base);
    const seen = await collect(other.resubscribeTask({ tenant: '', id: started.id }));
    // First the task as it stands, then what happens to it from then on.
    expect(seen[0]).toMatch(/^task:TASK_STATE_(SUBMITTED|WORKING)$/);
    expect(seen.some((e) => e.startsWith('status:TASK_STATE_WORKING:progress '))).toBe(true);
    expect(seen.slice(-2)).toEqual(['artifact:slow done', 'status:TASK_STATE_COMPLETED']);
    expect(recorded()).toContainEqual({ event: 'subscribe', taskId: started.id });
    // A finished task cannot be subscribed to.
    await expect(collect(other.resubscribeTask({ tenant: '', id: started.id }))).rejects.toThrow(/terminal state/);
  });

  describe('with --token', () => {
    let secured: FixtureAgent;
    beforeAll(async () => {
      secured = await startAgent('--token', 's3cret');
    });
    afterAll(async () => {
      expect(await secured?.stop()).toBe(0);
    });

    it('answers JSON-RPC without the bearer token with HTTP 401, keeps the card public, and works with it', async () => {
      const raw = await fetch(`${secured.base}/a2a/jsonrpc`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      expect(raw.status).toBe(401);

      // The card needs no token, so the client is built as usual.
      const securedClient = await new ClientFactory().createFromUrl(secured.base);
      await expect(securedClient.sendMessage(userMessage('hi'))).rejects.toThrow(/401/);
      await expect(collect(securedClient.sendMessageStream(userMessage('hi')))).rejects.toThrow(/401/);
      const wrong = { serviceParameters: { Authorization: 'Bearer nope' } };
      await expect(securedClient.sendMessage(userMessage('hi'), wrong)).rejects.toThrow(/401/);

      const auth = { serviceParameters: { Authorization: 'Bearer s3cret' } };
      const done = asTask(await securedClient.sendMessage(userMessage('hi'), auth));
      expect(artifactTexts(done)).toEqual(['done: hi']);
      expect((await securedClient.getTask({ tenant: '', id: done.id }, auth)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(await collect(securedClient.sendMessageStream(userMessage('hello'), auth))).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'artifact:done: hello',
        'status:TASK_STATE_COMPLETED',
      ]);
    });
  });

  describe('with --card-url', () => {
    let pointing: FixtureAgent;
    beforeAll(async () => {
      pointing = await startAgent('--card-url', `${agent.base}/a2a/jsonrpc`);
    });
    afterAll(async () => {
      expect(await pointing?.stop()).toBe(0);
    });

    it('puts that URL in its card, and the client sends there', async () => {
      const pointed = await new ClientFactory().createFromUrl(pointing.base);
      const done = asTask(await pointed.sendMessage(userMessage('where do I go')));
      // The task lives at the agent the card points at, not at the one that served the card.
      expect((await client.getTask({ tenant: '', id: done.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const stats = (await (await fetch(`${pointing.base}/_stats`)).json()) as { tasks: number };
      expect(stats.tasks).toBe(0);
    });
  });
});
