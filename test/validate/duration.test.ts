import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/model/duration.js';

describe('parseDuration', () => {
  it('reads ms, s, m, h, d and plain numbers as milliseconds', () => {
    expect(['500ms', '10s', '5m', '1h', '1d', '250', ' 1.5s ', '2 m'].map(parseDuration)).toEqual([
      500, 10_000, 300_000, 3_600_000, 86_400_000, 250, 1500, 120_000,
    ]);
  });

  it('refuses what is not a duration', () => {
    expect(['', 'soon', '-1s', '10 minutes', '1e3', 's', '1.s', '5M'].map(parseDuration)).toEqual(Array(8).fill(undefined));
  });

  it('formats milliseconds back in the shortest unit', () => {
    expect([250, 1500, 90_000, 3_600_000].map(formatDuration)).toEqual(['250ms', '1.5s', '1.5m', '1h']);
  });
});
