import { parseDuration } from '../model/duration.js';
import type { Attributes } from '../model/types.js';

/**
 * How often and how patiently a node is retried (SPEC §2 `retries`, `retryDelay`, `timeout`): the
 * node's attribute wins over the plan's graph attribute, which wins over the configured default.
 * A value that does not parse falls through to the next layer (the validator reports it).
 */
export interface RetryPolicy {
  /** Further attempts after the first one fails. */
  retries: number;
  /** The first retry's delay; later ones double (see nextRetryDelay). */
  baseDelayMs: number;
  /** Abort an attempt after this long; undefined = no limit. */
  timeoutMs?: number;
}

export interface RetryDefaults {
  retries: number;
  /** A duration text such as '1s' or milliseconds. */
  retryDelay: string | number;
  timeout?: string | number;
}

/** Longest wait between two attempts, whatever the attempt count. */
export const MAX_RETRY_DELAY_MS = 10 * 60_000;

export function retryPolicy(nodeAttrs: Attributes, graphAttrs: Attributes, defaults: RetryDefaults): RetryPolicy {
  const retries = first([nodeAttrs.retries, graphAttrs.retries], parseRetries) ?? defaults.retries;
  const baseDelayMs = first([nodeAttrs.retryDelay, graphAttrs.retryDelay, defaults.retryDelay], toMs) ?? 0;
  const timeoutMs = first([nodeAttrs.timeout, graphAttrs.timeout, defaults.timeout], toMs);
  return timeoutMs === undefined || timeoutMs <= 0 ? { retries, baseDelayMs } : { retries, baseDelayMs, timeoutMs };
}

/** A non-negative whole number of retries, or undefined. */
export function parseRetries(text: string): number | undefined {
  return /^\s*\d+\s*$/.test(text) ? Number(text) : undefined;
}

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed: exponential backoff
 * (base, 2×base, 4×base, …, capped) with equal jitter — half fixed, half random — so retries of
 * many nodes spread out without ever coming back at once.
 */
export function nextRetryDelay(attempt: number, baseDelayMs: number, random: () => number = Math.random): number {
  if (baseDelayMs <= 0) return 0;
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const capped = Math.min(MAX_RETRY_DELAY_MS, baseDelayMs * 2 ** exponent);
  return Math.round(capped / 2 + random() * (capped / 2));
}

function toMs(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  return parseDuration(value);
}

function first<T>(values: readonly (T | undefined)[], parse: (value: T) => number | undefined): number | undefined {
  for (const value of values) {
    if (value === undefined || value === '') continue;
    const parsed = parse(value);
    if (parsed !== undefined) return parsed;
  }
  return undefined;
}
