import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { benchGraphileWorker } from '../../src/bench/graphile.js';
import { renderBench, runBench, type DotplanBenchTarget } from '../../src/bench/run.js';
import type { BenchResult } from '../../src/bench/results.js';

const url = process.env.DATABASE_URL;
const postgresUrl = url !== undefined && /^postgres(ql)?:\/\//.test(url) ? url : undefined;
const reason = postgresUrl ? '' : ' (skipped: set DATABASE_URL=postgres://… to run)';

if (!postgresUrl && process.env.DB === 'postgres') {
  throw new Error('DB=postgres but DATABASE_URL is not a postgres:// URL: the graphile-worker benchmark cannot run');
}

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
    await expect(
      benchGraphileWorker({ connectionString: postgresUrl!, jobs: 1, chain: 2, schema: 'x; drop table y' }),
    ).rejects.toThrow(/Invalid schema name/);
  });

  it('runs the whole harness: dotplan on SQLite and PostgreSQL, graphile-worker, ratios', async () => {
    const targets: DotplanBenchTarget[] = [];
    // Stands in for dotplan's own scenarios (the worker's); fixed figures make the ratios checkable.
    const dotplan = async (target: DotplanBenchTarget): Promise<BenchResult[]> => {
      targets.push(target);
      return [
        { backend: target.backend, scenario: 'throughput', value: 1_000_000, unit: 'nodes/s' },
        { backend: target.backend, scenario: 'chain-latency-p50', value: 0.001, unit: 'ms' },
      ];
    };
    const report = await runBench({ postgresUrl, dotplan, sizes: { nodes: 100, chain: 10 } });

    expect(targets.map((t) => t.backend)).toEqual(['sqlite', 'postgres']);
    expect(targets[0]!.databaseUrl).toMatch(/^file:.*dotplan-bench-.*bench\.db$/);
    expect(existsSync(targets[0]!.databaseUrl.slice('file:'.length))).toBe(false); // temp dir removed
    expect(targets[1]!.databaseUrl).toBe(postgresUrl);
    expect(report.machine).toMatch(/PostgreSQL \d+/);

    const json = JSON.parse(renderBench(report, { json: true })) as { results: BenchResult[] };
    const pgThroughput = json.results.find((r) => r.backend === 'postgres' && r.scenario === 'throughput')!;
    expect(pgThroughput.anchor).toBe('graphile-worker');
    expect(pgThroughput.ratio).toBeGreaterThan(1);
    expect(json.results.filter((r) => r.backend === 'graphile-worker')).toHaveLength(3);
    expect(json.results.filter((r) => r.backend === 'sqlite').every((r) => r.ratio === undefined)).toBe(true);

    const table = renderBench(report);
    expect(table.split('\n')[0]).toMatch(/^Machine: .* cores? · /);
    expect(table).toMatch(/graphile-worker\s+throughput/);
  });
});

describe('the harness without PostgreSQL', () => {
  it('measures SQLite only and says why PostgreSQL and graphile-worker were skipped', async () => {
    const seen: string[] = [];
    const report = await runBench({
      dotplan: async (t) => {
        seen.push(t.backend);
        return [{ backend: t.backend, scenario: 'throughput', value: 3000, unit: 'nodes/s' }];
      },
    });
    expect(seen).toEqual(['sqlite']);
    expect(report.results).toEqual([{ backend: 'sqlite', scenario: 'throughput', value: 3000, unit: 'nodes/s' }]);
    expect(report.warnings.join('\n')).toMatch(/no PostgreSQL URL.*graphile-worker skipped/);
    expect(report.machine).not.toContain('PostgreSQL');
  });
});
