/**
 * `dotplan serve` as an operator runs it: a real process on a free port, answering HTTP; `--worker`
 * runs plans in the same process; SIGTERM ends it cleanly; a non-loopback host with no token exists
 * is refused before anything listens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackend, testDatabase } from '../support/db.js';
import { spawnDotplan } from '../support/subprocess.js';
import { waitUntil } from '../support/wait.js';

const TWO =
  'digraph g { a [type=function status=pending toolCode=template toolInput="{\\"template\\": \\"hi\\"}"] b [type=function status=pending toolCode=template toolInput="{\\"template\\": \\"{{nodes.a.output}} again\\"}"] a -> b }';

describe(`dotplan serve (${testBackend()})`, () => {
  let cwd: string;
  let url: string;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-serve-'));
    ({ url, drop } = await testDatabase(cwd));
  });
  afterAll(async () => {
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('serves the API on a free port, runs a plan created over HTTP with --worker, and stops on SIGTERM', async () => {
    const server = spawnDotplan(['serve', '--port', '0', '--worker', '--db', url], { cwd });
    try {
      const line = await server.waitForOutput(/dotplan serve on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
      const base = /dotplan serve on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1]!;
      const health = (await (await fetch(`${base}/healthz`)).json()) as { ok: boolean; backend: string };
      expect(health.ok).toBe(true);
      const created = await fetch(`${base}/v1/plans`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dot: TWO }) });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const done = await waitUntil(async () => {
        const summary = (await (await fetch(`${base}/v1/plans/${id}`)).json()) as { plan: { status: string } };
        return summary.plan.status === 'completed' && summary;
      }, 'the plan to complete on the server’s worker');
      expect(done.plan.status).toBe('completed');
      const b = (await (await fetch(`${base}/v1/plans/${id}/nodes/b`)).json()) as { output: string };
      expect(b.output).toBe('hi again');
    } finally {
      server.kill('SIGTERM');
    }
    const result = await server.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('SIGTERM: stopping');
  });

  it('refuses a non-loopback host while no token exists, naming the fix', async () => {
    const result = await spawnDotplan(['serve', '--host', '0.0.0.0', '--port', '0', '--db', url], { cwd }).exited;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('dotplan token create');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
