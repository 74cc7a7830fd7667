/**
 * The finish from what the claim saw (one statement on PostgreSQL, a transaction that reads nothing
 * first on SQLite) may exist only because it writes exactly what the locking finish writes, on each
 * backend: for the same random plans — chains, joins, `when`
 * branches, failures under both onFailure policies, retries, an operator's retry of the failed nodes
 * (reopening what their failure skipped) — both leave identical node rows, plan status and error, and
 * identical events, with the plan's updatedAt never older than its nodes — also where a join's count
 * changed after the claim and the finish from the basis counts it down as it stands (NodeWrite.relative).
 * And SQLite and PostgreSQL record the same event sequence for every node.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlWorkQueue } from '../../src/store/work-queue.js';
import type { AttemptReport, FinishOptions } from '../../src/store/types.js';
import { createTestStore, testBackend, type TestStore } from '../support/db.js';
import { drive, joinedPlan, outcomeOf, randomPlan } from './drive.js';
import { planInput } from './fixtures.js';

/** Random plans run twice on `store`, finishing from the claims' bases where it applies and always locked: the same rows and events. */
async function basisAgrees(store: TestStore): Promise<void> {
  const queue = store.queue as SqlWorkQueue;
  let fast = 0;
  // Finishes from a basis whose count of a dependent had changed since the claim (another parent of it finished), written all the same.
  let countedDown = 0;
  const optimistic = async (reports: readonly AttemptReport[], options: FinishOptions) => {
    const now = new Map((await store.plans.nodes(reports[0]!.claim.planId)).map((n) => [n.id, n.waiting]));
    const stale = reports.some((r) => r.claim.basis?.dependents.some((d) => d.node.status === 'pending' && now.get(d.node.id) !== d.node.waiting));
    const done = await queue.finishFromBasis(reports, options);
    if (done) fast++;
    if (done && stale) countedDown++;
    return done ?? queue.finishLocked(reports, options);
  };
  await fc.assert(
    fc.asyncProperty(fc.oneof(randomPlan, joinedPlan), async (plan) => {
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
  expect(countedDown).toBeGreaterThan(5); // and a join counted down as it stood, not as the claim saw it
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
