import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchGraphileWorker } from './graphile.js';
import { describeMachine, machineFacts, postgresVersion } from './machine.js';
import { formatTable, toJson, withRatios, type BenchResult } from './results.js';

/**
 * The benchmark harness behind `dotplan bench` / `npm run bench`: dotplan on SQLite (a fresh file in
 * a temporary directory), dotplan on PostgreSQL when a `postgres://` URL is given, and graphile-worker
 * on the same PostgreSQL with the same shapes; then the ratios. The dotplan scenarios themselves are
 * passed in (`dotplan`), so the harness depends on nothing but this folder.
 */
export interface BenchSizes {
  /** Independent no-op nodes (jobs) in the throughput run. */
  nodes: number;
  /** Steps in the chain-latency run. */
  chain: number;
  /** Worker (runner) concurrency for both runs. */
  concurrency: number;
  /** Stored plans behind the idle-poll measurement. */
  plans: number;
}

export const DEFAULT_BENCH_SIZES: BenchSizes = { nodes: 10_000, chain: 500, concurrency: 10, plans: 10_000 };

/** Where a dotplan scenario runs: an empty database of the given backend. */
export interface DotplanBenchTarget {
  backend: 'sqlite' | 'postgres';
  /** `file:/…/bench.db` for SQLite (a fresh file), the given `postgres://` URL for PostgreSQL. */
  databaseUrl: string;
}

/**
 * dotplan's own scenarios (throughput, chain latency, idle poll) on one backend. Measure them the
 * way graphile-worker is measured (graphile.ts) so the ratios compare like with like:
 * - throughput: all `nodes` no-op nodes stored first; the clock starts just before the worker is
 *   started (concurrency `concurrency`) and stops when the last node is done — `throughputResult`;
 * - chain latency: a `chain`-node chain; record `performance.now()` when each step's tool starts and
 *   pass the starts to `chainLatencyResults` (p50/p95 of the gaps);
 * - idle poll: `plans` stored plans, nothing ready; the time of one poll in ms.
 */
export type DotplanBench = (target: DotplanBenchTarget, sizes: BenchSizes) => Promise<BenchResult[]>;

export interface RunBenchOptions {
  /** A `postgres://` (or `postgresql://`) URL; without one only SQLite is measured. */
  postgresUrl?: string;
  sizes?: Partial<BenchSizes>;
  dotplan?: DotplanBench;
  /** Measure graphile-worker on the PostgreSQL database (default true when there is one). */
  graphile?: boolean;
  /** One line per phase, e.g. to stderr; default: silent. */
  progress?: (line: string) => void;
}

export interface BenchReport {
  results: BenchResult[];
  machine: string;
  warnings: string[];
}

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

export async function runBench(options: RunBenchOptions = {}): Promise<BenchReport> {
  const sizes = { ...DEFAULT_BENCH_SIZES, ...options.sizes };
  const progress = options.progress ?? (() => {});
  const warnings: string[] = [];
  const results: BenchResult[] = [];
  const pgUrl = isPostgresUrl(options.postgresUrl) ? options.postgresUrl : undefined;
  if (options.postgresUrl !== undefined && pgUrl === undefined) {
    warnings.push(`not a PostgreSQL URL, PostgreSQL skipped: ${options.postgresUrl}`);
  }

  if (options.dotplan) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'dotplan-bench-'));
    try {
      progress('dotplan on SQLite…');
      results.push(...(await options.dotplan({ backend: 'sqlite', databaseUrl: `file:${path.join(dir, 'bench.db')}` }, sizes)));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    if (pgUrl) {
      progress('dotplan on PostgreSQL…');
      results.push(...(await options.dotplan({ backend: 'postgres', databaseUrl: pgUrl }, sizes)));
    }
  } else {
    warnings.push('dotplan scenarios are not available in this build: no dotplan figures.');
  }

  if (pgUrl && options.graphile !== false) {
    progress('graphile-worker on PostgreSQL…');
    results.push(
      ...(await benchGraphileWorker({
        connectionString: pgUrl,
        jobs: sizes.nodes,
        chain: sizes.chain,
        concurrency: sizes.concurrency,
        warn: (line) => warnings.push(line),
      })),
    );
  } else if (!pgUrl) {
    warnings.push('no PostgreSQL URL (DATABASE_URL or --db): PostgreSQL and graphile-worker skipped.');
  }

  const version = pgUrl ? await postgresVersion(pgUrl) : undefined;
  return { results: withRatios(results), machine: describeMachine(machineFacts(version)), warnings };
}

/** What `dotplan bench` prints on stdout (warnings go to stderr separately). */
export function renderBench(report: BenchReport, options: { json?: boolean } = {}): string {
  return options.json ? JSON.stringify(toJson(report.results)) : formatTable(report.results, report.machine);
}
