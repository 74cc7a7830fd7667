import pg from 'pg';
import { percentile } from './stats.js';
import type { BenchResult } from './results.js';

/**
 * The floor: what the PostgreSQL server itself allows, measured with `pg` directly on a throw-away
 * table — the latency of a bare committed single-row `UPDATE … RETURNING` on one connection (p50),
 * and the rate of such updates over 10 connections. No engine can finish a node in fewer round trips
 * than one such update, so dotplan's PostgreSQL figures are also shown as multiples of these.
 */
export interface FloorOptions {
  connectionString: string;
  /** Timed updates on one connection (default 2,000, after 200 unmeasured). */
  updates?: number;
  /** How long the 10 connections update, in ms (default 2,000). */
  rateMs?: number;
}

export const FLOOR_CONNECTIONS = 10;

export async function measureFloor(options: FloorOptions): Promise<BenchResult[]> {
  const { connectionString, updates = 2000, rateMs = 2000 } = options;
  const table = `dotplan_floor_${process.pid}_${Date.now()}`;
  const clients = Array.from({ length: FLOOR_CONNECTIONS }, () => new pg.Client({ connectionString }));
  await Promise.all(clients.map((c) => c.connect()));
  const [first] = clients as [pg.Client];
  try {
    await first.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v bigint NOT NULL)`);
    await first.query(`INSERT INTO ${table} SELECT g, 0 FROM generate_series(1, ${FLOOR_CONNECTIONS}) g`);
    const update = (client: pg.Client, id: number) =>
      client.query({ name: 'floor', text: `UPDATE ${table} SET v = v + 1 WHERE id = $1 RETURNING v`, values: [id] });
    const times: number[] = [];
    for (let i = 0; i < updates + 200; i++) {
      const start = performance.now();
      await update(first, 1);
      if (i >= 200) times.push(performance.now() - start);
    }
    let count = 0;
    const until = performance.now() + rateMs;
    const started = performance.now();
    await Promise.all(
      clients.map(async (client, i) => {
        while (performance.now() < until) {
          await update(client, i + 1);
          count++;
        }
      }),
    );
    const rate = (count / (performance.now() - started)) * 1000;
    return [
      { backend: 'postgres-floor', scenario: 'floor-latency', value: Math.round(percentile(times, 50) * 1000) / 1000, unit: 'ms' },
      { backend: 'postgres-floor', scenario: 'floor-rate', value: Math.round(rate), unit: 'updates/s' },
    ];
  } finally {
    await first.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await Promise.all(clients.map((c) => c.end()));
  }
}
