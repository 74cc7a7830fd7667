/**
 * `dotplan worker --json | head`: when the reader of standard output goes away, a command ends
 * quietly — no EPIPE stack trace, exit 0 — and a worker stops as it does on SIGTERM (its running
 * nodes released). A process test: the point is what the process does with a closed pipe.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testBackend, testDatabase } from '../support/db.js';
import { spawnDotplan, type DotplanProcess } from '../support/cli.js';
import { runCli } from './run-cli.js';

const MANY = `digraph { ${Array.from({ length: 40 }, (_, i) => `n${i} [type=function toolCode=echo toolInput="${'x'.repeat(2000)}"]`).join('; ')} }`;

describe(`a closed standard output (${testBackend()})`, () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(): Promise<{ cwd: string; db: string[] }> {
    const cwd = mkdtempSync(join(tmpdir(), 'dotplan-epipe-'));
    cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
    const created = await testDatabase(cwd);
    cleanups.push(created.drop);
    return { cwd, db: ['--db', created.url] };
  }

  /** Starts the command with its standard output's reading end closed at once, as `| head` leaves it. */
  function startClosed(args: string[], cwd: string): DotplanProcess {
    const child = spawnDotplan(args, { cwd });
    cleanups.push(() => child.kill('SIGKILL'));
    child.child.stdout!.destroy();
    return child;
  }

  it('a worker printing JSON lines stops quietly, exit 0, when its reader goes away', async () => {
    const { cwd, db } = await setup();
    const worker = startClosed(['worker', '--json', ...db], cwd);
    const created = await runCli(['plan', 'create', '--dot', '-', ...db], { cwd, input: MANY });
    expect(created.code, created.stderr).toBe(0);
    const result = await worker.exited;
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    expect(result.code).toBe(0);
    // It stopped as a worker stops: nothing of the plan is left running under a lease.
    const shown = await runCli(['plan', 'show', created.stdout.trim(), '--format', 'json', ...db], { cwd });
    const nodes = (JSON.parse(shown.stdout) as { nodes: Array<{ status: string }> }).nodes;
    expect(nodes.filter((n) => n.status === 'running')).toEqual([]);
  });

  it('a one-shot command whose output is not read ends quietly too', async () => {
    const { cwd, db } = await setup();
    const created = await runCli(['plan', 'create', '--dot', '-', ...db], { cwd, input: MANY });
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.trim();
    const ran = await runCli(['worker', '--until-idle', '--quiet', ...db], { cwd });
    expect(ran.code, ran.stderr).toBe(0);
    const result = await startClosed(['plan', 'events', id, '--json', ...db], cwd).exited;
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    expect(result.code).toBe(0);
  });
});
