import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchDotplan, measureDotplan, type DotplanBenchReport } from '../../src/bench/dotplan.js';
import type { BenchSizes, DotplanBenchTarget } from '../../src/bench/run.js';
import { VALIDATE_SHAPES } from '../../src/bench/scenarios/validate-shapes.js';
import { benchPostgresUrl, createOwnRole } from '../support/db.js';

const SIZES: BenchSizes = {
  nodes: 300,
  chain: 30,
  concurrency: 10,
  plans: 200,
  validate: 300,
  rewrite: 100,
  tree: 30,
  cli: { plans: 3, runs: 1 },
  paused: 300,
  floor: { updates: 10, rateMs: 10 },
};
const postgresUrl = benchPostgresUrl();

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function sqliteTarget(): DotplanBenchTarget {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-bench-test-'));
  dirs.push(dir);
  return { backend: 'sqlite', databaseUrl: `file:${join(dir, 'bench.db')}` };
}

function expectCleanRun(report: DotplanBenchReport, backend: 'sqlite' | 'postgres'): void {
  // Every node of both plans done, each tool run exactly once, the plans completed.
  expect(report.throughput).toMatchObject({ nodes: 300, done: 300, toolRuns: 300, ranOnce: 300, planStatus: 'completed' });
  expect(report.chain).toMatchObject({ nodes: 30, done: 30, toolRuns: 30, ranOnce: 30, planStatus: 'completed' });
  // The other chain shapes (when edges; two parents per step, with a side node each) and the join ran whole too.
  expect(report.shapes).toMatchObject([
    { nodes: 30, done: 30, ranOnce: 30, planStatus: 'completed' },
    { nodes: 60, done: 60, ranOnce: 60, planStatus: 'completed' },
    { nodes: 301, done: 301, ranOnce: 301, planStatus: 'completed' },
  ]);
  // The idle polls ran over every stored plan (the six measured plans too, and the agent chain's root and 30 children) and claimed nothing.
  expect(report.idlePoll).toEqual({ plans: 206 + 31, claimed: 0 });
  expect(report.results.map((r) => [r.backend, r.scenario, r.unit])).toEqual([
    [backend, 'throughput', 'nodes/s'],
    [backend, 'chain-latency-p50', 'ms'],
    [backend, 'chain-latency-p95', 'ms'],
    [backend, 'chain-when-p50', 'ms'],
    [backend, 'chain-ladder-p50', 'ms'],
    [backend, 'join-vs-fan-out', '×'],
    [backend, 'validate', 'ms'],
    // The four validation shapes, each in a process of its own: once, on SQLite's row (validation reads no database).
    ...(backend === 'sqlite'
      ? VALIDATE_SHAPES.flatMap((shape) => [
          [backend, `validate-${shape}`, 'ms'],
          [backend, `validate-${shape}-mb`, 'MB'],
        ])
      : []),
    // The CLI's start-up, on its default backend.
    ...(backend === 'sqlite'
      ? [
          [backend, 'cli-version', '×'],
          [backend, 'cli-plan-list', '×'],
        ]
      : []),
    [backend, 'rewrite', 'ms'],
    [backend, 'idle-poll', 'ms'],
    [backend, 'agent-chain-p50', 'ms'],
    [backend, 'agent-vs-chain', '×'],
    [backend, 'tree-cancel', 'ms'],
    [backend, 'paused-claim', '×'],
  ]);
  for (const r of report.results) expect(r.value, r.scenario).toBeGreaterThan(0);
  const [, p50, p95] = report.results;
  expect(p95!.value).toBeGreaterThanOrEqual(p50!.value);
}

describe('dotplan benchmarks on SQLite', () => {
  it('runs a 300-node plan and a 30-step chain to completion, and times idle polls over 200 plans', async () => {
    const target = sqliteTarget();
    expectCleanRun(await measureDotplan(target, SIZES), 'sqlite');
    expect(existsSync(target.databaseUrl.slice('file:'.length))).toBe(true);
  });

  it('benchDotplan reports the same figures', async () => {
    const results = await benchDotplan(sqliteTarget(), { ...SIZES, nodes: 20, chain: 5, plans: 10, validate: 20, rewrite: 20 });
    expect(results.map((r) => r.scenario)).toEqual([
      'throughput',
      'chain-latency-p50',
      'chain-latency-p95',
      'chain-when-p50',
      'chain-ladder-p50',
      'join-vs-fan-out',
      'validate',
      ...VALIDATE_SHAPES.flatMap((shape) => [`validate-${shape}`, `validate-${shape}-mb`]),
      'cli-version',
      'cli-plan-list',
      'rewrite',
      'idle-poll',
      'agent-chain-p50',
      'agent-vs-chain',
      'tree-cancel',
      'paused-claim',
    ]);
  });
});

describe.skipIf(!postgresUrl)(`dotplan benchmarks on PostgreSQL${postgresUrl ? '' : ' (skipped: set DATABASE_URL=postgres://… to run)'}`, () => {
  it('runs the same shapes in a throw-away database, then drops it', async () => {
    // Its own role: the databases it owns are this run's, not those of the HTTP bench test running beside it.
    const role = await createOwnRole(postgresUrl!);
    try {
      expectCleanRun(await measureDotplan({ backend: 'postgres', databaseUrl: role.url }, SIZES), 'postgres');
      expect(await role.ownedDatabases()).toEqual([]);
    } finally {
      await role.drop();
    }
  });
});
