/**
 * Issue 14, case 8: a worker rides out a database outage. The test starts a PostgreSQL server of its
 * own (a throw-away data directory, its own port: never the shared server), runs a real `dotplan
 * worker` process on it (with its progress lines: the printer's feed is what crashed), and stops the
 * server while nodes run — some finish during the outage, one runs across it — for longer than the
 * lease, then starts it again. The worker must still be alive, say once that the database is
 * unreachable and once that it is back, write the results that finished meanwhile, and complete the
 * plan with every node run exactly once (each run appends a line to a file).
 *
 * It does not use the run's database, so it runs in the SQLite run and in the PostgreSQL run alike.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { cleanEnv, runDotplan, spawnDotplan, waitUntil, type DotplanProcess } from '../support/cli.js';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';

/** The worker's lease, shorter than the outage the test makes. */
const LEASE_MS = 2_000;

/** One tool: appends "<node> <attempt>" to `file` when it starts, then waits until `gate` exists (if given). */
const TOOLS = `import { appendFileSync, existsSync } from 'node:fs';
export default [{
  code: 'count',
  description: 'Appends one line per run to {"file"}, then waits for the file {"gate"} to exist.',
  async run(input, ctx) {
    appendFileSync(input.file, ctx.nodeId + ' ' + ctx.attempt + '\\n');
    while (input.gate && !existsSync(input.gate)) {
      if (ctx.signal.aborted) throw new Error('count: aborted');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { node: ctx.nodeId };
  },
}];
`;

describe('a worker during a database outage (issue 14 case 8)', () => {
  let server: PrivatePostgres;
  let dir: string;
  let worker: DotplanProcess | undefined;
  let store: Store | undefined;

  beforeAll(async () => {
    server = await startPrivatePostgres();
    dir = mkdtempSync(join(tmpdir(), 'dotplan-outage-'));
  }, 120_000);

  afterAll(async () => {
    worker?.kill('SIGKILL');
    await worker?.exited;
    await store?.close();
    await server?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it.each(['fast', 'immediate'] as const)(
    'stopped (%s): stays alive, logs the outage once and its end once, writes the results that finished meanwhile, and runs every node once',
    async (mode) => {
      await server.start(); // should an earlier case have left it stopped
      const tools = join(dir, 'tools.mjs');
      writeFileSync(tools, TOOLS);
      const runs = join(dir, `runs-${mode}.txt`);
      const duringGate = join(dir, `during-gate-${mode}`);
      const acrossGate = join(dir, `across-gate-${mode}`);
      const count = (gate?: string) => JSON.stringify(JSON.stringify({ file: runs, ...(gate ? { gate } : {}) }));
      const during = ['during1', 'during2', 'during3'];
      const planFile = join(dir, `outage-${mode}.dot`);
      writeFileSync(
        planFile,
        [
          'digraph outage {',
          '  mode="workflow"',
          '  node [status=pending type=function toolCode=count]',
          `  first [toolInput=${count()}]`,
          ...during.map((id) => `  ${id} [toolInput=${count(duringGate)}]`),
          `  across [toolInput=${count(acrossGate)}]`,
          `  last [toolInput=${count()}]`,
          ...[...during, 'across'].map((id) => `  first -> ${id}; ${id} -> last`),
          '}',
          '',
        ].join('\n'),
      );
      const env = cleanEnv({ DATABASE_URL: server.url, DOTPLAN_TOOLS: tools, NO_COLOR: '1' });
      const created = await runDotplan(['plan', 'create', '--dot', planFile, '--json'], { cwd: dir, env });
      expect(created.code, created.stderr).toBe(0);
      const planId = (JSON.parse(created.stdout) as { id: string }).id;
      const ranLines = () => (existsSync(runs) ? readFileSync(runs, 'utf8').trim().split('\n').filter(Boolean) : []);

      worker = spawnDotplan(['worker', '--lease-ms', String(LEASE_MS), '--concurrency', '4'], { cwd: dir, env, timeoutMs: 170_000 });
      // The four middle nodes run (their tools wait at their gates).
      await waitUntil(() => ranLines().length === 5, 'first, the three during nodes and across to run', 30_000);

      const stoppedAt = Date.now();
      await server.stop(mode);
      await worker.waitForOutput(/^worker: database unreachable: .*, retrying$/, 30_000);
      writeFileSync(duringGate, ''); // three nodes finish while the database is away: their results must wait, not be lost
      // The outage lasts longer than the lease: leases run out meanwhile, and must not make the worker run its own nodes again.
      await waitUntil(() => Date.now() - stoppedAt > 2 * LEASE_MS && !worker!.hasExited(), 'the outage to outlast the lease', 30_000);
      expect(worker.hasExited(), worker.stderr()).toBe(false);

      await server.start();
      const restartedAt = Date.now();
      await worker.waitForOutput(/^worker: database back after \d+(\.\d)? s$/, 30_000);
      const db = (store ??= await openStore({ url: server.url, cwd: dir })); // opened once the server is back
      await waitUntil(
        async () => (await db.plans.nodes(planId)).filter((n) => during.includes(n.id) && n.status === 'done').length === 3,
        'the results to be written',
        30_000,
      );
      const written = (await db.events.list(planId)).filter((e) => during.includes(e.nodeId ?? '') && e.to === 'done').map((e) => e.at.getTime());
      // Recovery: from the server accepting connections again to the first result written.
      console.log(`outage (${mode}): ${Date.now() - stoppedAt} ms; first result written ${Math.min(...written) - restartedAt} ms after pg_ctl start returned`);
      expect(Math.min(...written) - restartedAt).toBeLessThan(15_000);

      writeFileSync(acrossGate, ''); // the node that ran across the outage finishes now, under its own (renewed) lease
      await waitUntil(async () => (await db.plans.get(planId)).status === 'completed', 'the plan to complete', 60_000);
      expect(worker.hasExited(), worker.stderr()).toBe(false);

      // Every node ran exactly once, and no attempt was counted twice.
      expect(ranLines().sort()).toEqual(['across 1', 'during1 1', 'during2 1', 'during3 1', 'first 1', 'last 1']);
      for (const node of await db.plans.nodes(planId)) expect([node.id, node.status, node.attempts]).toEqual([node.id, 'done', 1]);
      const moves = (await db.events.list(planId)).filter((e) => e.kind === 'status' && e.nodeId !== undefined && e.from === 'running');
      expect(moves.map((e) => e.to)).toEqual(Array(6).fill('done'));

      // One line per change of state, and nothing else went wrong.
      const stderr = worker.stderr();
      expect(stderr.match(/database unreachable/g)).toHaveLength(1);
      expect(stderr.match(/database back after/g)).toHaveLength(1);
      expect(stderr).not.toMatch(/Unhandled|\n\s+at |\[INTERNAL\]/);
      expect(stderr.split('\n').filter((line) => /^worker: /.test(line) && !/^worker: database /.test(line))).toEqual([]);

      worker.kill('SIGTERM');
      expect((await worker.exited).code).toBe(0);
    },
    170_000,
  );
});
