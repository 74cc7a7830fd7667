/**
 * The README's install-and-run command: `dotplan demo` in a fresh directory, standard input not a
 * terminal (so the confirm step takes its default answer), nothing configured — it runs a shipped
 * template to completion on the default SQLite database and prints a summary. On a PostgreSQL run
 * the same demo also runs against PostgreSQL.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runDotplan } from '../support/cli.js';
import { createPostgresDatabase, testBackend } from '../support/db.js';

describe('dotplan demo', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  function freshDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'dotplan-demo-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  function expectCompletedSummary(result: { code: number | null; stdout: string; stderr: string }): void {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Plan p_\S+ completed in [\d.]+m?s/m);
    expect(result.stdout).toMatch(/NODE\s+STATUS\s+ATTEMPTS/);
    expect(result.stdout).not.toMatch(/\bfailed\b/);
    expect(result.stderr).toMatch(/standard input is not a terminal/); // the confirm step took its default answer
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace anywhere
  }

  it('runs to completion in a fresh directory on the default SQLite database', async () => {
    const dir = freshDir();
    const result = await runDotplan(['demo'], { cwd: dir, env: cleanEnv(), timeoutMs: 60_000 });
    expectCompletedSummary(result);
    expect(result.elapsedMs).toBeLessThan(30_000);
    expect(existsSync(join(dir, '.dotplan', 'dotplan.db'))).toBe(true);
  });

  it.runIf(testBackend() === 'postgres')('runs to completion on PostgreSQL (DATABASE_URL)', async () => {
    const database = await createPostgresDatabase();
    cleanups.push(() => database.drop());
    const dir = freshDir();
    const result = await runDotplan(['demo'], { cwd: dir, env: cleanEnv({ DATABASE_URL: database.url }), timeoutMs: 60_000 });
    expectCompletedSummary(result);
    expect(result.stderr).toMatch(/on postgres/);
    expect(existsSync(join(dir, '.dotplan'))).toBe(false);
  });

  it('--reflection runs a recorded reflection plan offline to its final answer', async () => {
    const dir = freshDir();
    const database = testBackend() === 'postgres' ? await createPostgresDatabase() : undefined;
    if (database) cleanups.push(() => database.drop());
    const result = await runDotplan(['demo', '--reflection'], { cwd: dir, env: cleanEnv(database ? { DATABASE_URL: database.url } : {}), timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Plan p_\S+ completed in [\d.]+m?s: 4 LLM calls \(\d+ tokens\), revision 3$/m);
    expect(result.stdout).toMatch(/Final answer:\nACME Corp, founded in 1999 in Lyon, makes anvils/);
    expect(result.stderr).toMatch(/node summary\s+running → done/);
  });
});
