import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchGraphileWorker } from './graphile.js';
import { describeMachine, machineFacts, postgresVersion } from './machine.js';
import { measureFloor } from './floor.js';
import { measureSqliteFloor } from './sqlite-floor.js';
import { aggregateRounds, formatRound, formatTable, toJson, withRatios, type BenchResult } from './results.js';

/**
 * The benchmark harness behind `dotplan bench` / `npm run bench`: `rounds` rounds, each running, in
 * the same order, dotplan on SQLite (a fresh file) and SQLite's floor (sqlite-floor.ts, in another fresh
 * file), dotplan on PostgreSQL when a `postgres://` URL is given, graphile-worker on the same PostgreSQL
 * with the same shapes, and PostgreSQL's floor (floor.ts) — so
 * that dotplan and graphile-worker are interleaved (round 1 both, round 2 both, ...) and see the same
 * machine. Every round is reported; the summary gives the medians with their spread, the median ratio
 * against graphile-worker and against the floor. The dotplan scenarios themselves are passed in
 * (`dotplan`), so the harness runs no engine code (of the store it reads only the SQLite settings, for
 * SQLite's floor); so are the HTTP API's (`http`),
 * measured after dotplan's on each backend, with their own floor (a bare Hono route) once a round.
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
  /** Each floor (SQLite's, PostgreSQL's): timed updates after 200 unmeasured, and how long its rate is measured. */
  floor: { updates: number; rateMs: number };
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
  floor: { updates: 2_000, rateMs: 2_000 },
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

/**
 * The HTTP API's scenarios (scenarios/http.ts): on each backend a fixture — its data stored and a
 * server listening, once, before its first round — measured in every round right after dotplan's own
 * scenarios on that backend; and their floor (http-floor.ts), measured once in every round.
 */
export interface HttpBench {
  open(target: DotplanBenchTarget): Promise<HttpBenchFixture>;
  floor(): Promise<BenchResult[]>;
}

export interface HttpBenchFixture {
  /** How long storing its data took (figures of the setup, reported once, with the round that made it). */
  setup: BenchResult[];
  /** One round's figures. */
  measure(): Promise<BenchResult[]>;
  /** Stops the server and drops the data. */
  close(): Promise<void>;
}

export interface RunBenchOptions {
  /** A `postgres://` (or `postgresql://`) URL; without one only SQLite is measured. */
  postgresUrl?: string;
  sizes?: Partial<BenchSizes>;
  dotplan?: DotplanBench;
  /** The HTTP API's scenarios and their floor, on each backend measured. */
  http?: HttpBench;
  /** `http`: only the HTTP scenarios and their floor (no dotplan engine scenarios, graphile-worker or PostgreSQL floor). */
  only?: 'http';
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
  const httpOnly = options.only === 'http';
  if (httpOnly && !options.http) warnings.push('--only http, but the HTTP scenarios are not available in this build: no figures.');
  const dotplan = httpOnly ? undefined : options.dotplan;
  if (!httpOnly && !options.dotplan) warnings.push('dotplan scenarios are not available in this build: no dotplan figures.');
  if (!pgUrl) warnings.push(`no PostgreSQL URL (DATABASE_URL or --db): PostgreSQL${httpOnly ? '' : ", graphile-worker and PostgreSQL's floor"} skipped.`);
  const rounds: BenchResult[][] = [];
  const count = Math.max(1, options.rounds ?? 3);
  const http = new HttpFixtures(options.http, progress);
  try {
    for (let round = 1; round <= count; round++) {
      const results: BenchResult[] = [];
      const at = `round ${round}/${count}:`;
      if (dotplan) {
        const dir = await mkdtemp(path.join(os.tmpdir(), 'dotplan-bench-'));
        try {
          progress(`${at} dotplan on SQLite…`);
          results.push(...(await dotplan({ backend: 'sqlite', databaseUrl: `file:${path.join(dir, 'bench.db')}` }, sizes)));
          progress(`${at} the floor (bare UPDATEs) on SQLite…`);
          results.push(...measureSqliteFloor({ file: path.join(dir, 'floor.db'), ...sizes.floor }).results);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
      results.push(...(await http.measure(at, 'sqlite')));
      if (pgUrl && dotplan) {
        progress(`${at} dotplan on PostgreSQL…`);
        results.push(...(await dotplan({ backend: 'postgres', databaseUrl: pgUrl }, sizes)));
      }
      if (pgUrl) results.push(...(await http.measure(at, 'postgres', pgUrl)));
      if (pgUrl && !httpOnly && options.graphile !== false) {
        progress(`${at} graphile-worker on PostgreSQL…`);
        const warn = (line: string) => warnings.push(line);
        results.push(...(await benchGraphileWorker({ connectionString: pgUrl, jobs: sizes.nodes, chain: sizes.chain, concurrency: sizes.concurrency, warn })));
      }
      if (pgUrl && !httpOnly) {
        progress(`${at} the floor (bare UPDATEs) on PostgreSQL…`);
        results.push(...(await measureFloor({ connectionString: pgUrl, ...sizes.floor })));
      }
      results.push(...(await http.floor(at)));
      const rated = withRatios(results);
      rounds.push(rated);
      progress(formatRound(round, rated));
    }
  } finally {
    await http.close();
  }
  const version = pgUrl ? await postgresVersion(pgUrl) : undefined;
  return { results: aggregateRounds(rounds), rounds, machine: describeMachine(machineFacts(version)), warnings };
}

/** The HTTP fixtures of a run: each backend's opened before its first round (SQLite in a folder of its own), all closed at the end. */
class HttpFixtures {
  readonly #open = new Map<DotplanBenchTarget['backend'], HttpBenchFixture>();
  #dir: string | undefined;

  constructor(
    private readonly bench: HttpBench | undefined,
    private readonly progress: (line: string) => void,
  ) {}

  async measure(at: string, backend: DotplanBenchTarget['backend'], pgUrl?: string): Promise<BenchResult[]> {
    if (!this.bench) return [];
    const name = backend === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    let fixture = this.#open.get(backend);
    const results: BenchResult[] = [];
    if (!fixture) {
      this.progress(`${at} HTTP API on ${name}: storing its plans (once; kept over the rounds)…`);
      let databaseUrl = pgUrl ?? '';
      if (backend === 'sqlite') {
        this.#dir = await mkdtemp(path.join(os.tmpdir(), 'dotplan-bench-http-'));
        databaseUrl = `file:${path.join(this.#dir, 'http.db')}`;
      }
      fixture = await this.bench.open({ backend, databaseUrl });
      this.#open.set(backend, fixture);
      results.push(...fixture.setup);
      this.progress(`${at} HTTP API on ${name}: set up in ${fixture.setup.map((r) => `${r.value} ${r.unit}`).join(' + ')}`);
    }
    this.progress(`${at} HTTP API on ${name}…`);
    results.push(...(await fixture.measure()));
    return results;
  }

  async floor(at: string): Promise<BenchResult[]> {
    if (!this.bench) return [];
    this.progress(`${at} the HTTP floor (a bare Hono route)…`);
    return this.bench.floor();
  }

  async close(): Promise<void> {
    try {
      for (const fixture of this.#open.values()) await fixture.close();
    } finally {
      this.#open.clear();
      if (this.#dir !== undefined) await rm(this.#dir, { recursive: true, force: true });
    }
  }
}

/** What `dotplan bench` prints on stdout (warnings go to stderr separately). */
export function renderBench(report: BenchReport, options: { json?: boolean } = {}): string {
  if (options.json) return JSON.stringify(toJson(report.results));
  return [...report.rounds.map((round, i) => formatRound(i + 1, round)), '', formatTable(report.results, report.machine, report.rounds.length)].join('\n');
}
