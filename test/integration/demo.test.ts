/**
 * The README's install-and-run command: `dotplan demo` in a fresh directory, standard input not a
 * terminal (so the confirm step takes its default answer), nothing configured — it runs a shipped
 * template to completion on the default SQLite database and prints a summary. On a PostgreSQL run
 * the same demo also runs against PostgreSQL. `--reflection` runs in a SQLite database of its own.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runDotplan } from '../support/cli.js';
import { createPostgresDatabase, testBackend } from '../support/db.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

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

  it.runIf(testBackend() === 'sqlite')('runs to completion in a fresh directory on the default SQLite database', async () => {
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

  it.runIf(testBackend() === 'sqlite')(
    '--reflection runs a recorded reflection plan offline to its final answer, in a database of its own: its scripted model answers no other plan',
    async () => {
      const dir = freshDir();
      // A reflection plan of the user's own, waiting for a worker with an LLM endpoint, in the default database.
      const mine = await runDotplan(['plan', 'create', '--goal', 'Plan my week'], { cwd: dir, env: cleanEnv() });
      expect(mine.code, mine.stderr).toBe(0);
      const planId = mine.stdout.trim();

      for (const run of [1, 2]) {
        const result = await runDotplan(['demo', '--reflection'], { cwd: dir, env: cleanEnv(), timeoutMs: 60_000 });
        expect(result.code, `run ${run}: ${result.stderr}`).toBe(0);
        expect(result.stdout).toMatch(/^Plan p_\S+ completed in [\d.]+m?s: 4 LLM calls \(\d+ tokens\), revision 3$/m);
        expect(result.stdout).toMatch(/Final answer:\nACME Corp, founded in 1999 in Lyon, makes anvils/);
        expect(result.stdout).toMatch(/Inspect it: dotplan --db file:\.dotplan\/demo-reflection\.db plan show p_/);
        expect(result.stderr).toMatch(/node summary\s+running → done/);
        expect(result.stderr).toMatch(/opening the database: SQLite \.dotplan\/demo-reflection\.db \(the demo's own, made afresh/);
      }
      const calls = await runDotplan(['plan', 'calls', planId, '--json'], { cwd: dir, env: cleanEnv() });
      expect(JSON.parse(calls.stdout)).toEqual({ calls: [], remote: [] });
      const shown = await runDotplan(['plan', 'show', planId, '--format', 'json'], { cwd: dir, env: cleanEnv() });
      expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'running', nodes: [] });
    },
  );

  it.runIf(testBackend() === 'sqlite')(
    '--agents runs seed 002 offline: a leader, two ReAct searchers, a writer and "Publish?", printing the tree, then the final answer',
    async () => {
      const dir = freshDir();
      const result = await runDotplan(['demo', '--agents'], { cwd: dir, env: cleanEnv(), timeoutMs: 60_000 });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Plan p_\S+ completed in [\d.]+m?s\. The tree:$/m);
      expect(result.stdout).toMatch(/^ {2}search_history → searcher_00[12] {2}p_\S+ {2}completed/m);
      expect(result.stdout).toMatch(/^ {2}search_products → searcher_00[12] {2}p_\S+ {2}completed/m);
      expect(result.stdout).toMatch(/^ {2}write → writer_001 {2}p_\S+ {2}completed/m);
      expect(result.stdout).toMatch(/Final answer:\nACME Corp, founded in 1999 in Lyon, makes anvils — published\./);
      expect(result.stderr).toMatch(/\? Publish: ACME Corp, founded in 1999 in Lyon, makes anvils\. → "yes"/);
      expect(result.stderr).toMatch(/node turn_1\s+running → done/);
      const history = await runDotplan(['--db', 'file:.dotplan/demo-agents.db', 'agent', 'history', 'searcher_001', '--json'], { cwd: dir, env: cleanEnv() });
      const messages = (JSON.parse(history.stdout) as { messages: Array<{ role: string }> }).messages;
      expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    },
  );

  it("the README's first command, npm run demo, runs the checkout's own build and first says what it does", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const quickStart = /^## Quick start$([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
    const firstCommand = /```sh\n([^\n]*)/.exec(quickStart)?.[1] ?? '';
    expect(firstCommand).toMatch(/^npm ci && npm run demo\b/);
    expect(quickStart).not.toMatch(/^npx dotplan/m); // npx installs the checkout into its cache and rebuilds it, silently, for a minute
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.demo).toBe('node bin/dotplan.js demo');

    const dir = freshDir();
    const result = await runCommand('npm', ['run', 'demo'], { cwd: ROOT, env: cleanEnv({ DATABASE_URL: `file:${join(dir, 'demo.db')}` }) });
    expectCompletedSummary(result);
    // Before anything slow (opening and migrating the database), it says what it is doing.
    const lines = result.stderr.split('\n').filter((l) => !l.startsWith('npm '));
    expect(lines[0]).toMatch(/^dotplan demo: a plan from the template research-report, run to completion by a worker in this process/);
    expect(lines[1]).toBe(`  opening the database: SQLite ${join(dir, 'demo.db')} (made, with its schema, on first use)`);
    expect(lines[2]).toMatch(/^ {2}plan p_\S+ "Research report: DOT execution plans" on sqlite; one line per status change:$/);
    expect(existsSync(join(dir, 'demo.db'))).toBe(true);
  });
});

/** Runs a command to its end, standard input empty (not a terminal). */
function runCommand(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject).on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
