import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger, RunnerOptions, TaskList, WorkerEvents } from 'graphile-worker';
import type { BenchResult } from './results.js';
import { chainLatencyResults, throughputResult } from './stats.js';

/**
 * graphile-worker measured with the same shapes as dotplan's benchmarks, on the same PostgreSQL:
 * (a) throughput — N no-op jobs queued in bulk, one runner with concurrency C, jobs/s from starting
 * the runner until the last job is completed (deleted); (b) chain latency — a chain where each job's
 * task adds the next (`helpers.addJob`, woken by LISTEN/NOTIFY), p50/p95 of the gaps between
 * consecutive job starts.
 *
 * Everything happens in a throw-away schema (`graphile_bench_<random>`) that is dropped afterwards.
 * graphile-worker is a dev dependency, so it is loaded with a dynamic import: when it is not
 * installed there are no graphile-worker results, only a warning.
 */
export interface GraphileBenchOptions {
  connectionString: string;
  /** No-op jobs for the throughput run (default 10,000). */
  jobs?: number;
  /** Length of the job chain (default 500). */
  chain?: number;
  /** Runner concurrency (default 10). */
  concurrency?: number;
  /** Schema to create and drop (default `graphile_bench_<random hex>`); must not exist yet. */
  schema?: string;
  /** Where warnings go (default: stderr). */
  warn?: (line: string) => void;
}

type GraphileWorkerModule = typeof import('graphile-worker');

const NOOP = 'dotplan_bench_noop';
const CHAIN = 'dotplan_bench_chain';

export async function benchGraphileWorker(options: GraphileBenchOptions): Promise<BenchResult[]> {
  const { connectionString, jobs = 10_000, chain = 500, concurrency = 10 } = options;
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const gw = await loadGraphileWorker();
  if (!gw) {
    warn('graphile-worker is not installed (it is a dev dependency): no graphile-worker figures.');
    return [];
  }
  const schema = options.schema ?? `graphile_bench_${randomBytes(4).toString('hex')}`;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`Invalid schema name: ${schema}`);

  const logger = new gw.Logger(() => (level, message) => {
    if (String(level) === 'error') warn(`graphile-worker: ${message}`);
  });
  const base = {
    connectionString,
    schema,
    logger,
    concurrency,
    // graphile-worker's own advice: a pool at least as large as the concurrency (+ LISTEN client).
    maxPoolSize: concurrency + 2,
    noHandleSignals: true,
  } satisfies RunnerOptions;

  const admin = new pg.Client({ connectionString });
  await admin.connect();
  try {
    const utils = await gw.makeWorkerUtils({ connectionString, schema, logger });
    try {
      await utils.migrate();
    } finally {
      await utils.release();
    }
    const results: BenchResult[] = [];
    results.push(await measureThroughput(gw, base, admin, jobs));
    results.push(...(await measureChain(gw, base, admin, chain)));
    return results;
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${admin.escapeIdentifier(schema)} CASCADE`).catch((e: unknown) => {
      warn(`could not drop schema ${schema}: ${e instanceof Error ? e.message : String(e)}`);
    });
    await admin.end();
  }
}

/** graphile-worker, or undefined when it is not installed. */
export async function loadGraphileWorker(): Promise<GraphileWorkerModule | undefined> {
  try {
    return await import('graphile-worker');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

type BaseOptions = RunnerOptions & { logger: Logger; schema: string; concurrency: number };

async function measureThroughput(gw: GraphileWorkerModule, base: BaseOptions, admin: pg.Client, jobs: number): Promise<BenchResult> {
  const s = admin.escapeIdentifier(base.schema);
  // Bulk insert through graphile-worker's own SQL API (`add_jobs`), as `addJobs` would.
  await admin.query(
    `SELECT count(*) FROM ${s}.add_jobs(ARRAY(
       SELECT ROW($2::text, '{}'::json, NULL, NULL, NULL, NULL, NULL, NULL)::${s}.job_spec
       FROM generate_series(1, $1::int)))`,
    [jobs, NOOP],
  );
  const done = settle<number>();
  let completed = 0;
  const events: WorkerEvents = new EventEmitter();
  events.on('job:complete', ({ error }) => {
    if (error) done.reject(new Error(`graphile-worker job failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`));
    else if (++completed === jobs) done.resolve(performance.now());
  });
  const taskList: TaskList = { [NOOP]: async () => {} };
  const started = performance.now();
  const runner = await gw.run({ ...base, taskList, events });
  try {
    const finished = await withTimeout(done.promise, 60_000 + jobs * 10, `${jobs} graphile-worker jobs`);
    await untilQueueEmpty(admin, base.schema);
    return throughputResult('graphile-worker', jobs, finished - started);
  } finally {
    await runner.stop();
  }
}

async function measureChain(gw: GraphileWorkerModule, base: BaseOptions, admin: pg.Client, chain: number): Promise<BenchResult[]> {
  const starts: number[] = [];
  const done = settle<void>();
  const events: WorkerEvents = new EventEmitter();
  events.on('job:error', ({ error }) => done.reject(new Error(`graphile-worker job failed: ${String(error)}`)));
  const taskList: TaskList = {
    [CHAIN]: async (payload, helpers) => {
      const step = (payload as { step: number }).step;
      starts[step] = performance.now();
      if (step + 1 < chain) await helpers.addJob(CHAIN, { step: step + 1 });
      else done.resolve();
    },
  };
  const runner = await gw.run({ ...base, taskList, events });
  try {
    await runner.addJob(CHAIN, { step: 0 });
    await withTimeout(done.promise, 60_000 + chain * 100, `a ${chain}-job graphile-worker chain`);
    await untilQueueEmpty(admin, base.schema);
    return chainLatencyResults('graphile-worker', starts);
  } finally {
    await runner.stop();
  }
}

/**
 * Waits until graphile-worker has written every completion. It emits `job:complete` (and a task
 * returns) before the job's row is deleted, and that delete is not awaited by `runner.stop()`:
 * dropping the schema right after stopping made the pending delete fail as an unhandled rejection.
 */
async function untilQueueEmpty(admin: pg.Client, schema: string): Promise<void> {
  const jobs = `${admin.escapeIdentifier(schema)}._private_jobs`;
  const deadline = performance.now() + 30_000;
  for (;;) {
    const res = await admin.query<{ left: number }>(`SELECT count(*)::int AS left FROM ${jobs}`);
    if (res.rows[0]?.left === 0) return;
    if (performance.now() > deadline) throw new Error(`graphile-worker left ${res.rows[0]?.left} job(s) uncompleted after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function settle<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: Error) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
