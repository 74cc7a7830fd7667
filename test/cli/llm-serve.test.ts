import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLlmClient } from '../../src/llm/client.js';
import { cleanEnv, runDotplan, spawnDotplan, type DotplanProcess } from '../support/cli.js';

/** `dotplan llm serve` as a user runs it (the built dist/: `npm run build` first), answering the engine's real client. */
const started: DotplanProcess[] = [];
afterEach(() => {
  for (const p of started.splice(0)) p.kill('SIGKILL');
});

function scriptFile(script: unknown): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-llm-serve-'));
  const path = join(dir, 'script.json');
  writeFileSync(path, typeof script === 'string' ? script : JSON.stringify(script));
  return { dir, path };
}

describe('dotplan llm serve', () => {
  it('answers the real client on a free port and ends with exit 0 on SIGTERM', async () => {
    const { dir, path } = scriptFile({ model: 'scripted', replies: [{ match: 'judge', json: { ok: true } }, { content: 'hello from the script' }] });
    const record = join(dir, 'requests.jsonl');
    const server = spawnDotplan(['llm', 'serve', '--script', path, '--port', '0', '--record', record], { env: cleanEnv() });
    started.push(server);
    const line = await server.waitForOutput(/^listening on /);
    const url = /^listening on (http:\/\/127\.0\.0\.1:(\d+)\/v1) \(2 scripted replies\)$/.exec(line);
    expect(url, line).not.toBeNull();
    expect(Number(url![2])).toBeGreaterThan(0);
    expect(await server.waitForOutput(/^export OPENAI_BASE_URL=/)).toBe(`export OPENAI_BASE_URL=${url![1]}`);

    const llm = createLlmClient({ baseURL: url![1], model: 'any', timeoutMs: 10_000, maxRetries: 0 });
    const reply = await llm.chat([{ role: 'user', content: 'say hello' }]);
    expect(reply).toMatchObject({ value: 'hello from the script', model: 'scripted' });

    server.kill('SIGTERM');
    const exit = await server.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toMatch(/SIGTERM: stopped after 1 request; 1 of 2 replies used, 1 unused/);
    const lines = readFileSync(record, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ method: 'POST', path: '/v1/chat/completions', reply: 1 });
  });

  it('refuses a bad script with exit 1, naming the file and the entry', async () => {
    const { path } = scriptFile({ replies: [{ content: 'fine' }, { match: '[unclosed', content: 'x' }] });
    const result = await runDotplan(['llm', 'serve', '--script', path], { env: cleanEnv() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`script ${path}: replies[1]: "match" is not a regular expression`);
    expect(result.stderr).toContain('[INVALID_INPUT]');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toMatch(/listening on/);
  });

  it('refuses a port that is not a number as a usage error', async () => {
    const { path } = scriptFile({ replies: [{ content: 'fine' }] });
    const result = await runDotplan(['llm', 'serve', '--script', path, '--port', 'http'], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--port "http": must be a port number/);
  });
});
