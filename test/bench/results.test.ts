import { describe, expect, it } from 'vitest';
import { describeMachine, machineFacts } from '../../src/bench/machine.js';
import { aggregateRounds, formatTable, median, toJson, withRatios, type BenchResult } from '../../src/bench/results.js';
import { chainLatencyResults, gaps, percentile, throughputResult } from '../../src/bench/stats.js';

const sample: BenchResult[] = [
  { backend: 'sqlite', scenario: 'throughput', value: 3500, unit: 'nodes/s' },
  { backend: 'sqlite', scenario: 'chain-latency-p50', value: 2.5, unit: 'ms' },
  { backend: 'postgres', scenario: 'throughput', value: 3300, unit: 'nodes/s' },
  { backend: 'postgres', scenario: 'chain-latency-p50', value: 2, unit: 'ms' },
  { backend: 'postgres', scenario: 'chain-latency-p95', value: 8, unit: 'ms' },
  { backend: 'postgres', scenario: 'idle-poll', value: 4.2, unit: 'ms' },
  { backend: 'graphile-worker', scenario: 'throughput', value: 2200, unit: 'jobs/s' },
  { backend: 'graphile-worker', scenario: 'chain-latency-p50', value: 3, unit: 'ms' },
  { backend: 'graphile-worker', scenario: 'chain-latency-p95', value: 4, unit: 'ms' },
  { backend: 'postgres-floor', scenario: 'floor-latency', value: 0.5, unit: 'ms' },
  { backend: 'postgres-floor', scenario: 'floor-rate', value: 11000, unit: 'updates/s' },
];

const find = (rs: BenchResult[], backend: string, scenario: string) => rs.find((r) => r.backend === backend && r.scenario === scenario)!;

describe('withRatios', () => {
  const rated = withRatios(sample);

  it('rates dotplan on PostgreSQL so that > 1 means dotplan did better', () => {
    expect(find(rated, 'postgres', 'throughput')).toMatchObject({ anchor: 'graphile-worker', ratio: 1.5 });
    // latency: graphile / dotplan — a faster step than graphile-worker's gives > 1, a slower one < 1
    expect(find(rated, 'postgres', 'chain-latency-p50')).toMatchObject({ anchor: 'graphile-worker', ratio: 1.5 });
    expect(find(rated, 'postgres', 'chain-latency-p95')).toMatchObject({ ratio: 0.5 });
  });

  it('leaves SQLite, graphile-worker and unanchored scenarios without a ratio', () => {
    for (const r of rated.filter((r) => r.backend !== 'postgres' || r.scenario === 'idle-poll')) {
      expect(r.floor).toBeUndefined();
      expect(r.ratio, `${r.backend} ${r.scenario}`).toBeUndefined();
      expect(r.anchor).toBeUndefined();
    }
  });

  it('measures dotplan on PostgreSQL against the floor: a share of its rate, a multiple of its latency', () => {
    expect(find(rated, 'postgres', 'throughput')).toMatchObject({ floor: 11000, floorRatio: 0.3 });
    expect(find(rated, 'postgres', 'chain-latency-p50')).toMatchObject({ floor: 0.5, floorRatio: 4 });
  });

  it("measures dotplan on SQLite against SQLite's own floor, never against graphile-worker or PostgreSQL's", () => {
    const withSqliteFloor = withRatios([
      ...sample,
      { backend: 'sqlite-floor', scenario: 'floor-latency', value: 0.025, unit: 'ms' },
      { backend: 'sqlite-floor', scenario: 'floor-rate', value: 35000, unit: 'updates/s' },
    ]);
    expect(find(withSqliteFloor, 'sqlite', 'throughput')).toMatchObject({ floor: 35000, floorRatio: 0.1 });
    expect(find(withSqliteFloor, 'sqlite', 'chain-latency-p50')).toMatchObject({ floor: 0.025, floorRatio: 100 });
    for (const r of withSqliteFloor.filter((r) => r.backend === 'sqlite')) expect(r.ratio).toBeUndefined();
    // PostgreSQL's rows keep PostgreSQL's floor.
    expect(find(withSqliteFloor, 'postgres', 'chain-latency-p50')).toMatchObject({ floor: 0.5, floorRatio: 4 });
  });

  it('gives no ratio when graphile-worker was not measured', () => {
    const rs = withRatios(sample.filter((r) => r.backend !== 'graphile-worker'));
    expect(rs.some((r) => r.ratio !== undefined)).toBe(false);
  });
});

describe('rounds', () => {
  it("fold into medians that keep every round, with the median of the rounds' ratios", () => {
    const round = (dotplan: number, graphile: number): BenchResult[] =>
      withRatios([
        { backend: 'postgres', scenario: 'throughput', value: dotplan, unit: 'nodes/s' },
        { backend: 'graphile-worker', scenario: 'throughput', value: graphile, unit: 'jobs/s' },
      ]);
    const [pg, gw] = aggregateRounds([round(3000, 1000), round(6000, 4000), round(4000, 1000)]);
    expect(pg).toEqual({
      backend: 'postgres',
      scenario: 'throughput',
      value: 4000,
      unit: 'nodes/s',
      anchor: 'graphile-worker',
      ratio: 3,
      rounds: [3000, 6000, 4000],
    });
    expect(gw).toMatchObject({ value: 1000, rounds: [1000, 4000, 1000] });
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe('toJson', () => {
  it('prints exactly {"results":[{backend,scenario,value,unit,anchor?,ratio?,floor?,floorRatio?,rounds?}]}', () => {
    const json = JSON.parse(JSON.stringify(toJson(withRatios(sample)))) as { results: BenchResult[] };
    expect(Object.keys(json)).toEqual(['results']);
    expect(json.results).toHaveLength(sample.length);
    expect(json.results[0]).toEqual({ backend: 'sqlite', scenario: 'throughput', value: 3500, unit: 'nodes/s' });
    expect(json.results[2]).toEqual({
      backend: 'postgres',
      scenario: 'throughput',
      value: 3300,
      unit: 'nodes/s',
      anchor: 'graphile-worker',
      ratio: 1.5,
      floor: 11000,
      floorRatio: 0.3,
    });
    const extra = { ...sample[0]!, note: 'x' } as BenchResult;
    expect(Object.keys(toJson([extra]).results[0]!)).toEqual(['backend', 'scenario', 'value', 'unit']);
  });
});

describe('formatTable', () => {
  const text = formatTable(withRatios(sample), 'Test CPU · 2 cores · 4 GiB · Node v20 · PostgreSQL 15.8');
  const lines = text.split('\n');

  it('names the machine in the header and explains the ratio convention', () => {
    expect(lines[0]).toBe('Machine: Test CPU · 2 cores · 4 GiB · Node v20 · PostgreSQL 15.8');
    expect(text).toMatch(/> 1 means dotplan did better on the same PostgreSQL/);
    expect(text).toMatch(/vs floor: dotplan \/ the floor/);
  });

  it('shows one aligned row per result with values, ratios and targets', () => {
    const rows = lines.filter((l) => /^(sqlite|postgres|graphile-worker|postgres-floor) /.test(l));
    expect(rows).toHaveLength(sample.length);
    const pgThroughput = rows.find((l) => l.startsWith('postgres ') && l.includes('throughput'))!;
    expect(pgThroughput).toMatch(/3,300\s+nodes\/s\s+1\.50×\s+0\.30×\s+≥ 2\.5× graphile-worker MISSED; ≥ 0\.6× floor MISSED/);
    expect(rows.find((l) => l.includes('chain step p50') && l.startsWith('postgres '))).toMatch(
      /1\.50×\s+4\.00×\s+≤ 0\.3× graphile-worker's time MISSED; ≤ 2\.5× floor MISSED/,
    );
    expect(rows.find((l) => l.startsWith('sqlite') && l.includes('p50'))).toMatch(/2\.50\s+ms.*≤ 0\.2 ms MISSED/);
    expect(rows.find((l) => l.startsWith('sqlite') && l.includes('throughput'))).toMatch(/≥ 14,000 nodes\/s MISSED/);
    // the unit column starts at the same place on every row (aligned)
    const unitAt = lines.find((l) => l.startsWith('backend'))!.indexOf('unit');
    for (const row of rows) expect(row.slice(unitAt)).toMatch(/^(nodes\/s|jobs\/s|ms|updates\/s)( |$)/);
  });

  it("names SQLite's floor as one connection's, with a third decimal under a tenth of a millisecond", () => {
    const withSqliteFloor = formatTable(
      withRatios([
        ...sample,
        { backend: 'sqlite-floor', scenario: 'floor-latency', value: 0.0213, unit: 'ms' },
        { backend: 'sqlite-floor', scenario: 'floor-rate', value: 35000, unit: 'updates/s' },
      ]),
      'm',
    ).split('\n');
    expect(withSqliteFloor.find((l) => l.startsWith('sqlite-floor') && l.includes('latency'))).toMatch(/UPDATE latency p50\s+0\.021\s+ms/);
    expect(withSqliteFloor.find((l) => l.startsWith('sqlite-floor') && l.includes('35,000'))).toMatch(/UPDATEs, 1 conn\s+35,000\s+updates\/s/);
    expect(withSqliteFloor.find((l) => l.startsWith('sqlite ') && l.includes('chain step p50'))).toMatch(/2\.50\s+ms\s+117\.37×\s+≤ 0\.2 ms MISSED/);
    expect(withSqliteFloor).toContain(
      "SQLite rows, vs floor: dotplan / sqlite-floor (the same UPDATE … RETURNING in a BEGIN IMMEDIATE transaction on a fresh file set as the store's, on its one connection: its rate, its p50 latency).",
    );
    // Without SQLite's floor the table does not explain it.
    expect(text).not.toMatch(/sqlite-floor/);
  });

  it('says so when there is nothing to show', () => {
    expect(formatTable([], 'm')).toContain('(no results)');
  });
});

describe('stats', () => {
  it('computes nearest-rank percentiles and step gaps', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
    expect(gaps([10, 12, 15, 25])).toEqual([2, 3, 10]);
  });

  it('turns step starts into p50/p95 and counts into per-second throughput', () => {
    const starts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 39];
    expect(chainLatencyResults('sqlite', starts).map((r) => [r.scenario, r.value])).toEqual([
      ['chain-latency-p50', 1],
      ['chain-latency-p95', 1],
    ]);
    expect(chainLatencyResults('sqlite', [...starts, 79])[1]!.value).toBe(20); // gaps: 19 × 1, 20, 40
    expect(throughputResult('postgres', 10_000, 4000)).toEqual({
      backend: 'postgres',
      scenario: 'throughput',
      value: 2500,
      unit: 'nodes/s',
    });
    expect(throughputResult('graphile-worker', 500, 250).unit).toBe('jobs/s');
  });
});

describe('machine', () => {
  it('describes this machine: cpu, cores, memory, node, and PostgreSQL when known', () => {
    const line = describeMachine(machineFacts('15.8'));
    expect(line).toContain(`Node ${process.version}`);
    expect(line).toMatch(/ · \d+ cores? · [\d.]+ GiB · /);
    expect(line).toMatch(/PostgreSQL 15\.8$/);
    expect(describeMachine(machineFacts())).not.toContain('PostgreSQL');
  });
});
