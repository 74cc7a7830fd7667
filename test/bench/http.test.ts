import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { measureHttpFloor } from '../../src/bench/http-floor.js';
import type { BenchResult } from '../../src/bench/results.js';
import { renderBench, runBench, type DotplanBenchTarget } from '../../src/bench/run.js';
import { httpBench, openHttpBench, type HttpFixture, type HttpSizes } from '../../src/bench/scenarios/http.js';
import { parseBlock } from '../../src/bench/scenarios/http-sse.js';
import { benchPostgresUrl, createOwnRole } from '../support/db.js';
import { runInProcess } from '../support/in-process.js';

/** Small sizes: the test checks that the scenarios run and give sane figures, never how fast. */
const SIZES: HttpSizes = { nodes: 60, plans: 25, requests: 4, minMs: 20, commits: 8 };

const postgresUrl = benchPostgresUrl();

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-bench-http-test-'));
  dirs.push(dir);
  return dir;
}

const find = (rs: readonly BenchResult[], backend: string, scenario: string) => rs.find((r) => r.backend === backend && r.scenario === scenario);

/** One round of a fixture: every figure there, positive, p95 ≥ p50; the answers were what was asked for. */
async function expectRound(fixture: HttpFixture, backend: 'sqlite' | 'postgres'): Promise<void> {
  expect(fixture.setup.map((r) => [r.backend, r.scenario, r.unit])).toEqual([
    [backend, 'http-setup-plan', 's'],
    [backend, 'http-setup-plans', 's'],
  ]);
  for (const r of fixture.setup) expect(r.value).toBeGreaterThanOrEqual(0);
  const results = await fixture.measure();
  expect(results.map((r) => [r.backend, r.scenario, r.unit])).toEqual([
    [backend, 'http-plan-get-rate', 'req/s'],
    [backend, 'http-plan-get-p50', 'ms'],
    [backend, 'http-plan-list-rate', 'req/s'],
    [backend, 'http-plan-list-p50', 'ms'],
    [backend, 'http-sse-p50', 'ms'],
    [backend, 'http-sse-p95', 'ms'],
    [backend, 'http-sse-commit-p50', 'ms'],
  ]);
  for (const r of results) expect(r.value, r.scenario).toBeGreaterThan(0);
  expect(find(results, backend, 'http-sse-p95')!.value).toBeGreaterThanOrEqual(find(results, backend, 'http-sse-p50')!.value);
  // The summary counted every node of the large plan; the page held every plan (fewer than 100); each commit reached the client.
  expect(fixture.checks).toMatchObject({ summaryNodes: SIZES.nodes, listed: SIZES.plans, sse: { commits: SIZES.commits } });
  expect(fixture.checks!.sse.received).toBeGreaterThanOrEqual(SIZES.commits);
}

describe('the HTTP scenarios on SQLite', () => {
  it('stores a large plan and the listed plans once, serves them, and measures the GETs and the SSE latency', async () => {
    const target: DotplanBenchTarget = { backend: 'sqlite', databaseUrl: `file:${join(tempDir(), 'http.db')}` };
    const fixture = await openHttpBench(target, SIZES);
    try {
      await expectRound(fixture, 'sqlite');
    } finally {
      await fixture.close();
    }
    // Stopped: nothing listens any more.
    await expect(fetch(`${fixture.url}/healthz`)).rejects.toThrow();
  });

  it('measures the floor: a bare Hono route, the same way', async () => {
    const results = await measureHttpFloor({ requests: 20, minMs: 30 });
    expect(results.map((r) => [r.backend, r.scenario, r.unit])).toEqual([
      ['hono-floor', 'http-hello-rate', 'req/s'],
      ['hono-floor', 'http-hello-p50', 'ms'],
    ]);
    for (const r of results) expect(r.value).toBeGreaterThan(0);
  });

  it('runs in the harness with --only http: set up once, measured every round with the floor, rated against it', async () => {
    const phases: string[] = [];
    let dotplanRuns = 0;
    const report = await runBench({
      only: 'http',
      http: httpBench(SIZES),
      dotplan: async () => {
        dotplanRuns++;
        return [];
      },
      rounds: 2,
      progress: (line) => phases.push(line),
    });
    expect(dotplanRuns).toBe(0);
    expect(phases.filter((l) => /…$/.test(l))).toEqual([
      'round 1/2: HTTP API on SQLite: storing its plans (once; kept over the rounds)…',
      'round 1/2: HTTP API on SQLite…',
      'round 1/2: the HTTP floor (a bare Hono route)…',
      'round 2/2: HTTP API on SQLite…',
      'round 2/2: the HTTP floor (a bare Hono route)…',
    ]);
    expect(report.warnings).toEqual(['no PostgreSQL URL (DATABASE_URL or --db): PostgreSQL skipped.']);
    // The setup's figures once (round 1's), every other figure in both rounds.
    expect(report.rounds[0]!.filter((r) => r.scenario.startsWith('http-setup'))).toHaveLength(2);
    expect(report.rounds[1]!.filter((r) => r.scenario.startsWith('http-setup'))).toHaveLength(0);
    const json = JSON.parse(renderBench(report, { json: true })) as { results: BenchResult[] };
    expect(json.results.map((r) => `${r.backend} ${r.scenario} ${r.rounds!.length}`)).toEqual([
      'sqlite http-setup-plan 1',
      'sqlite http-setup-plans 1',
      'sqlite http-plan-get-rate 2',
      'sqlite http-plan-get-p50 2',
      'sqlite http-plan-list-rate 2',
      'sqlite http-plan-list-p50 2',
      'sqlite http-sse-p50 2',
      'sqlite http-sse-p95 2',
      'sqlite http-sse-commit-p50 2',
      'hono-floor http-hello-rate 2',
      'hono-floor http-hello-p50 2',
    ]);
    // Each route's requests/s as a share of the floor's, its p50 as a multiple of the floor's: each round's ratio, their median.
    const hello = find(json.results, 'hono-floor', 'http-hello-rate')!;
    for (const scenario of ['http-plan-get-rate', 'http-plan-list-rate', 'http-plan-get-p50', 'http-plan-list-p50']) {
      const r = find(json.results, 'sqlite', scenario)!;
      expect(r.floor, scenario).toBeGreaterThan(0);
      expect(r.floorRatio, scenario).toBeGreaterThan(0);
      if (scenario.endsWith('-rate')) expect(r.floor).toBe(hello.value);
    }
    expect(find(json.results, 'sqlite', 'http-sse-p50')!.floorRatio).toBeUndefined();
    const text = renderBench(report);
    expect(text).toMatch(/^sqlite +commit → SSE client p50 +[\d.]+ +ms .*≤ 20 ms (met|MISSED)$/m);
    expect(text).toMatch(/^hono-floor +GET \/hello, 4 conns +[\d,.]+ +req\/s/m);
    expect(text).toMatch(/HTTP rows, vs floor: the route \/ hono-floor/);
  });

  it('is `dotplan bench --only http`, its sizes flags', async () => {
    const cwd = tempDir();
    const flags = ['--http-nodes', '10', '--http-plans', '3', '--http-requests', '1', '--http-commits', '1', '--http-ms', '1'];
    const run = await runInProcess(['bench', '--only', 'http', '--rounds', '1', ...flags, '--json'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    const { results } = JSON.parse(run.stdout) as { results: BenchResult[] };
    expect(results.filter((r) => r.backend === 'sqlite').map((r) => r.scenario)).toContain('http-plan-get-rate');
    expect(results.some((r) => r.scenario === 'throughput')).toBe(false);
    const wrong = await runInProcess(['bench', '--only', 'engine'], { cwd });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--only "engine": the one group is http/);
    expect((await runInProcess(['bench', '--http-requests', '0'], { cwd })).stderr).toMatch(/--http-requests "0": must be a whole number/);
  });
});

describe('SSE parsing', () => {
  it("reads a message's id, event and data, and skips comments (keep-alives)", () => {
    expect(parseBlock('id: 12\nevent: dotplan\ndata: {"a":1}')).toEqual({ id: '12', event: 'dotplan', data: '{"a":1}' });
    expect(parseBlock(': keep-alive')).toEqual({});
    expect(parseBlock('data:one\r\ndata: two\r\nid:3')).toEqual({ data: 'one\ntwo', id: '3' });
  });
});

describe.skipIf(!postgresUrl)(`the HTTP scenarios on PostgreSQL${postgresUrl ? '' : ' (skipped: set DATABASE_URL=postgres://… to run)'}`, () => {
  it('measures the same in a throw-away database, then drops it', async () => {
    // Its own role: the databases it owns are this run's, not those of the engine bench test running beside it.
    const role = await createOwnRole(postgresUrl!);
    try {
      const fixture = await openHttpBench({ backend: 'postgres', databaseUrl: role.url }, SIZES);
      try {
        await expectRound(fixture, 'postgres');
      } finally {
        await fixture.close();
      }
      expect(await role.ownedDatabases()).toEqual([]);
    } finally {
      await role.drop();
    }
  });
});
