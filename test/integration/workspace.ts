/**
 * One integration test's world: a temp directory (the commands' working directory), its own database
 * (a SQLite file in that directory, or a fresh PostgreSQL database when the suite runs on
 * PostgreSQL), the fixture tools on DOTPLAN_TOOLS, a store opened on the same database for the
 * test's own reads, and every command the test started — stopped (or killed) and cleaned up in
 * `cleanup()`. Commands run in-process (`main(argv, io)`); `dotplanProcess` and `spawnProcess` run
 * them as subprocesses, for the tests about processes (crash, signals, several workers at once).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStore } from '../../src/store/index.js';
import type { AttemptResult } from '../../src/engine/attempts.js';
import type { NodeRecord, Store } from '../../src/store/types.js';
import {
  cleanEnv,
  runDotplan,
  runDotplanProcess,
  spawnDotplan,
  startDotplan,
  type DotplanProcess,
  type DotplanRun,
  type InProcessOptions,
  type RunResult,
} from '../support/cli.js';
import { testBackend, testDatabase, type TestBackend } from '../support/db.js';

export const FIXTURE_TOOLS = fileURLToPath(new URL('../fixtures/tools/tools.mjs', import.meta.url));

/** How a command of the workspace runs: in its directory, with its environment plus `env`. */
export type WorkspaceRunOptions = Omit<InProcessOptions, 'cwd' | 'env'> & {
  /** Variables over the workspace's own (`undefined` removes one). */
  env?: Record<string, string | undefined>;
};

export interface Workspace {
  readonly backend: TestBackend;
  readonly dir: string;
  readonly url: string;
  /** The environment every command of this test runs with. */
  readonly env: NodeJS.ProcessEnv;
  /** A store on the test's database, for assertions (and for acting as a crashed worker). */
  readonly store: Store;
  /** Runs `dotplan <args>` in the workspace (in-process) and waits for it. */
  dotplan(args: readonly string[], options?: WorkspaceRunOptions): Promise<RunResult>;
  /** Like `dotplan` but fails the test (with the command's stderr) unless it exits 0; returns stdout. */
  ok(args: readonly string[], options?: WorkspaceRunOptions): Promise<string>;
  /** Starts a long-running `dotplan <args>` (a worker) in-process; stopped in cleanup if still running. */
  spawn(args: readonly string[], options?: WorkspaceRunOptions): DotplanRun;
  /** `dotplan` as a subprocess: for tests about processes. */
  dotplanProcess(args: readonly string[], options?: WorkspaceRunOptions): Promise<RunResult>;
  /** `spawn` as a subprocess (signals, SIGKILL, several workers, pids); killed in cleanup if still running. */
  spawnProcess(args: readonly string[], options?: WorkspaceRunOptions): DotplanProcess;
  /** Writes a file in the workspace; returns its path. */
  write(name: string, text: string): string;
  /** `plan create --dot` with the given DOT text; returns the plan id. */
  createPlan(dot: string): Promise<string>;
  /** Node id → node, from the store. */
  nodes(planId: string): Promise<Map<string, NodeRecord>>;
  /** The lease token a running node holds right now, read straight from the database. */
  leaseToken(planId: string, nodeId: string): Promise<string | undefined>;
  /** Reports an attempt's end with this token as a (late) worker would; the result, or the refusal. */
  lateFinish(planId: string, nodeId: string, token: string, result: AttemptResult): Promise<{ status: string } | Error>;
  cleanup(): Promise<void>;
}

export async function openWorkspace(backend: TestBackend = testBackend()): Promise<Workspace> {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-it-'));
  const { url, drop } = await testDatabase(dir, 'dotplan.db', backend);
  const store = await openStore({ url, cwd: dir });
  const env = cleanEnv({ DATABASE_URL: url, DOTPLAN_TOOLS: FIXTURE_TOOLS, NO_COLOR: '1' });
  const started = new Set<DotplanRun>();
  const spawned = new Set<DotplanProcess>();
  const within = (options: WorkspaceRunOptions = {}) => ({ ...options, cwd: dir, env: options.env ? withVariables(env, options.env) : env });
  const dotplan = (args: readonly string[], options?: WorkspaceRunOptions) => runDotplan(args, within(options));
  const workspace: Workspace = {
    backend,
    dir,
    url,
    env,
    store,
    dotplan,
    async ok(args, options) {
      const result = await dotplan(args, options);
      if (result.code !== 0) throw new Error(`dotplan ${args.join(' ')} exited ${result.code ?? result.signal}:\n${result.stderr}${result.stdout}`);
      return result.stdout;
    },
    spawn(args, options) {
      const run = startDotplan(args, { timeoutMs: 120_000, ...within(options) });
      started.add(run);
      void run.exited.then(() => started.delete(run));
      return run;
    },
    dotplanProcess: (args, options) => runDotplanProcess(args, within(options)),
    spawnProcess(args, options) {
      const child = spawnDotplan(args, { timeoutMs: 120_000, ...within(options) });
      spawned.add(child);
      void child.exited.then(() => spawned.delete(child));
      return child;
    },
    write(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    async createPlan(dot) {
      const file = workspace.write(`plan-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.dot`, dot);
      const out = await workspace.ok(['plan', 'create', '--dot', file, '--json']);
      return (JSON.parse(out) as { id: string }).id;
    },
    async nodes(planId) {
      return new Map((await store.plans.nodes(planId)).map((n) => [n.id, n]));
    },
    leaseToken: (planId, nodeId) => readLeaseToken(backend, url, dir, planId, nodeId),
    async lateFinish(planId, nodeId, token, result) {
      const claim = {
        planId,
        nodeId,
        token,
        type: 'function' as const,
        attributes: {},
        attempts: 1,
        leaseExpiresAt: new Date(),
        params: {},
        planAttributes: {},
      };
      const { results } = await store.queue.finish([{ claim, result, jitter: 0 }], {
        owner: 'late',
        leaseMs: 1000,
        limit: 0,
        retryDefaults: { retries: 0, retryDelay: '1s' },
      });
      return results[0]!;
    },
    async cleanup() {
      for (const child of spawned) child.kill('SIGKILL');
      for (const run of started) run.stop('SIGTERM');
      await Promise.all([...spawned, ...started].map((c) => c.exited));
      await store.close();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return workspace;
}

async function readLeaseToken(backend: TestBackend, url: string, dir: string, planId: string, nodeId: string): Promise<string | undefined> {
  const sql = 'SELECT lease_token AS token FROM nodes WHERE plan_id = $1 AND node_id = $2';
  if (backend === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<{ token: string | null }>(sql, [planId, nodeId])).rows[0]?.token ?? undefined;
    } finally {
      await client.end();
    }
  }
  const db = new Database(join(dir, 'dotplan.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare(sql.replace('$1', '?').replace('$2', '?')).get(planId, nodeId) as { token: string | null } | undefined;
    return row?.token ?? undefined;
  } finally {
    db.close();
  }
}

function withVariables(env: NodeJS.ProcessEnv, extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const merged = { ...env };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** A DOT workflow: `nodes` as `id [attrs]` lines, `edges` as `a -> b` lines, graph attributes on top. */
export function workflow(name: string, body: { graph?: Record<string, string>; nodes: string[]; edges?: string[] }): string {
  const graph = Object.entries({ mode: 'workflow', ...body.graph }).map(([k, v]) => `  ${k}=${JSON.stringify(v)}`);
  return [
    `digraph ${name} {`,
    ...graph,
    '  node [status=pending]',
    ...body.nodes.map((n) => `  ${n}`),
    ...(body.edges ?? []).map((e) => `  ${e}`),
    '}',
    '',
  ].join('\n');
}

/** A DOT attribute value holding JSON (quoted and escaped for DOT). */
export function json(value: unknown): string {
  return JSON.stringify(JSON.stringify(value));
}

/** `plan show --json` through the CLI, as an operator would read it. */
export async function showPlan(
  ws: Workspace,
  planId: string,
): Promise<{
  status: string;
  error?: string;
  nodes: Array<{ id: string; status: string; attempts: number; output?: string; answer?: string; error?: string }>;
}> {
  return JSON.parse(await ws.ok(['plan', 'show', planId, '--json'])) as Awaited<ReturnType<typeof showPlan>>;
}

/** Node id → status, plus the plan's status under `plan` (read through the test's store: quicker than the CLI). */
export async function statuses(ws: Workspace, planId: string): Promise<Record<string, string>> {
  const [plan, nodes] = await Promise.all([ws.store.plans.get(planId), ws.store.plans.nodes(planId)]);
  return { plan: plan.status, ...Object.fromEntries(nodes.map((n) => [n.id, n.status])) };
}
