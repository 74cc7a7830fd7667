import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config/defaults.js';
import { MAX_RETRY_DELAY_MS } from '../engine/retry-policy.js';
import { parseDuration } from '../model/duration.js';
import { buildRequest, readVerdict, type Verdict } from './formats.js';
import type { Notice } from './notice.js';
import type { NotifierConfig } from './targets.js';
import { redact } from '../secrets/redact.js';

/**
 * Sends a notice to notifiers, each on its own: a failing one (an error status, a timeout, a refused
 * connection) is retried with exponential backoff and jitter, and its failure is returned, never
 * thrown, so nothing a chat app does can stop a plan. An answer that another try cannot change (a
 * wrong signature, a 404) is not retried. Every attempt of one notice carries the same delivery id.
 */
export interface SendPolicy {
  /** Further attempts after a retryable failure. */
  retries: number;
  /** Wait before the first retry; doubles each time (±25 % jitter, at most the node retries' 10 min cap); a 429's Retry-After is honoured up to a minute. */
  retryDelayMs: number;
  /** Aborts waits and requests in flight (the worker is stopping). */
  signal?: AbortSignal;
  /** Told of each failed attempt that will be retried. */
  onRetry?: (target: NotifierConfig, attempt: number, error: string, waitMs: number) => void;
}

/** The retry policy of the `notify` settings (retryDelay was checked when the configuration was read). */
export function sendPolicy(notify: Pick<Config['notify'], 'retries' | 'retryDelay'>): SendPolicy {
  return { retries: notify.retries, retryDelayMs: parseDuration(notify.retryDelay) ?? 1_000 };
}

export interface SendResult {
  name: string;
  type: NotifierConfig['type'];
  ok: boolean;
  attempts: number;
  error?: string;
}

export function sendAll(targets: readonly NotifierConfig[], notice: Notice, policy: SendPolicy): Promise<SendResult[]> {
  return Promise.all(targets.map((target) => sendOne(target, notice, policy)));
}

export async function sendOne(target: NotifierConfig, notice: Notice, policy: SendPolicy): Promise<SendResult> {
  const delivery = randomUUID();
  let attempts = 0;
  for (;;) {
    attempts++;
    const { verdict, retryAfterMs } = await attempt(target, notice, delivery, policy.signal);
    const result = { name: target.name, type: target.type, attempts };
    if (verdict.ok) return { ...result, ok: true };
    if (!verdict.retry || attempts > policy.retries || policy.signal?.aborted) return { ...result, ok: false, error: verdict.error };
    const backoff = Math.min(MAX_RETRY_DELAY_MS, policy.retryDelayMs * 2 ** Math.min(attempts - 1, 30)) * (0.75 + Math.random() * 0.5);
    const waitMs = Math.round(Math.max(backoff, Math.min(retryAfterMs ?? 0, 60_000)));
    policy.onRetry?.(target, attempts, verdict.error, waitMs);
    try {
      await sleep(waitMs, undefined, policy.signal ? { signal: policy.signal } : undefined);
    } catch {
      return { ...result, ok: false, error: `${verdict.error}; not retried: the worker is stopping` };
    }
  }
}

/** One request; its error redacted (a receiver may quote the URL or a header, and fetch quotes a URL with credentials). */
async function attempt(target: NotifierConfig, notice: Notice, delivery: string, stop?: AbortSignal): Promise<{ verdict: Verdict; retryAfterMs?: number }> {
  const outcome = await attemptOnce(target, notice, delivery, stop);
  return outcome.verdict.ok ? outcome : { ...outcome, verdict: { ...outcome.verdict, error: redact(outcome.verdict.error) } };
}

async function attemptOnce(target: NotifierConfig, notice: Notice, delivery: string, stop?: AbortSignal): Promise<{ verdict: Verdict; retryAfterMs?: number }> {
  const request = buildRequest(target, notice, delivery);
  const timeout = AbortSignal.timeout(target.timeoutMs);
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
    });
    const verdict = readVerdict(target, response.status, response.statusText, await response.text());
    const retryAfter = Number(response.headers.get('retry-after'));
    return Number.isFinite(retryAfter) && retryAfter > 0 ? { verdict, retryAfterMs: retryAfter * 1000 } : { verdict };
  } catch (error) {
    const host = new URL(request.url).host;
    if (timeout.aborted) return { verdict: { ok: false, error: `${host} did not answer within ${target.timeoutMs} ms`, retry: true } };
    if (stop?.aborted) return { verdict: { ok: false, error: `${host}: abandoned, the worker is stopping`, retry: false } };
    return { verdict: { ok: false, error: `${host} could not be reached: ${networkReason(error)}`, retry: true } };
  }
}

/** fetch's "fetch failed" hides the reason (ECONNREFUSED, ENOTFOUND...) in its cause. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
