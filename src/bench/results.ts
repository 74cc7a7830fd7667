/**
 * The benchmark result model: one figure per (backend, scenario) per round; the medians over the
 * rounds with their spread; ratios against graphile-worker (the anchor) and against the floor (what
 * the database itself allows on the machine: PostgreSQL's, floor.ts; SQLite's, sqlite-floor.ts).
 *
 * Ratio convention: `ratio` > 1 means dotplan did better than the anchor in the same round — for
 * throughput dotplan / graphile-worker, for latencies graphile-worker / dotplan — and the reported
 * ratio is the median of the rounds' ratios. `floorRatio` is dotplan's figure divided by the floor's
 * (a share of the floor rate for throughput; a multiple of the floor latency for a chain step).
 */
import type { ValidateShape } from './scenarios/validate-shapes.js';
import { groupBy } from '../model/group-by.js';

export type BenchBackend = 'sqlite' | 'postgres' | 'graphile-worker' | 'postgres-floor' | 'sqlite-floor' | 'hono-floor';
export type BenchScenario =
  | 'throughput'
  | 'chain-latency-p50'
  | 'chain-latency-p95'
  | 'chain-when-p50'
  | 'chain-ladder-p50'
  | 'join-vs-fan-out'
  | 'validate'
  | `validate-${ValidateShape}`
  | `validate-${ValidateShape}-mb`
  | 'rewrite'
  | 'idle-poll'
  | 'agent-chain-p50'
  | 'agent-vs-chain'
  | 'tree-cancel'
  | 'cli-version'
  | 'cli-plan-list'
  | 'paused-claim'
  | 'floor-latency'
  | 'floor-rate'
  | 'http-plan-get-rate'
  | 'http-plan-get-p50'
  | 'http-plan-list-rate'
  | 'http-plan-list-p50'
  | 'http-sse-p50'
  | 'http-sse-p95'
  | 'http-sse-commit-p50'
  | 'http-setup-plan'
  | 'http-setup-plans'
  | 'http-hello-rate'
  | 'http-hello-p50';
export type BenchUnit = 'nodes/s' | 'jobs/s' | 'ms' | 'updates/s' | '×' | 'MB' | 'req/s' | 's';

export interface BenchResult {
  backend: BenchBackend;
  scenario: BenchScenario;
  /** One round's figure, or the median of the rounds. */
  value: number;
  unit: BenchUnit;
  /** The backend this result is compared with (only on dotplan PostgreSQL results). */
  anchor?: string;
  /** How many times better dotplan did than the anchor (> 1 = dotplan better); median of the rounds. */
  ratio?: number;
  /** The floor's figure this result is measured against (dotplan's throughput and chain step, on each backend). */
  floor?: number;
  /** value / floor (median of the rounds). */
  floorRatio?: number;
  /** Every round's value, in round order. */
  rounds?: number[];
}

export const ANCHOR_BACKEND = 'graphile-worker';

/** Whether a larger value is better for the scenario. */
export function higherIsBetter(scenario: BenchScenario): boolean {
  return scenario === 'throughput' || scenario === 'floor-rate' || scenario.endsWith('-rate');
}

const FLOOR_OF: Partial<Record<BenchScenario, BenchScenario>> = { throughput: 'floor-rate', 'chain-latency-p50': 'floor-latency' };
/** Each dotplan backend's floor: the same database's bare committed UPDATE, measured in the same round. */
const FLOOR_BACKEND: Partial<Record<BenchBackend, BenchBackend>> = { sqlite: 'sqlite-floor', postgres: 'postgres-floor' };
/** The HTTP routes' floor (http-floor.ts): the bare Hono route's figure of the same kind, on both backends. */
const HTTP_FLOOR_OF: Partial<Record<BenchScenario, BenchScenario>> = {
  'http-plan-get-rate': 'http-hello-rate',
  'http-plan-get-p50': 'http-hello-p50',
  'http-plan-list-rate': 'http-hello-rate',
  'http-plan-list-p50': 'http-hello-p50',
};

/** One round's results with `anchor`/`ratio` filled in on dotplan's PostgreSQL results, and `floor`/`floorRatio` on dotplan's results on each backend. */
export function withRatios(results: readonly BenchResult[]): BenchResult[] {
  const find = (backend: BenchBackend, scenario: BenchScenario) => results.find((r) => r.backend === backend && r.scenario === scenario);
  return results.map((r) => {
    const httpFloor = HTTP_FLOOR_OF[r.scenario] && find('hono-floor', HTTP_FLOOR_OF[r.scenario]!);
    if (httpFloor && httpFloor.value > 0 && r.value > 0) return { ...r, floor: httpFloor.value, floorRatio: roundRatio(r.value / httpFloor.value) };
    const floorBackend = FLOOR_BACKEND[r.backend];
    if (!floorBackend) return { ...r };
    const out = { ...r };
    const anchor = r.backend === 'postgres' ? find(ANCHOR_BACKEND, r.scenario) : undefined;
    if (anchor && r.value > 0 && anchor.value > 0) {
      out.anchor = ANCHOR_BACKEND;
      out.ratio = round(higherIsBetter(r.scenario) ? r.value / anchor.value : anchor.value / r.value, 3);
    }
    const floorScenario = FLOOR_OF[r.scenario];
    const floor = floorScenario && find(floorBackend, floorScenario);
    if (floor && floor.value > 0) {
      out.floor = floor.value;
      out.floorRatio = round(r.value / floor.value, 3);
    }
    return out;
  });
}

/** The rounds (each rated by withRatios) folded into one result per figure: medians, with every round's value kept. */
export function aggregateRounds(rounds: ReadonlyArray<readonly BenchResult[]>): BenchResult[] {
  const groups = groupBy(rounds.flat(), (r) => `${r.backend}\u0000${r.scenario}`);
  return [...groups.values()].map((list) => {
    const first = list[0]!;
    const out: BenchResult = { backend: first.backend, scenario: first.scenario, value: median(list.map((r) => r.value)), unit: first.unit };
    const ratios = list.flatMap((r) => (r.ratio === undefined ? [] : [r.ratio]));
    if (ratios.length > 0) Object.assign(out, { anchor: first.anchor ?? ANCHOR_BACKEND, ratio: round(median(ratios), 3) });
    const floors = list.flatMap((r) => (r.floor === undefined ? [] : [r.floor]));
    const floorRatios = list.flatMap((r) => (r.floorRatio === undefined ? [] : [r.floorRatio]));
    if (floors.length > 0) Object.assign(out, { floor: median(floors), floorRatio: roundRatio(middle(floorRatios)) });
    out.rounds = list.map((r) => r.value);
    return out;
  });
}

export function median(values: readonly number[]): number {
  return round(middle(values), 3);
}

/** The median, not rounded. */
function middle(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A ratio to 3 decimals, or to 3 significant digits below 1 (an HTTP route's share of the bare route's rate may be 0.000x). */
function roundRatio(value: number): number {
  return value >= 1 ? round(value, 3) : Number(value.toPrecision(3));
}

/** The `--json` shape: `{"results":[{"backend","scenario","value","unit","anchor"?,"ratio"?,"floor"?,"floorRatio"?,"rounds"?}]}`. */
export function toJson(results: readonly BenchResult[]): { results: BenchResult[] } {
  const keys = ['backend', 'scenario', 'value', 'unit', 'anchor', 'ratio', 'floor', 'floorRatio', 'rounds'] as const;
  return { results: results.map((r) => Object.fromEntries(keys.filter((k) => r[k] !== undefined).map((k) => [k, r[k]])) as unknown as BenchResult) };
}

/** The issue's targets, checked on the medians: `undefined` when a figure has none. */
export function targets(r: BenchResult): Array<{ text: string; met: boolean }> {
  const out: Array<{ text: string; met: boolean }> = [];
  if (r.backend === 'sqlite' && r.scenario === 'throughput') out.push({ text: '≥ 14,000 nodes/s', met: r.value >= 14_000 });
  if (r.backend === 'sqlite' && r.scenario === 'chain-latency-p50') out.push({ text: '≤ 0.2 ms', met: r.value <= 0.2 });
  if (r.backend === 'postgres' && r.scenario === 'throughput') {
    if (r.ratio !== undefined) out.push({ text: `≥ 2.5× ${ANCHOR_BACKEND}`, met: r.ratio >= 2.5 });
    if (r.floorRatio !== undefined) out.push({ text: '≥ 0.6× floor', met: r.floorRatio >= 0.6 });
  }
  if (r.backend === 'postgres' && r.scenario === 'chain-latency-p50') {
    if (r.ratio !== undefined) out.push({ text: `≤ 0.3× ${ANCHOR_BACKEND}'s time`, met: 1 / r.ratio <= 0.3 });
    if (r.floorRatio !== undefined) out.push({ text: '≤ 2.5× floor', met: r.floorRatio <= 2.5 });
  }
  if (r.scenario === 'join-vs-fan-out') out.push({ text: '≤ 1.5×', met: r.value <= 1.5 });
  if (r.scenario === 'validate' || (r.scenario.startsWith('validate-') && r.unit === 'ms')) out.push({ text: '< 1,000 ms', met: r.value < 1000 });
  if (r.scenario.startsWith('validate-') && r.unit === 'MB') out.push({ text: '< 200 MB', met: r.value < 200 });
  if (r.backend === 'sqlite' && r.scenario === 'rewrite') out.push({ text: '≤ 150 ms', met: r.value <= 150 });
  if (r.scenario === 'idle-poll') out.push({ text: '< 20 ms', met: r.value < 20 });
  if (r.scenario === 'agent-vs-chain') out.push({ text: '≤ 3×', met: r.value <= 3 });
  if (r.scenario === 'tree-cancel') out.push({ text: '< 1,000 ms', met: r.value < 1000 });
  if (r.scenario === 'cli-version') out.push({ text: '≤ 2×', met: r.value <= 2 });
  if (r.scenario === 'cli-plan-list') out.push({ text: '≤ 4×', met: r.value <= 4 });
  if (r.scenario === 'paused-claim') out.push({ text: '≤ 1.2×', met: r.value <= 1.2 });
  if (r.scenario === 'http-sse-p50') out.push({ text: '≤ 20 ms', met: r.value <= 20 });
  return out;
}

const LABELS: Record<BenchScenario, string> = {
  throughput: 'throughput',
  'chain-latency-p50': 'chain step p50',
  'chain-latency-p95': 'chain step p95',
  'chain-when-p50': 'when-chain step p50',
  'chain-ladder-p50': 'two-parent step p50',
  'join-vs-fan-out': 'join / fan-out time',
  validate: 'validate 10k nodes',
  'validate-chain5': 'validate, chain of 5 refs',
  'validate-chain5-mb': 'validate, chain of 5 refs, peak',
  'validate-fan-in': 'validate, fan-in join',
  'validate-fan-in-mb': 'validate, fan-in join, peak',
  'validate-ladder': 'validate, ladder',
  'validate-ladder-mb': 'validate, ladder, peak',
  'validate-random': 'validate, random DAG',
  'validate-random-mb': 'validate, random DAG, peak',
  rewrite: 'LLM rewrite, 1k nodes',
  'idle-poll': 'idle poll',
  'agent-chain-p50': 'agent step p50 (1-node child)',
  'agent-vs-chain': 'agent step / plain step',
  'tree-cancel': 'cancel a tree of 1,000 plans',
  'cli-version': 'dotplan --version / node -e 0',
  'cli-plan-list': 'plan list (100 plans) / node -e 0',
  'paused-claim': 'claim beside a paused plan / alone',
  'floor-latency': 'UPDATE latency p50',
  'floor-rate': 'UPDATEs, 10 conns',
  'http-plan-get-rate': 'GET /v1/plans/{id} (large), 4 conns',
  'http-plan-get-p50': 'GET /v1/plans/{id} (large) p50',
  'http-plan-list-rate': 'GET /v1/plans?limit=100, 4 conns',
  'http-plan-list-p50': 'GET /v1/plans?limit=100 p50',
  'http-sse-p50': 'commit → SSE client p50',
  'http-sse-p95': 'commit → SSE client p95',
  'http-sse-commit-p50': 'the commit call alone p50',
  'http-setup-plan': 'HTTP setup: the large plan (once)',
  'http-setup-plans': 'HTTP setup: the listed plans (once)',
  'http-hello-rate': 'GET /hello, 4 conns',
  'http-hello-p50': 'GET /hello p50',
};

/** A figure's name in the table and the round lines: SQLite's floor rate is one connection's (it has one writer). */
function labelOf(r: BenchResult): string {
  return r.backend === 'sqlite-floor' && r.scenario === 'floor-rate' ? 'UPDATEs, 1 conn' : LABELS[r.scenario];
}

/** An aligned table of the medians: spread over the rounds, ratios, targets; the machine in the header. */
export function formatTable(results: readonly BenchResult[], machine: string, roundCount = 1): string {
  const header = ['backend', 'scenario', 'median', 'unit', 'rounds (min–max)', `vs ${ANCHOR_BACKEND}`, 'vs floor', 'target'];
  const rows = results.map((r) => {
    const spread = r.rounds && r.rounds.length > 1 ? `${formatNumber(Math.min(...r.rounds), r.unit)}–${formatNumber(Math.max(...r.rounds), r.unit)}` : '';
    return [
      r.backend,
      labelOf(r),
      formatValue(r),
      r.unit,
      spread,
      r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×`,
      r.floorRatio === undefined ? '' : `${r.floorRatio >= 0.1 ? r.floorRatio.toFixed(2) : r.floorRatio.toPrecision(2)}×`,
      targets(r)
        .map((t) => `${t.text} ${t.met ? 'met' : 'MISSED'}`)
        .join('; '),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const numeric = new Set([2, 5, 6]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [
    `Machine: ${machine}`,
    `Medians of ${roundCount} round${roundCount === 1 ? '' : 's'}, dotplan and ${ANCHOR_BACKEND} interleaved.`,
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
  ];
  out.push(...(rows.length > 0 ? rows.map(line) : ['(no results)']));
  out.push(
    '',
    `vs ${ANCHOR_BACKEND}: > 1 means dotplan did better on the same PostgreSQL (throughput: dotplan / ${ANCHOR_BACKEND}; latencies: ${ANCHOR_BACKEND} / dotplan), median of the rounds' ratios.`,
    'vs floor: dotplan / the floor (postgres-floor: a bare committed single-row UPDATE … RETURNING, its rate over 10 connections, its p50 latency on one).',
  );
  if (results.some((r) => r.backend === 'sqlite-floor'))
    out.push(
      "SQLite rows, vs floor: dotplan / sqlite-floor (the same UPDATE … RETURNING in a BEGIN IMMEDIATE transaction on a fresh file set as the store's, on its one connection: its rate, its p50 latency).",
    );
  if (results.some((r) => HTTP_FLOOR_OF[r.scenario] !== undefined || r.backend === 'hono-floor'))
    out.push(
      'HTTP rows, vs floor: the route / hono-floor (a bare Hono app answering GET /hello, served and loaded the same way in the same round): a share of its requests/s, a multiple of its p50.',
    );
  return out.join('\n');
}

/** One line per round: every figure of that round. */
export function formatRound(index: number, results: readonly BenchResult[]): string {
  return `round ${index}: ${results.map((r) => `${r.backend} ${labelOf(r)} ${formatValue(r)} ${r.unit}`).join(' · ')}`;
}

export function formatValue(r: BenchResult): string {
  return formatNumber(r.value, r.unit);
}

function formatNumber(value: number, unit: BenchUnit): string {
  // A figure under a tenth of a millisecond (SQLite's floor, an idle poll) keeps its third decimal.
  if (unit === 'ms') return value.toFixed(value < 0.1 ? 3 : 2);
  if (unit === '×') return value.toFixed(2);
  if (unit === 's') return value.toFixed(1);
  if (unit === 'req/s' && value < 100) return value.toFixed(1);
  return Math.round(value).toLocaleString('en-US');
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
