/**
 * The finish from what the claim saw (one statement on PostgreSQL, a transaction that reads nothing
 * first on SQLite) may exist only because it writes exactly what the locking finish writes, on each
 * backend: for the same random plans — chains, joins, `when`
 * branches, failures under both onFailure policies, retries, an operator's retry of the failed nodes
 * (reopening what their failure skipped) — both leave identical node rows, plan status and error, and
 * identical events, with the plan's updatedAt never older than its nodes. And SQLite and PostgreSQL
 * record the same event sequence for every node.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlWorkQueue } from '../../src/store/work-queue.js';
import type { AttemptReport, FinishOptions } from '../../src/store/types.js';
import { createTestStore, testBackend, type TestStore } from '../support/db.js';
import { drive, outcomeOf, randomPlan } from './drive.js';
import { planInput } from './fixtures.js';

/** Random plans run twice on `store`, finishing from the claims' bases where it applies and always locked: the same rows and events. */
async function basisAgrees(store: TestStore): Promise<void> {
  const queue = store.queue as SqlWorkQueue;
  let fast = 0;
  const optimistic = async (reports: readonly AttemptReport[], options: FinishOptions) => {
    const done = await queue.finishFromBasis(reports, options);
    if (done) fast++;
    return done ?? queue.finishLocked(reports, options);
  };
  await fc.assert(
    fc.asyncProperty(randomPlan, async (plan) => {
      const a = await store.plans.create(planInput(plan.graph));
      await drive(store, a.id, plan, optimistic);
      const b = await store.plans.create(planInput(plan.graph));
      await drive(store, b.id, plan, (reports, options) => queue.finishLocked(reports, options));
      const outcome = await outcomeOf(store, a.id);
      expect(outcome).toEqual(await outcomeOf(store, b.id));
      expect(outcome.plan.current).toBe(true);
    }),
    { numRuns: 100 },
  );
  expect(fast).toBeGreaterThan(100); // the path from the basis was really taken
}

describe.runIf(testBackend() === 'sqlite')('finishing paths agree on SQLite', () => {
  let sqlite: TestStore;
  beforeAll(async () => {
    sqlite = await createTestStore('sqlite');
  });
  afterAll(async () => {
    await sqlite?.cleanup();
  });

  it('the finish from the basis leaves the same rows and events as the locking one', () => basisAgrees(sqlite));
});

// Needs both backends at once: runs in the PostgreSQL run (DB=postgres DATABASE_URL=… npm test), with a SQLite store beside.
describe.runIf(testBackend() === 'postgres')('finishing paths and backends agree', () => {
  let pg: TestStore;
  let sqlite: TestStore;
  beforeAll(async () => {
    [pg, sqlite] = await Promise.all([createTestStore('postgres'), createTestStore('sqlite')]);
  });
  afterAll(async () => {
    await Promise.all([pg?.cleanup(), sqlite?.cleanup()]);
  });

  it('the one-statement finish leaves the same rows and events as the locking one', () => basisAgrees(pg));

  it('SQLite and PostgreSQL record the same events for every node', async () => {
    await fc.assert(
      fc.asyncProperty(randomPlan, async (plan) => {
        const onPg = await pg.plans.create(planInput(plan.graph));
        const onSqlite = await sqlite.plans.create(planInput(plan.graph));
        await drive(pg, onPg.id, plan, (r, o) => pg.queue.finish(r, o));
        await drive(sqlite, onSqlite.id, plan, (r, o) => sqlite.queue.finish(r, o));
        const outcome = await outcomeOf(sqlite, onSqlite.id);
        expect(outcome).toEqual(await outcomeOf(pg, onPg.id));
        expect(outcome.plan.current).toBe(true);
      }),
      { numRuns: 80 },
    );
  });
});
