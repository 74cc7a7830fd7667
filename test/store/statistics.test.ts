/**
 * PostgreSQL's planner statistics follow large plans: refreshed when one ends, off the path of the
 * worker that wrote its end (the refresh runs in the background; closing the store waits for it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANALYZE_AT_NODES } from '../../src/store/sql/statistics.js';
import { connect, resolveDatabase, type Connection } from '../../src/store/connect.js';
import { testBackend } from '../support/db.js';
import { independent } from './fixtures.js';
import { openHarness, type Harness } from './harness.js';

describe.runIf(testBackend() === 'postgres')('statistics after a large plan (postgres)', () => {
  let h: Harness;
  let raw: Connection;
  beforeAll(async () => {
    h = await openHarness('postgres');
    raw = await connect(resolveDatabase(h.store.url));
  });
  afterAll(async () => {
    await raw?.db.close();
    await h?.close();
  });

  const analyses = async () => {
    const [row] = await raw.db.all<{ n: number }>(`SELECT analyze_count AS n FROM pg_stat_user_tables WHERE relname = 'nodes'`);
    return Number(row?.n ?? 0);
  };

  it(`refreshes the nodes' statistics once a plan of ${ANALYZE_AT_NODES} nodes has ended`, async () => {
    const plan = await h.create(independent(ANALYZE_AT_NODES));
    const before = await analyses();
    await h.runReady(plan.id);
    expect((await h.store.plans.get(plan.id)).status).toBe('completed');
    // The refresh runs after the end was written, in the background: wait for it to show.
    await expect.poll(analyses, { timeout: 20_000, interval: 100 }).toBeGreaterThan(before);
  });
});
