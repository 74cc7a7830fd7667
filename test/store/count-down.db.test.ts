/**
 * PostgreSQL's one-statement step writes a join's count-down as a change of its counters (NodeWrite.relative),
 * so that two writes of the join's parents computed from the same count both apply. When they meet on the join's
 * row, the second waits for the first's row lock and then checks its WHERE against the row the first committed
 * (READ COMMITTED): it counts down from there, or — where that would leave the join waiting for nothing — it is
 * refused as a whole and writes nothing. The writes here are computed by hand from the same stale count and
 * interleaved on purpose: the first holds its transaction open until the second is seen waiting for its lock.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { joinPlan } from '../../src/bench/scenarios/shapes.js';
import type { Db } from '../../src/store/sql/executor.js';
import { persistPostgres } from '../../src/store/sql/persist-postgres.js';
import type { NodeWrite, WriteSet } from '../../src/store/sql/persist-rows.js';
import { createTestStoreWithSql, testBackend, type TestStore } from '../support/db.js';
import { waitUntil } from '../support/wait.js';
import { engineMove, SETS_NOTHING } from './fixtures.js';

const CLAIM = { owner: 'worker-1', leaseMs: 60_000, limit: 0 };
const QUIET = { channel: 'dotplan_test', payloads: [] };

describe.runIf(testBackend() === 'postgres')("a join's count-down meeting another write on the join's row (PostgreSQL)", () => {
  let store: TestStore & { sql: Db };
  let db: Db;
  let planId: string;
  let ids: Map<string, number>;

  beforeAll(async () => {
    store = await createTestStoreWithSql('postgres');
    db = store.sql;
  });
  afterAll(async () => {
    await store?.cleanup();
  });

  // Three parents n0..n2 — the first `waiting` running under lease tokens tok-0.., the rest done — and `join` waiting for them.
  async function joinWaitingFor(waiting: number): Promise<void> {
    planId = (await store.plans.create(joinPlan(3))).id;
    const rows = await db.all<{ id: number; node_id: string }>('SELECT id, node_id FROM nodes WHERE plan_id = ?', [planId]);
    ids = new Map(rows.map((r) => [r.node_id, r.id]));
    await db.run(`UPDATE plans SET status = 'running' WHERE id = ?`, [planId]);
    for (const [node, id] of ids) {
      if (node === 'join') await db.run(`UPDATE nodes SET status = 'pending', waiting = ?, taken = ? WHERE id = ?`, [waiting, 3 - waiting, id]);
      else if (Number(node.slice(1)) >= waiting) await db.run(`UPDATE nodes SET status = 'done' WHERE id = ?`, [id]);
      else await db.run(`UPDATE nodes SET status = 'running', lease_owner = 'worker-1', lease_token = ? WHERE id = ?`, [`tok-${node.slice(1)}`, id]);
    }
  }

  /** A parent's end with the join's count-down, both computed from the join waiting for `seen` parents. */
  function parentEnd(parent: string, seen: number): WriteSet {
    const end: NodeWrite = {
      ...SETS_NOTHING,
      id: ids.get(parent)!,
      plan_id: planId,
      node_id: parent,
      exp_status: 'running',
      exp_waiting: 0,
      exp_taken: 0,
      exp_token: `tok-${parent.slice(1)}`,
      status: 'done',
      waiting: 0,
      taken: 0,
      set_output: true,
      output: `out ${parent}`,
      clear_lease: true,
      finished: true,
    };
    const countDown: NodeWrite = {
      ...SETS_NOTHING,
      id: ids.get('join')!,
      plan_id: planId,
      node_id: 'join',
      exp_status: 'pending',
      exp_waiting: seen,
      exp_taken: 3 - seen,
      exp_token: null,
      status: 'pending',
      waiting: seen - 1,
      taken: 3 - seen + 1,
      relative: true,
    };
    const event = engineMove(planId, 0, parent, 'running', 'done');
    return { nodes: [end, countDown], plans: [], events: [event], expect: [{ plan_id: planId, status: 'running', revision: null }] };
  }

  const rowsOf = async () =>
    Object.fromEntries(
      (
        await db.all<{ node_id: string; status: string; waiting: number; taken: number }>(
          'SELECT node_id, status, waiting, taken FROM nodes WHERE plan_id = ?',
          [planId],
        )
      ).map((r) => [r.node_id, [r.status, r.waiting, r.taken]]),
    );

  /** Runs `first` in a transaction held open until `second`, sent meanwhile on its own, waits for a lock; then commits it. */
  async function interleaved(first: WriteSet, second: WriteSet) {
    let secondDone: ReturnType<typeof persistPostgres> | undefined;
    const firstDone = await db.tx(async (q) => {
      const written = await persistPostgres(q, first, CLAIM, QUIET);
      secondDone = persistPostgres(db, second, CLAIM, QUIET);
      await waitUntil(
        async () =>
          (await db.all(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH v AS%'`)).length >
          0,
        'the second write to wait for the join row',
      );
      return written;
    });
    return { first: firstDone, second: await secondDone! };
  }

  beforeEach(() => {
    ids = new Map();
  });

  it('counts down from the row the other write committed, when that still leaves the join waiting', async () => {
    await joinWaitingFor(3);
    // Both computed from the join waiting for 3: the second's count, 2, no longer holds when it is written.
    const { first, second } = await interleaved(parentEnd('n0', 3), parentEnd('n1', 3));
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(await rowsOf()).toMatchObject({ n0: ['done', 0, 0], n1: ['done', 0, 0], n2: ['running', 0, 0], join: ['pending', 1, 2] });
  });

  it('writes nothing of the second write when the first left the join waiting for its parent alone', async () => {
    await joinWaitingFor(2);
    const events = async () => (await db.all<{ n: number }>('SELECT count(*) AS n FROM events WHERE plan_id = ?', [planId]))[0]!.n;
    const before = await events();
    const { first, second } = await interleaved(parentEnd('n0', 2), parentEnd('n1', 2));
    expect(first).toBeDefined();
    // The join waits for n1 alone now: n1's end must make it ready, which only a step read under lock decides.
    expect(second).toBeUndefined();
    expect(await rowsOf()).toMatchObject({ n0: ['done', 0, 0], n1: ['running', 0, 0], n2: ['done', 0, 0], join: ['pending', 1, 2] });
    expect(await events()).toBe(before + 1);
  });
});
