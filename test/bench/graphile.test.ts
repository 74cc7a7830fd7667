import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { benchGraphileWorker } from '../../src/bench/graphile.js';
import { renderBench, runBench, type DotplanBenchTarget } from '../../src/bench/run.js';
import type { BenchResult } from '../../src/bench/results.js';
import { benchPostgresUrl } from '../support/db.js';

const postgresUrl = benchPostgresUrl();
const reason = postgresUrl ? '' : ' (skipped: set DATABASE_URL=postgres://… to run)';

async function schemaExists(schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const res = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
    return res.rowCount === 1;
  } finally {
    await client.end();
  }
}

describe.skipIf(!postgresUrl)(`graphile-worker on PostgreSQL${reason}`, () => {
  const schema = `graphile_bench_test_${randomBytes(4).toString('hex')}`;
  const warnings: string[] = [];

  afterAll(async () => {
    if (postgresUrl && (await schemaExists(schema))) {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA ${client.escapeIdentifier(schema)} CASCADE`).finally(() => client.end());
    }
  });

  it('measures throughput and chain latency in a throw-away schema, then drops it', async () => {
    const results = await benchGraphileWorker({
      connectionString: postgresUrl!,
      jobs: 200,
      chain: 20,
      concurrency: 10,
      schema,
      warn: (line) => warnings.push(line),
    });
    expect(warnings).toEqual([]);
    expect(results.map((r) => [r.backend, r.scenario, r.unit])).toEqual([
      ['graphile-worker', 'throughput', 'jobs/s'],
      ['graphile-worker', 'chain-latency-p50', 'ms'],
      ['graphile-worker', 'chain-latency-p95', 'ms'],
    ]);
    for (const r of results) expect(r.value, r.scenario).toBeGreaterThan(0);
    const [, p50, p95] = results as [BenchResult, BenchResult, BenchResult];
    expect(p95.value).toBeGreaterThanOrEqual(p50.value);
    // a chain step is woken by LISTEN/NOTIFY, not by the 2 s poll
    expect(p50.value).toBeLessThan(500);
    expect(await schemaExists(schema)).toBe(false);
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(benchGraphileWorker({ connectionString: postgresUrl!, jobs: 1, chain: 2, schema: 'x; drop table y' })).rejects.toThrow(/Invalid schema name/);
  });

  it('runs the whole harness in interleaved rounds: dotplan on SQLite and PostgreSQL, graphile-worker, the floor; medians and ratios', async () => {
    const targets: DotplanBenchTarget[] = [];
    const phases: string[] = [];
    // Stands in for dotplan's own scenarios (the worker's); fixed figures make the ratios checkable.
    const dotplan = async (target: DotplanBenchTarget): Promise<BenchResult[]> => {
      targets.push(target);
      return [
        { backend: target.backend, scenario: 'throughput', value: 1_000_000 + targets.length, unit: 'nodes/s' },
        { backend: target.backend, scenario: 'chain-latency-p50', value: 0.001, unit: 'ms' },
      ];
    };
    const sizes = { nodes: 100, chain: 10, floor: { updates: 200, rateMs: 200 } };
    const report = await runBench({ postgresUrl, dotplan, sizes, rounds: 2, progress: (line) => phases.push(line) });

    // Round 1 runs everything, then round 2 does: dotplan and graphile-worker interleaved.
    expect(phases.filter((l) => / on /.test(l)).map((l) => l.replace(/…$/, ''))).toEqual([
      'round 1/2: dotplan on SQLite',
      'round 1/2: the floor (bare UPDATEs) on SQLite',
      'round 1/2: dotplan on PostgreSQL',
      'round 1/2: graphile-worker on PostgreSQL',
      'round 1/2: the floor (bare UPDATEs) on PostgreSQL',
      'round 2/2: dotplan on SQLite',
      'round 2/2: the floor (bare UPDATEs) on SQLite',
      'round 2/2: dotplan on PostgreSQL',
      'round 2/2: graphile-worker on PostgreSQL',
      'round 2/2: the floor (bare UPDATEs) on PostgreSQL',
    ]);
    expect(targets.map((t) => t.backend)).toEqual(['sqlite', 'postgres', 'sqlite', 'postgres']);
    expect(report.rounds).toHaveLength(2);
    expect(targets[0]!.databaseUrl).toMatch(/^file:.*dotplan-bench-.*bench\.db$/);
    expect(existsSync(targets[0]!.databaseUrl.slice('file:'.length))).toBe(false); // temp dir removed
    expect(targets[1]!.databaseUrl).toBe(postgresUrl);
    expect(report.machine).toMatch(/PostgreSQL \d+/);

    const json = JSON.parse(renderBench(report, { json: true })) as { results: BenchResult[] };
    const pgThroughput = json.results.find((r) => r.backend === 'postgres' && r.scenario === 'throughput')!;
    expect(pgThroughput.anchor).toBe('graphile-worker');
    expect(pgThroughput.ratio).toBeGreaterThan(1);
    // Every result keeps its rounds; the value is their median.
    expect(pgThroughput.rounds).toEqual([1_000_002, 1_000_004]);
    expect(pgThroughput.value).toBe(1_000_003);
    const floorRate = json.results.find((r) => r.backend === 'postgres-floor' && r.scenario === 'floor-rate')!;
    expect(floorRate.rounds).toHaveLength(2);
    expect(pgThroughput.floor).toBeGreaterThan(0);
    // The floor ratio is the median of each round's ratio (dotplan's round against the floor's same round).
    const floors = floorRate.rounds!;
    expect(pgThroughput.floorRatio).toBeGreaterThanOrEqual(Math.min(...pgThroughput.rounds!) / Math.max(...floors) - 0.001);
    expect(pgThroughput.floorRatio).toBeLessThanOrEqual(Math.max(...pgThroughput.rounds!) / Math.min(...floors) + 0.001);
    expect(json.results.find((r) => r.backend === 'postgres' && r.scenario === 'chain-latency-p50')!.floor).toBeGreaterThan(0);
    expect(json.results.filter((r) => r.backend === 'graphile-worker')).toHaveLength(3);
    // SQLite is rated against its own floor, measured in each round beside it; graphile-worker runs on PostgreSQL only.
    expect(json.results.filter((r) => r.backend === 'sqlite').every((r) => r.ratio === undefined)).toBe(true);
    const sqliteFloorRate = json.results.find((r) => r.backend === 'sqlite-floor' && r.scenario === 'floor-rate')!;
    expect(sqliteFloorRate.rounds).toHaveLength(2);
    expect(json.results.find((r) => r.backend === 'sqlite' && r.scenario === 'throughput')!.floor).toBe(sqliteFloorRate.value);

    const text = renderBench(report);
    expect(
      text
        .split('\n')
        .slice(0, 2)
        .map((l) => l.slice(0, 9)),
    ).toEqual(['round 1: ', 'round 2: ']); // every round printed
    expect(text).toMatch(/^Machine: .* cores? · /m);
    expect(text).toMatch(/graphile-worker\s+throughput/);
  });
});

describe('the harness without PostgreSQL', () => {
  it("measures SQLite only, with SQLite's floor, and says why PostgreSQL and graphile-worker were skipped", async () => {
    const seen: string[] = [];
    const report = await runBench({
      dotplan: async (t) => {
        seen.push(t.backend);
        return [{ backend: t.backend, scenario: 'throughput', value: 3000, unit: 'nodes/s' }];
      },
      sizes: { floor: { updates: 20, rateMs: 20 } },
    });
    expect(seen).toEqual(['sqlite', 'sqlite', 'sqlite']); // three rounds by default
    expect(report.results.map((r) => `${r.backend} ${r.scenario} ${r.rounds!.length}`)).toEqual([
      'sqlite throughput 3',
      'sqlite-floor floor-latency 3',
      'sqlite-floor floor-rate 3',
    ]);
    const [throughput, , floorRate] = report.results;
    expect(throughput).toMatchObject({ value: 3000, rounds: [3000, 3000, 3000], floor: floorRate!.value });
    expect(throughput!.floorRatio).toBeGreaterThan(0);
    expect(report.warnings.join('\n')).toMatch(/no PostgreSQL URL.*graphile-worker and PostgreSQL's floor skipped/);
    expect(report.machine).not.toContain('PostgreSQL');
  });
});
