/**
 * The benchmark result model and its two renderings: an aligned table for people and the
 * `{"results":[...]}` JSON for machines (`dotplan bench --json`).
 *
 * Ratio convention: `ratio` > 1 means dotplan did better than the anchor (graphile-worker on the
 * same PostgreSQL in the same run). For throughput it is dotplan / graphile-worker; for latencies it
 * is graphile-worker / dotplan. Only dotplan's PostgreSQL results get a ratio: that is the like-for-like
 * comparison (same database, same machine, same shapes).
 */
export type BenchBackend = 'sqlite' | 'postgres' | 'graphile-worker';
export type BenchScenario = 'throughput' | 'chain-latency-p50' | 'chain-latency-p95' | 'idle-poll';
export type BenchUnit = 'nodes/s' | 'jobs/s' | 'ms';

export interface BenchResult {
  backend: BenchBackend;
  scenario: BenchScenario;
  value: number;
  unit: BenchUnit;
  /** The backend this result is compared with (only on dotplan PostgreSQL results). */
  anchor?: string;
  /** How many times better dotplan did than the anchor (> 1 = dotplan better). */
  ratio?: number;
}

export const ANCHOR_BACKEND = 'graphile-worker';

/** Whether a larger value is better for the scenario (throughput) or a smaller one (latencies). */
export function higherIsBetter(scenario: BenchScenario): boolean {
  return scenario === 'throughput';
}

/**
 * Returns the results with `anchor`/`ratio` filled in on dotplan's PostgreSQL results for every
 * scenario graphile-worker was also measured on. Other results are returned unchanged.
 */
export function withRatios(results: readonly BenchResult[]): BenchResult[] {
  const anchors = new Map<BenchScenario, BenchResult>();
  for (const r of results) if (r.backend === ANCHOR_BACKEND) anchors.set(r.scenario, r);
  return results.map((r) => {
    const anchor = anchors.get(r.scenario);
    if (r.backend !== 'postgres' || !anchor || r.value <= 0 || anchor.value <= 0) return { ...r };
    const ratio = higherIsBetter(r.scenario) ? r.value / anchor.value : anchor.value / r.value;
    return { ...r, anchor: ANCHOR_BACKEND, ratio: round(ratio, 3) };
  });
}

/** The `--json` shape: exactly `{"results":[{"backend","scenario","value","unit","anchor"?,"ratio"?}]}`. */
export function toJson(results: readonly BenchResult[]): { results: BenchResult[] } {
  return {
    results: results.map((r) => ({
      backend: r.backend,
      scenario: r.scenario,
      value: r.value,
      unit: r.unit,
      ...(r.anchor !== undefined ? { anchor: r.anchor } : {}),
      ...(r.ratio !== undefined ? { ratio: r.ratio } : {}),
    })),
  };
}

/** The targets, shown next to each figure: `undefined` when a scenario has none. */
export function target(r: BenchResult): { text: string; met: boolean } | undefined {
  if (r.scenario === 'idle-poll') return { text: '< 20 ms', met: r.value < 20 };
  if (r.backend === 'sqlite' && r.scenario === 'throughput') {
    return { text: '≥ 3,000 nodes/s', met: r.value >= 3000 };
  }
  if (r.backend === 'sqlite') return { text: '≤ 2 ms', met: r.value <= 2 };
  if (r.backend === 'postgres' && r.ratio !== undefined) {
    return { text: `${higherIsBetter(r.scenario) ? '≥' : '≤'} ${ANCHOR_BACKEND}`, met: r.ratio >= 1 };
  }
  return undefined;
}

const LABELS: Record<BenchScenario, string> = {
  throughput: 'throughput',
  'chain-latency-p50': 'chain step p50',
  'chain-latency-p95': 'chain step p95',
  'idle-poll': 'idle poll',
};

/** A readable, aligned table with the machine named in its header and the ratio convention below. */
export function formatTable(results: readonly BenchResult[], machine: string): string {
  const header = ['backend', 'scenario', 'value', 'unit', `vs ${ANCHOR_BACKEND}`, 'target'];
  const rows = results.map((r) => {
    const t = target(r);
    return [
      r.backend,
      LABELS[r.scenario],
      formatValue(r),
      r.unit,
      r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×`,
      t === undefined ? '' : `${t.text} ${t.met ? 'met' : 'MISSED'}`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const numeric = new Set([2, 4]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [`Machine: ${machine}`, '', line(header), line(widths.map((w) => '-'.repeat(w)))];
  out.push(...(rows.length > 0 ? rows.map(line) : ['(no results)']));
  out.push(
    '',
    `Ratios: > 1 means dotplan did better than ${ANCHOR_BACKEND} on the same PostgreSQL in this run`,
    `(throughput: dotplan / ${ANCHOR_BACKEND}; latencies: ${ANCHOR_BACKEND} / dotplan).`,
  );
  return out.join('\n');
}

export function formatValue(r: BenchResult): string {
  if (r.unit === 'ms') return r.value.toFixed(2);
  return Math.round(r.value).toLocaleString('en-US');
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
