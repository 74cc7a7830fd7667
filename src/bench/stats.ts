import type { BenchBackend, BenchResult } from './results.js';

/**
 * Figures shared by every backend's benchmark, so that dotplan and graphile-worker are measured
 * the same way.
 */

/** The p-th percentile (0–100) by nearest rank; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Gaps between consecutive timestamps (ms), e.g. the starts of a chain's steps. */
export function gaps(timestamps: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < timestamps.length; i++) out.push(timestamps[i]! - timestamps[i - 1]!);
  return out;
}

/** Chain latency: p50 and p95 of the gaps between consecutive step starts (ms per step). */
export function chainLatencyResults(backend: BenchBackend, stepStarts: readonly number[]): BenchResult[] {
  const steps = gaps(stepStarts);
  return [
    { backend, scenario: 'chain-latency-p50', value: roundMs(percentile(steps, 50)), unit: 'ms' },
    { backend, scenario: 'chain-latency-p95', value: roundMs(percentile(steps, 95)), unit: 'ms' },
  ];
}

/** Throughput from a count and the elapsed milliseconds. */
export function throughputResult(backend: BenchBackend, count: number, elapsedMs: number): BenchResult {
  const unit = backend === 'graphile-worker' ? 'jobs/s' : 'nodes/s';
  return { backend, scenario: 'throughput', value: Math.round((count / elapsedMs) * 1000), unit };
}

function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
