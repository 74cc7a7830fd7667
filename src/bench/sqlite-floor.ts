import Database from 'better-sqlite3';
import { SQLITE_PRAGMAS } from '../store/connect.js';
import { percentile } from './stats.js';
import type { BenchResult } from './results.js';

/**
 * SQLite's floor: what the file itself allows on this machine, measured with better-sqlite3 directly
 * on a table of its own in a fresh file, set as the store sets its connection (SQLITE_PRAGMAS) — the
 * latency of a bare committed single-row `UPDATE … RETURNING` in a write transaction (`BEGIN IMMEDIATE`,
 * as the store's writes), p50, and the rate of such transactions on the one connection (SQLite has one
 * writer at a time). No engine step that commits can beat one such transaction, so dotplan's SQLite
 * figures are also shown as multiples of these: a figure that moves with the machine moves with them.
 */
export interface SqliteFloorOptions {
  /** The file to make (it must not exist; the caller removes it). */
  file: string;
  /** Timed transactions (default 2,000, after 200 unmeasured). */
  updates?: number;
  /** How long the rate is measured, in ms (default 2,000). */
  rateMs?: number;
}

export interface SqliteFloor {
  results: BenchResult[];
  /** Transactions committed in all (the warm-up, the timed ones and the rate's): the row's value after the run. */
  committed: number;
}

export function measureSqliteFloor(options: SqliteFloorOptions): SqliteFloor {
  const { file, updates = 2000, rateMs = 2000 } = options;
  const db = new Database(file);
  try {
    for (const setting of SQLITE_PRAGMAS) db.pragma(setting);
    db.exec('CREATE TABLE floor (id INTEGER PRIMARY KEY, v INTEGER NOT NULL); INSERT INTO floor VALUES (1, 0)');
    const begin = db.prepare('BEGIN IMMEDIATE');
    const update = db.prepare('UPDATE floor SET v = v + 1 WHERE id = ? RETURNING v');
    const commit = db.prepare('COMMIT');
    let committed = 0;
    const once = () => {
      begin.run();
      update.get(1);
      commit.run();
      committed++;
    };
    const times: number[] = [];
    for (let i = 0; i < updates + 200; i++) {
      const start = performance.now();
      once();
      if (i >= 200) times.push(performance.now() - start);
    }
    let count = 0;
    const started = performance.now();
    const until = started + rateMs;
    while (performance.now() < until) {
      once();
      count++;
    }
    const rate = (count / (performance.now() - started)) * 1000;
    return {
      results: [
        // A few hundredths of a millisecond: four decimals.
        { backend: 'sqlite-floor', scenario: 'floor-latency', value: Math.round(percentile(times, 50) * 10_000) / 10_000, unit: 'ms' },
        { backend: 'sqlite-floor', scenario: 'floor-rate', value: Math.round(rate), unit: 'updates/s' },
      ],
      committed,
    };
  } finally {
    db.close();
  }
}
