import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { InvalidInputError } from '../../src/errors/errors.js';
import { createLlmClient, LlmError, llmSettings, type LlmSettings } from '../../src/llm/client.js';
import { startScriptedServer, type Script, type ScriptedServer } from '../../src/llm/scripted-server.js';
import { waitUntil } from '../support/wait.js';

/** The engine's LLM client against the scripted server, through the real `openai` package. */
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: Script): Promise<ScriptedServer> {
  const server = await startScriptedServer({ script });
  servers.push(server);
  return server;
}

function client(server: ScriptedServer, settings: Partial<LlmSettings> = {}) {
  return createLlmClient({ baseURL: server.url, model: 'test-model', timeoutMs: 10_000, maxRetries: 3, ...settings });
}

const user = (content: string) => [{ role: 'user' as const, content }];

async function llmError(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  expect(error).toMatchObject({ code: 'LLM_FAILED' });
  return error as LlmError;
}

const Verdict = z.object({ ok: z.boolean(), reason: z.string() });

describe('LLM client', () => {
  it('returns the reply with its model, token counts and time', async () => {
    const server = await serve({ model: 'served-model', replies: [{ content: '@EP@ ... @EP@', usage: { prompt_tokens: 321, completion_tokens: 12 } }] });
    const llm = client(server);
    expect(llm.model).toBe('test-model');
    const result = await llm.chat([
      { role: 'system', content: 'you write plans' },
      { role: 'user', content: 'goal: count the rows' },
    ]);
    expect(result).toMatchObject({ value: '@EP@ ... @EP@', text: '@EP@ ... @EP@', model: 'served-model', promptTokens: 321, completionTokens: 12 });
    expect(result.ms).toBeGreaterThanOrEqual(0);
    expect(server.requests[0]?.body).toMatchObject({ model: 'test-model', messages: [{ role: 'system' }, { role: 'user', content: 'goal: count the rows' }] });
  });

  it('judges with structured output checked by a zod schema', async () => {
    const server = await serve({ replies: [{ json: { ok: false, reason: 'the table is empty' } }, { json: { ok: 'yes' } }] });
    const llm = client(server);
    const judged = await llm.judge(user('is this output right?'), Verdict, 'verdict');
    expect(judged.value).toEqual({ ok: false, reason: 'the table is empty' });
    expect(judged.text).toBe('{"ok":false,"reason":"the table is empty"}');
    expect(server.requests[0]?.body).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'verdict' } } });

    // A reply that does not fit the schema is not retried and names what is wrong.
    const error = await llmError(llm.judge(user('and this one?'), Verdict, 'verdict'));
    expect(error.failure).toBe('reply');
    expect(error.message).toContain(server.url);
    expect(error.message).toMatch(/ok: .*boolean/);
    expect(error.message).toMatch(/reason: /);
    expect(server.requests).toHaveLength(2);
  });

  it('retries an endpoint that answers 500 twice, and the time covers every attempt', async () => {
    const server = await serve({ replies: [{ status: 500 }, { status: 500 }, { content: 'finally' }] });
    const result = await client(server).chat(user('hello'));
    expect(result.value).toBe('finally');
    expect(server.requests.map((r) => r.status)).toEqual([500, 500, 200]);
    // Backoff of the openai package: about 0.5 s then 1 s (minus up to 25% jitter).
    expect(result.ms).toBeGreaterThanOrEqual(1100);
  });

  it('retries a rate limit (429)', async () => {
    const server = await serve({ replies: [{ status: 429, content: 'Rate limit reached for requests' }, { content: 'ok' }] });
    expect((await client(server).chat(user('hello'))).value).toBe('ok');
    expect(server.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it('names the endpoint, the status and the model message when retries run out', async () => {
    const server = await serve({ replies: [{ status: 503, content: 'The engine is currently overloaded', repeat: true }] });
    const error = await llmError(client(server, { maxRetries: 1 }).chat(user('hello')));
    expect(error.message).toBe(`LLM endpoint ${server.url}/chat/completions answered HTTP 503 (after 1 retry): The engine is currently overloaded`);
    expect(error).toMatchObject({ status: 503, failure: 'status', endpoint: `${server.url}/chat/completions` });
    expect(error.message).not.toMatch(/\n\s+at /);
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a request the endpoint refuses (400)', async () => {
    const server = await serve({ replies: [{ status: 400, content: "This model's maximum context length is 8192 tokens", repeat: true }] });
    const error = await llmError(client(server).chat(user('a very long prompt')));
    expect(error.message).toMatch(/answered HTTP 400: This model's maximum context length is 8192 tokens$/);
    expect(server.requests).toHaveLength(1);
  });

  it('fails with the endpoint named when it does not answer in time', async () => {
    const server = await serve({ replies: [{ content: 'too late', delayMs: 5_000 }] });
    const started = Date.now();
    const error = await llmError(client(server, { timeoutMs: 200, maxRetries: 0 }).chat(user('hello')));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.failure).toBe('timeout');
    expect(error.message).toBe(`LLM endpoint ${server.url}/chat/completions did not answer within 200 ms (after 0 retries; setting openai.timeoutMs)`);
  });

  it('fails with the endpoint named when nothing listens there', async () => {
    const server = await startScriptedServer({ script: { replies: [{ content: 'unused' }] } });
    await server.close();
    const error = await llmError(client(server, { maxRetries: 0 }).chat(user('hello')));
    expect(error.failure).toBe('connection');
    expect(error.message).toMatch(
      new RegExp(`^cannot reach LLM endpoint ${server.url.replace(/\./g, '\\.')}/chat/completions \\(after 0 retries\\): .*ECONNREFUSED`),
    );
  });

  it('stops when the caller aborts', async () => {
    const server = await serve({ replies: [{ content: 'slow', delayMs: 5_000 }] });
    const controller = new AbortController();
    const asked = llmError(client(server).chat(user('hello'), { signal: controller.signal }));
    await waitUntil(() => server.requests.length > 0, 'the request to reach the server');
    controller.abort();
    const error = await asked;
    expect(error.failure).toBe('cancelled');
    expect(server.requests).toHaveLength(1);
  });

  it('needs an API key or a base URL', () => {
    expect(() => createLlmClient({ model: 'gpt-4o-mini', timeoutMs: 1000, maxRetries: 0 })).toThrow(InvalidInputError);
    expect(() => createLlmClient({ model: 'gpt-4o-mini', timeoutMs: 1000, maxRetries: 0 })).toThrow(/set OPENAI_API_KEY .*or OPENAI_BASE_URL/);
    expect(() => createLlmClient({ model: 'gpt-4o-mini', timeoutMs: 1000, maxRetries: 0, apiKey: 'sk-test' })).not.toThrow();
  });

  it('takes its settings from the resolved config, the key from the variable it names', async () => {
    const server = await serve({ replies: [{ status: 500 }, { content: 'configured' }] });
    const cwd = mkdtempSync(join(tmpdir(), 'dotplan-llm-config-'));
    const env = { OPENAI_BASE_URL: server.url, OPENAI_MODEL: 'local-model', OPENAI_TIMEOUT_MS: '5000', OPENAI_MAX_RETRIES: '0', OPENAI_API_KEY: 'sk-local' };
    const settings = llmSettings(await resolveConfig({ env, cwd }));
    expect(settings).toEqual({ baseURL: server.url, apiKey: 'sk-local', apiKeyEnv: 'OPENAI_API_KEY', model: 'local-model', timeoutMs: 5000, maxRetries: 0 });
    // maxRetries 0 from the environment: the 500 is not retried.
    await llmError(createLlmClient(settings).chat(user('hello')));
    expect(server.requests).toHaveLength(1);

    const keyless = llmSettings(await resolveConfig({ env: { OPENAI_BASE_URL: server.url }, cwd }));
    expect(keyless.apiKey).toBeUndefined();
    expect((await createLlmClient(keyless).chat(user('hello'))).value).toBe('configured');

    const nothing = llmSettings(await resolveConfig({ env: {}, cwd }));
    expect(() => createLlmClient(nothing)).toThrow(/no LLM endpoint is configured: set OPENAI_API_KEY/);
  });
});
