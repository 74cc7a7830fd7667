import { describe, expect, it } from 'vitest';
import { MAX_RETRY_DELAY_MS, nextRetryDelay, retryPolicy } from '../../src/engine/retry-policy.js';

const defaults = { retries: 0, retryDelay: '1s' };

describe('retryPolicy', () => {
  it('takes the node attribute over the graph attribute over the config default', () => {
    expect(retryPolicy({}, {}, defaults)).toEqual({ retries: 0, baseDelayMs: 1000 });
    expect(retryPolicy({}, { retries: '2', retryDelay: '5s', timeout: '1m' }, defaults)).toEqual({
      retries: 2,
      baseDelayMs: 5000,
      timeoutMs: 60_000,
    });
    expect(retryPolicy({ retries: '4', retryDelay: '250ms', timeout: '2s' }, { retries: '2', retryDelay: '5s', timeout: '1m' }, defaults)).toEqual({
      retries: 4,
      baseDelayMs: 250,
      timeoutMs: 2000,
    });
    expect(retryPolicy({}, {}, { retries: 1, retryDelay: 10, timeout: '30s' })).toEqual({ retries: 1, baseDelayMs: 10, timeoutMs: 30_000 });
  });

  it('falls through a value that does not parse', () => {
    expect(retryPolicy({ retries: 'many', retryDelay: 'soon' }, { retries: '3' }, defaults)).toEqual({ retries: 3, baseDelayMs: 1000 });
  });
});

describe('nextRetryDelay', () => {
  it('doubles with each attempt, with equal jitter', () => {
    expect(nextRetryDelay(1, 1000, () => 0)).toBe(500);
    expect(nextRetryDelay(1, 1000, () => 1)).toBe(1000);
    expect(nextRetryDelay(2, 1000, () => 1)).toBe(2000);
    expect(nextRetryDelay(3, 1000, () => 0)).toBe(2000);
    expect(nextRetryDelay(3, 1000, () => 0.5)).toBe(3000);
  });

  it('is capped however many attempts failed', () => {
    expect(nextRetryDelay(50, 1000, () => 1)).toBe(MAX_RETRY_DELAY_MS);
    expect(nextRetryDelay(1000, 1000, () => 0)).toBe(MAX_RETRY_DELAY_MS / 2);
  });

  it('is zero when the base delay is zero', () => {
    expect(nextRetryDelay(5, 0)).toBe(0);
  });

  it('stays within [half, full] of the backoff with the real random source', () => {
    for (let i = 0; i < 100; i++) {
      const delay = nextRetryDelay(4, 100);
      expect(delay).toBeGreaterThanOrEqual(400);
      expect(delay).toBeLessThanOrEqual(800);
    }
  });
});
