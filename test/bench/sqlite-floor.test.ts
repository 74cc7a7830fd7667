import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { measureSqliteFloor } from '../../src/bench/sqlite-floor.js';

const dir = mkdtempSync(join(tmpdir(), 'dotplan-sqlite-floor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SQLite's floor", () => {
  it('commits every UPDATE it times, in a write-ahead-log file set as the store sets its own', () => {
    const file = join(dir, 'floor.db');
    const floor = measureSqliteFloor({ file, updates: 50, rateMs: 50 });
    expect(floor.results.map((r) => [r.backend, r.scenario, r.unit])).toEqual([
      ['sqlite-floor', 'floor-latency', 'ms'],
      ['sqlite-floor', 'floor-rate', 'updates/s'],
    ]);
    const [latency, rate] = floor.results.map((r) => r.value);
    expect(latency).toBeGreaterThan(0);
    expect(rate).toBeGreaterThan(0);
    // The warm-up's 200, the 50 timed, and the rate's: all committed, as another connection reads them.
    expect(floor.committed).toBeGreaterThan(250);
    const reader = new Database(file, { readonly: true });
    try {
      expect(reader.prepare('SELECT v FROM floor WHERE id = 1').pluck().get()).toBe(floor.committed);
      expect(reader.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      reader.close();
    }
  });
});
