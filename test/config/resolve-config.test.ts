import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { DotplanError } from '../../src/errors/errors.js';

function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-config-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** A bad setting is a CONFIG error; a bad command-line flag a USAGE error (exit 2). */
async function configError(promise: Promise<unknown>, code = 'CONFIG'): Promise<DotplanError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DotplanError);
  expect(error).toMatchObject({ code });
  return error as DotplanError;
}

describe('resolveConfig', () => {
  it('gives the documented defaults when nothing is set', async () => {
    const config = await resolveConfig({ env: {}, cwd: folder() });
    expect(config).toEqual(defaultConfig());
    expect(config.databaseUrl).toBeUndefined();
    expect(config.worker).toEqual({ poll: '*/30 * * * * *', concurrency: 4, leaseMs: 10_000, llmSlots: 1 });
    expect(config.reflection.retryDelay).toBe('1s');
    expect(config.retry).toMatchObject({ retries: 0, retryDelay: '1s' });
    expect(config.notify.reminderInterval).toBe('1h');
    expect(config.openai).toMatchObject({ timeoutMs: 60_000, maxRetries: 3 });
  });

  it('reads http.allowPrivate from the file or DOTPLAN_HTTP_ALLOW_PRIVATE, default false', async () => {
    expect((await resolveConfig({ env: {}, cwd: folder() })).http.allowPrivate).toBe(false);
    const cwd = folder({ 'dotplan.config.json': JSON.stringify({ http: { allowPrivate: true } }) });
    expect((await resolveConfig({ env: {}, cwd })).http.allowPrivate).toBe(true);
    expect((await resolveConfig({ env: { DOTPLAN_HTTP_ALLOW_PRIVATE: 'false' }, cwd })).http.allowPrivate).toBe(false);
    const bad = await configError(resolveConfig({ env: { DOTPLAN_HTTP_ALLOW_PRIVATE: 'sure' }, cwd: folder() }));
    expect(bad.message).toBe('DOTPLAN_HTTP_ALLOW_PRIVATE="sure": must be true or false');
  });

  it('layers file < environment < flags', async () => {
    const cwd = folder({
      'dotplan.config.json': JSON.stringify({
        databaseUrl: 'postgres://file/db',
        worker: { concurrency: 2, poll: '*/5 * * * * *' },
        http: { allowHosts: ['file.example'] },
        retry: { retries: 3, timeout: '5m' },
      }),
    });
    const fileOnly = await resolveConfig({ env: {}, cwd });
    expect(fileOnly.databaseUrl).toBe('postgres://file/db');
    expect(fileOnly.worker).toEqual({ poll: '*/5 * * * * *', concurrency: 2, leaseMs: 10_000, llmSlots: 1 });
    expect(fileOnly.retry).toEqual({ retries: 3, retryDelay: '1s', timeout: '5m' });
    expect(fileOnly.configFile).toBe(join(cwd, 'dotplan.config.json'));

    const withEnv = await resolveConfig({
      env: { DATABASE_URL: 'postgres://env/db', DOTPLAN_CONCURRENCY: '8', DOTPLAN_HTTP_ALLOW: 'a.example, b.example', DOTPLAN_LLM_SLOTS: '2' },
      cwd,
    });
    expect(withEnv.databaseUrl).toBe('postgres://env/db');
    expect(withEnv.worker.concurrency).toBe(8);
    expect(withEnv.worker.llmSlots).toBe(2);
    expect(withEnv.http.allowHosts).toEqual(['a.example', 'b.example']);

    const withFlags = await resolveConfig({
      env: { DATABASE_URL: 'postgres://env/db', DOTPLAN_CONCURRENCY: '8' },
      flags: { databaseUrl: 'postgres://flag/db', concurrency: '16', poll: '* * * * *', llmSlots: '3' },
      cwd,
    });
    expect(withFlags.databaseUrl).toBe('postgres://flag/db');
    expect(withFlags.worker).toEqual({ poll: '* * * * *', concurrency: 16, leaseMs: 10_000, llmSlots: 3 });
  });

  it('treats an empty environment variable as unset', async () => {
    const config = await resolveConfig({ env: { DATABASE_URL: '', DOTPLAN_TOOLS: ' ' }, cwd: folder() });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.tools).toEqual([]);
  });

  it('resolves tool paths against the config file folder, or the cwd for env and flags', async () => {
    const cwd = folder({ 'conf/dotplan.json': JSON.stringify({ tools: ['./my-tools.mjs'] }) });
    const fromFile = await resolveConfig({ env: { DOTPLAN_CONFIG: 'conf/dotplan.json' }, cwd });
    expect(fromFile.tools).toEqual([join(cwd, 'conf', 'my-tools.mjs')]);
    const fromEnv = await resolveConfig({ env: { DOTPLAN_TOOLS: 'a.mjs,/abs/b.ts' }, cwd });
    expect(fromEnv.tools).toEqual([join(cwd, 'a.mjs'), '/abs/b.ts']);
    const fromFlags = await resolveConfig({ env: {}, flags: { tools: ['x.mjs', 'y.ts,z.js'] }, cwd });
    expect(fromFlags.tools).toEqual([join(cwd, 'x.mjs'), join(cwd, 'y.ts'), join(cwd, 'z.js')]);
  });

  it('reads the API key from the variable the config names, never from the file', async () => {
    const cwd = folder({ 'dotplan.config.json': JSON.stringify({ openai: { apiKeyEnv: 'MY_KEY', model: 'local-model' } }) });
    const config = await resolveConfig({ env: { MY_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, cwd });
    expect(config.openai).toEqual({
      apiKeyEnv: 'MY_KEY',
      apiKey: 'sk-test',
      model: 'local-model',
      baseURL: 'http://127.0.0.1:9/v1',
      timeoutMs: 60_000,
      maxRetries: 3,
    });
    const leaky = folder({ 'dotplan.config.json': JSON.stringify({ openai: { apiKey: 'sk-oops' } }) });
    expect((await configError(resolveConfig({ env: {}, cwd: leaky }))).message).toMatch(/"openai.apiKey" is not read from files/);
  });

  it('reads the LLM timeout and retries from the file and the environment', async () => {
    const cwd = folder({ 'dotplan.config.json': JSON.stringify({ openai: { timeoutMs: 5000, maxRetries: 0 } }) });
    expect((await resolveConfig({ env: {}, cwd })).openai).toMatchObject({ timeoutMs: 5000, maxRetries: 0 });
    expect((await resolveConfig({ env: { OPENAI_TIMEOUT_MS: '120000', OPENAI_MAX_RETRIES: '5' }, cwd })).openai).toMatchObject({
      timeoutMs: 120_000,
      maxRetries: 5,
    });
    expect((await configError(resolveConfig({ env: { OPENAI_TIMEOUT_MS: '0' }, cwd: folder() }))).message).toBe(
      'OPENAI_TIMEOUT_MS="0": must be a whole number of at least 1',
    );
    expect((await configError(resolveConfig({ env: { OPENAI_MAX_RETRIES: 'many' }, cwd: folder() }))).message).toBe(
      'OPENAI_MAX_RETRIES="many": must be a whole number of at least 0',
    );
    const bad = folder({ 'dotplan.config.json': JSON.stringify({ openai: { maxRetries: -1 } }) });
    expect((await configError(resolveConfig({ env: {}, cwd: bad }))).message).toContain('"openai.maxRetries" = -1: must be a whole number of at least 0');
  });

  it('names the file and the key of a bad value', async () => {
    const cwd = folder({ 'dotplan.config.json': JSON.stringify({ worker: { concurrency: 0 } }) });
    const error = await configError(resolveConfig({ env: {}, cwd }));
    expect(error.message).toContain(join(cwd, 'dotplan.config.json'));
    expect(error.message).toContain('"worker.concurrency" = 0: must be a whole number of at least 1');
  });

  it('names an unknown key and lists the known ones', async () => {
    const cwd = folder({ 'dotplan.config.json': JSON.stringify({ worker: { concurency: 3 } }) });
    const error = await configError(resolveConfig({ env: {}, cwd }));
    expect(error.message).toMatch(/"worker.concurency" is not a setting; known: worker.poll, worker.concurrency, worker.leaseMs/);
  });

  it('refuses a file that is not JSON, and an explicit file that is missing', async () => {
    const cwd = folder({ 'dotplan.config.json': '{ "tools": [ }' });
    expect((await configError(resolveConfig({ env: {}, cwd }))).message).toMatch(/dotplan\.config\.json is not valid JSON/);
    const missing = await configError(resolveConfig({ env: {}, flags: { configFile: 'nope.json' }, cwd: folder() }));
    expect(missing.message).toMatch(/cannot read config file .*nope\.json/);
  });

  it('names the variable or flag of a bad value', async () => {
    const cwd = folder();
    expect((await configError(resolveConfig({ env: { DOTPLAN_POLL: 'every minute' }, cwd }))).message).toBe(
      'DOTPLAN_POLL="every minute": must be a cron expression such as "*/30 * * * * *" (seconds field optional)',
    );
    expect((await configError(resolveConfig({ env: {}, flags: { concurrency: 'lots' }, cwd }), 'USAGE')).message).toMatch(
      /^--concurrency "lots": must be a whole number/,
    );
    expect((await configError(resolveConfig({ env: { DOTPLAN_RETRY_DELAY: 'soon' }, cwd }))).message).toMatch(
      /^DOTPLAN_RETRY_DELAY="soon": must be a duration/,
    );
    expect((await configError(resolveConfig({ env: { DOTPLAN_NOTIFY_WEBHOOK: 'not a url' }, cwd }))).message).toMatch(
      /^DOTPLAN_NOTIFY_WEBHOOK="not a url": must be a URL/,
    );
  });
});
