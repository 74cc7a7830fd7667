import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidInputError } from '../../src/errors/errors.js';
import { checkScript, loadScript, startScriptedServer, type Script, type ScriptedServer } from '../../src/llm/scripted-server.js';
import { waitUntil } from '../support/wait.js';

/** The scripted server as the real `openai` client sees it. */
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: Script, recordFile?: string): Promise<{ server: ScriptedServer; openai: OpenAI }> {
  const server = await startScriptedServer({ script, ...(recordFile ? { recordFile } : {}) });
  servers.push(server);
  return { server, openai: new OpenAI({ baseURL: server.url, apiKey: 'unused', maxRetries: 0 }) };
}

function ask(openai: OpenAI, ...messages: string[]) {
  return openai.chat.completions.create({ model: 'test-model', messages: messages.map((content) => ({ role: 'user' as const, content })) });
}

async function failure(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'dotplan-llm-'));
}

describe('scripted server', () => {
  it('answers in script order, then says that nothing matches', async () => {
    const { server, openai } = await serve({ replies: [{ content: 'first' }, { content: 'second' }] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const one = await ask(openai, 'hello');
    expect(one.object).toBe('chat.completion');
    expect(one.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'first', refusal: null });
    expect(one.choices[0]?.finish_reason).toBe('stop');
    expect(one.model).toBe('test-model');
    expect((await ask(openai, 'hello again')).choices[0]?.message.content).toBe('second');
    expect(server.remaining()).toBe(0);

    const error = await failure(ask(openai, 'one more question, please'));
    expect(error.status).toBe(500);
    expect(error.message).toContain('no scripted reply matches this request');
    expect(error.message).toContain('one more question, please');
    expect(server.requests.map((r) => r.reply)).toEqual([0, 1, 'unmatched']);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', status: 200, body: { model: 'test-model' } });
  });

  it('chooses by regular expression on the last message; repeat entries stay usable', async () => {
    const { server, openai } = await serve({
      replies: [{ match: 'weather', content: 'sunny' }, { match: '^plan \\w+$', content: 'a plan', repeat: true }, { content: 'in order' }],
    });
    expect((await ask(openai, 'plan A')).choices[0]?.message.content).toBe('a plan');
    expect((await ask(openai, 'plan B')).choices[0]?.message.content).toBe('a plan');
    // Only the last message counts: "weather" in an earlier one does not match.
    expect((await ask(openai, 'the weather?', 'hello')).choices[0]?.message.content).toBe('in order');
    expect((await ask(openai, 'and the weather?')).choices[0]?.message.content).toBe('sunny');
    expect((await ask(openai, 'plan C')).choices[0]?.message.content).toBe('a plan');
    expect(server.requests.map((r) => r.reply)).toEqual([1, 1, 2, 0, 1]);
    expect(server.remaining()).toBe(0);
    const error = await failure(ask(openai, 'what now'));
    expect(error.message).toMatch(/no scripted reply matches .*what now/);
  });

  it('answers structured output that the real client parses with a zod schema', async () => {
    const { server, openai } = await serve({ replies: [{ json: { verdict: 'pass', reasons: ['the output has 3 rows'] } }] });
    const Judgement = z.object({ verdict: z.enum(['pass', 'fail']), reasons: z.array(z.string()) });
    const completion = await openai.chat.completions.parse({
      model: 'test-model',
      messages: [{ role: 'user', content: 'judge this' }],
      response_format: zodResponseFormat(Judgement, 'judgement'),
    });
    expect(completion.choices[0]?.message.parsed).toEqual({ verdict: 'pass', reasons: ['the output has 3 rows'] });
    expect(server.requests[0]?.body).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'judgement', strict: true } } });
  });

  it('reports the scripted usage, or a rough count of characters / 4, and the script model', async () => {
    const { openai } = await serve({
      model: 'scripted-model',
      replies: [{ content: 'ok', usage: { prompt_tokens: 123, completion_tokens: 45 } }, { content: 'x'.repeat(40) }],
    });
    const scripted = await ask(openai, 'hello');
    expect(scripted.usage).toEqual({ prompt_tokens: 123, completion_tokens: 45, total_tokens: 168 });
    expect(scripted.model).toBe('scripted-model');
    const counted = await ask(openai, 'y'.repeat(80));
    expect(counted.usage).toEqual({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
  });

  it('answers a scripted error status with an OpenAI-style body, after a delay when asked', async () => {
    const { server, openai } = await serve({ replies: [{ status: 400, content: 'context length exceeded', delayMs: 150 }] });
    const started = Date.now();
    const error = await failure(ask(openai, 'too long'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ message: 'context length exceeded', type: 'invalid_request_error' });
    expect(server.requests[0]).toMatchObject({ reply: 0, status: 400 });
  });

  it('refuses streaming with a clear message and lists its model', async () => {
    const { server, openai } = await serve({ model: 'local-model', replies: [{ content: 'never streamed' }] });
    const error = await failure(openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/does not stream/);
    expect(server.remaining()).toBe(1);
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['local-model']);
  });

  it('appends every request to the record file as a JSON line', async () => {
    const record = join(tempDir(), 'requests.jsonl');
    const { openai } = await serve({ replies: [{ match: 'ping', content: 'pong' }] }, record);
    await ask(openai, 'ping');
    await failure(ask(openai, 'unexpected'));
    const lines = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', reply: 0, body: { messages: [{ role: 'user', content: 'ping' }] } });
    expect(lines[1]).toMatchObject({ reply: 'unmatched', status: 500 });
  });

  it('closes at once even while a delayed reply is waiting', async () => {
    const server = await startScriptedServer({ script: { replies: [{ content: 'late', delayMs: 30_000 }] } });
    const openai = new OpenAI({ baseURL: server.url, apiKey: 'unused', maxRetries: 0 });
    const pending = ask(openai, 'hello').then(
      () => 'answered',
      () => 'failed',
    );
    await waitUntil(() => server.requests.length > 0, 'the request to arrive');
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await pending).toBe('failed');
  });
});

describe('loadScript', () => {
  function scriptFile(content: string): string {
    const path = join(tempDir(), 'script.json');
    writeFileSync(path, content);
    return path;
  }

  async function refused(content: string): Promise<string> {
    const path = scriptFile(content);
    const error = await loadScript(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    const message = (error as Error).message;
    expect(message).toContain(path);
    return message;
  }

  it('reads a valid script', async () => {
    const path = scriptFile(JSON.stringify({ model: 'm', replies: [{ match: 'a+', content: 'x', repeat: true }, { json: { ok: true } }, { status: 429 }] }));
    expect(await loadScript(path)).toEqual({ model: 'm', replies: [{ match: 'a+', content: 'x', repeat: true }, { json: { ok: true } }, { status: 429 }] });
  });

  it('names the file, the entry and the fix of a bad script', async () => {
    expect(await refused(JSON.stringify({ replies: [{ content: 'ok' }, { match: '(unclosed', content: 'x' }] }))).toMatch(
      /replies\[1\]: "match" is not a regular expression .*; escape special characters/,
    );
    expect(await refused(JSON.stringify({ replies: [{ contnet: 'typo' }] }))).toMatch(
      /replies\[0\]: "contnet" is not a reply key; use match, matchAny, content, json/,
    );
    expect(await refused(JSON.stringify({ replies: [{ content: 'a' }, { content: 'b' }, { repeat: true }] }))).toMatch(
      /replies\[2\]: gives no reply; add "content", "json", "toolCalls" or "status"/,
    );
    expect(await refused(JSON.stringify({ replies: [{ status: 200 }] }))).toMatch(/replies\[0\]: "status" must be an HTTP error status from 400 to 599/);
    expect(await refused(JSON.stringify({ replies: [{ content: 'a', usage: { prompt_tokens: 1 } }] }))).toMatch(/replies\[0\]: "usage" must be/);
    expect(await refused(JSON.stringify({ replies: [] }))).toMatch(/"replies": must be a non-empty array/);
    expect(await refused('{ "replies": [ }')).toMatch(/is not valid JSON/);
    const missing = await loadScript('/nonexistent/script.json').catch((e: Error) => e.message);
    expect(missing).toBe('cannot read script /nonexistent/script.json: no such file');
  });

  it('checks a script given as an object before the server starts', async () => {
    expect(() => checkScript({ replies: [{ content: 'a', delayMs: -1 }] })).toThrow(/script: replies\[0\]: "delayMs" must be a whole number/);
    await expect(startScriptedServer({ script: { replies: [{ json: {}, content: 'both' }] } })).rejects.toThrow(/"json" cannot be combined/);
  });
});
