import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchGraphileWorker } from './graphile.js';
import { describeMachine, machineFacts, postgresVersion } from './machine.js';
import { measureFloor } from './floor.js';
import { aggregateRounds, formatRound, formatTable, toJson, withRatios, type BenchResult } from './results.js';

/**
 * The benchmark harness behind `dotplan bench` / `npm run bench`: `rounds` rounds, each running, in
 * the same order, dotplan on SQLite (a fresh file), dotplan on PostgreSQL when a `postgres://` URL is
 * given, graphile-worker on the same PostgreSQL with the same shapes, and the floor (floor.ts) — so
 * that dotplan and graphile-worker are interleaved (round 1 both, round 2 both, ...) and see the same
 * machine. Every round is reported; the summary gives the medians with their spread, the median ratio
 * against graphile-worker and against the floor. The dotplan scenarios themselves are passed in
 * (`dotplan`), so the harness depends on nothing but this folder.
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
  /** Nodes of the plan the validate scenario validates. */
  validate: number;
  /** Nodes of the reflection plan the rewrite scenario rewrites. */
  rewrite: number;
  /** Plans of the tree the tree-cancel scenario cancels (a root and its children). */
  tree: number;
  /** The CLI start-up scenario: plans in the database `plan list` lists, and how many times each command is timed. */
  cli: { plans: number; runs: number };
  /** The paused-claim scenario: ready nodes of the paused plan beside the running one. */
  paused: number;
}

export const DEFAULT_BENCH_SIZES: BenchSizes = {
  nodes: 10_000,
  chain: 500,
  concurrency: 10,
  plans: 10_000,
  validate: 10_000,
  rewrite: 1_000,
  tree: 1_000,
  cli: { plans: 100, runs: 10 },
  paused: 10_000,
};

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
  /** Rounds (default 3). */
  rounds?: number;
  /** One line per phase and per round, e.g. to stderr; default: silent. */
  progress?: (line: string) => void;
}

export interface BenchReport {
  /** The medians over the rounds, each with its rounds' values. */
  results: BenchResult[];
  /** Every round's figures, rated, in round order. */
  rounds: BenchResult[][];
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
  const pgUrl = isPostgresUrl(options.postgresUrl) ? options.postgresUrl : undefined;
  if (options.postgresUrl !== undefined && pgUrl === undefined) warnings.push(`not a PostgreSQL URL, PostgreSQL skipped: ${options.postgresUrl}`);
  if (!options.dotplan) warnings.push('dotplan scenarios are not available in this build: no dotplan figures.');
  if (!pgUrl) warnings.push('no PostgreSQL URL (DATABASE_URL or --db): PostgreSQL, graphile-worker and the floor skipped.');
  const rounds: BenchResult[][] = [];
  const count = Math.max(1, options.rounds ?? 3);
  for (let round = 1; round <= count; round++) {
    const results: BenchResult[] = [];
    if (options.dotplan) {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'dotplan-bench-'));
      try {
        progress(`round ${round}/${count}: dotplan on SQLite…`);
        results.push(...(await options.dotplan({ backend: 'sqlite', databaseUrl: `file:${path.join(dir, 'bench.db')}` }, sizes)));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
      if (pgUrl) {
        progress(`round ${round}/${count}: dotplan on PostgreSQL…`);
        results.push(...(await options.dotplan({ backend: 'postgres', databaseUrl: pgUrl }, sizes)));
      }
    }
    if (pgUrl && options.graphile !== false) {
      progress(`round ${round}/${count}: graphile-worker on PostgreSQL…`);
      const warn = (line: string) => warnings.push(line);
      results.push(...(await benchGraphileWorker({ connectionString: pgUrl, jobs: sizes.nodes, chain: sizes.chain, concurrency: sizes.concurrency, warn })));
    }
    if (pgUrl) {
      progress(`round ${round}/${count}: the floor (bare UPDATEs) on PostgreSQL…`);
      results.push(...(await measureFloor({ connectionString: pgUrl })));
    }
    const rated = withRatios(results);
    rounds.push(rated);
    progress(formatRound(round, rated));
  }
  const version = pgUrl ? await postgresVersion(pgUrl) : undefined;
  return { results: aggregateRounds(rounds), rounds, machine: describeMachine(machineFacts(version)), warnings };
}

/** What `dotplan bench` prints on stdout (warnings go to stderr separately). */
export function renderBench(report: BenchReport, options: { json?: boolean } = {}): string {
  if (options.json) return JSON.stringify(toJson(report.results));
  return [...report.rounds.map((round, i) => formatRound(i + 1, round)), '', formatTable(report.results, report.machine, report.rounds.length)].join('\n');
}
