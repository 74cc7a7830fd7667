/**
 * PostgreSQL's one-statement step (src/store/sql/step-statement.ts) is all or nothing: each UPDATE
 * carries what the step expects of its rows in its own WHERE, and when one row no longer holds it the
 * statement fails as a whole — the rows that did match are not written either, no event is recorded,
 * no plan is touched — and the writer is told (undefined) so that its locking path takes over. The
 * property tests hold the statement equal to the locking path when nothing changed; these change
 * something between the step's computing and its write, in each place the step relies on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/sql/executor.js';
import { persistPostgres } from '../../src/store/sql/persist-postgres.js';
import type { NodeWrite, WriteSet } from '../../src/store/sql/persist-rows.js';
import { chainPlan } from '../../src/bench/scenarios/shapes.js';
import { createTestStoreWithSql, testBackend, type TestStore } from '../support/db.js';
import { engineMove, SETS_NOTHING } from './fixtures.js';

const CLAIM = { owner: 'worker-1', leaseMs: 60_000, limit: 1 };
const QUIET = { channel: 'dotplan_test', payloads: [] };

describe.runIf(testBackend() === 'postgres')('the one-statement step (PostgreSQL)', () => {
  let store: TestStore & { sql: Db };
  let db: Db;
  let planId: string;
  let ids: number[];

  beforeAll(async () => {
    store = await createTestStoreWithSql('postgres');
    db = store.sql;
  });
  afterAll(async () => {
    await store?.cleanup();
  });

  // A fresh chain n0 → n1 → n2 whose n0 runs under lease token 'tok-0' and n1, n2 wait for their parent.
  beforeEach(async () => {
    planId = (await store.plans.create(chainPlan(3))).id;
    ids = (await db.all<{ id: number }>('SELECT id FROM nodes WHERE plan_id = ? ORDER BY node_id', [planId])).map((r) => r.id);
    await db.run(`UPDATE plans SET status = 'running' WHERE id = ?`, [planId]);
    await db.run(`UPDATE nodes SET status = 'pending', waiting = 1, taken = 0, lease_token = NULL WHERE plan_id = ?`, [planId]);
    await db.run(`UPDATE nodes SET status = 'running', waiting = 0, lease_owner = 'worker-1', lease_token = 'tok-0', attempts = 1 WHERE id = ?`, [ids[0]]);
  });

  /** n0 done with its output, n1 handed to the worker (pending → running), as a chain step writes them. */
  function chainStep(token = 'tok-0', planStatus = 'running'): WriteSet {
    const base = { ...SETS_NOTHING, plan_id: planId };
    const n0: NodeWrite = {
      ...base,
      id: ids[0]!,
      node_id: 'n0',
      exp_status: 'running',
      exp_waiting: 0,
      exp_taken: 0,
      exp_token: token,
      status: 'done',
      waiting: 0,
      taken: 0,
      set_output: true,
      output: 'out-0',
      attempts: null,
      claim: false,
      clear_lease: true,
      finished: true,
    };
    const n1: NodeWrite = {
      ...base,
      id: ids[1]!,
      node_id: 'n1',
      exp_status: 'pending',
      exp_waiting: 1,
      exp_taken: 0,
      exp_token: null,
      status: 'running',
      waiting: 0,
      taken: 0,
      set_output: false,
      output: null,
      attempts: 1,
      claim: true,
      clear_lease: false,
      finished: false,
    };
    return {
      nodes: [n0, n1],
      plans: [],
      events: [
        engineMove(planId, 0, 'n0', 'running', 'done'),
        engineMove(planId, 1, 'n1', 'pending', 'ready'),
        engineMove(planId, 2, 'n1', 'ready', 'running'),
      ],
      expect: [{ plan_id: planId, status: planStatus, revision: null }],
    };
  }

  async function stored() {
    const nodes = await db.all('SELECT node_id, status, waiting, output, lease_token, attempts FROM nodes WHERE plan_id = ? ORDER BY node_id', [planId]);
    const events = await db.all<{ n: number }>('SELECT count(*) AS n FROM events WHERE plan_id = ?', [planId]);
    const [plan] = await db.all('SELECT status, updated_at FROM plans WHERE id = ?', [planId]);
    return { nodes, events: events[0]!.n, plan };
  }

  it('writes the step when every row holds what it expected: the next node handed over with a lease and its dependents', async () => {
    const before = await stored();
    const persisted = await persistPostgres(db, chainStep(), CLAIM, QUIET);
    expect(persisted?.handed.map((h) => h.nodeId)).toEqual(['n1']);
    expect(persisted?.handed[0]?.token).toMatch(new RegExp(`^${ids[1]}\\.`));
    expect(persisted?.handed[0]?.basis?.dependents.map((d) => d.node.id)).toEqual(['n2']);
    const after = await stored();
    expect(after.nodes).toMatchObject([
      { node_id: 'n0', status: 'done', output: 'out-0', lease_token: null },
      { node_id: 'n1', status: 'running', waiting: 0, attempts: 1 },
      { node_id: 'n2', status: 'pending' },
    ]);
    expect(after.events).toBe(before.events + 3);
  });

  it("writes nothing when one node's lease token changed: the other node is not written, no event, the plan not touched", async () => {
    const before = await stored();
    expect(await persistPostgres(db, chainStep('tok-stale'), CLAIM, QUIET)).toBeUndefined();
    expect(await stored()).toEqual(before);
  });

  it('writes nothing when a node the step hands over moved meanwhile (another writer made it ready)', async () => {
    await db.run(`UPDATE nodes SET status = 'ready', waiting = 0 WHERE id = ?`, [ids[1]]);
    const before = await stored();
    expect(await persistPostgres(db, chainStep(), CLAIM, QUIET)).toBeUndefined();
    expect(await stored()).toEqual(before);
  });

  it('writes nothing when the plan left the status the step was computed on (paused meanwhile)', async () => {
    await db.run(`UPDATE plans SET status = 'paused' WHERE id = ?`, [planId]);
    const before = await stored();
    expect(await persistPostgres(db, chainStep(), CLAIM, QUIET)).toBeUndefined();
    expect(await stored()).toEqual(before);
  });

  it('rolls back the transaction it runs in when a row changed, leaving the connection usable', async () => {
    const before = await stored();
    await expect(
      db.tx(async (q) => {
        await q.run(`UPDATE nodes SET output = 'written before the step' WHERE id = ?`, [ids[2]]);
        if ((await persistPostgres(q, chainStep('tok-stale'), CLAIM, QUIET)) === undefined) throw new Error('stale');
      }),
    ).rejects.toThrow('stale');
    expect(await stored()).toEqual(before);
    expect(await persistPostgres(db, chainStep(), CLAIM, QUIET)).toBeDefined();
  });

  it("skips a plan move whose plan moved first, and that move's event, writing the rest (as the locking path does)", async () => {
    const writes = chainStep();
    writes.plans.push({ plan_id: planId, from_status: 'awaiting_review', to_status: 'running', set_error: false, error: null, waits: false });
    writes.events.push({ ...writes.events[0]!, ord: 3, node_id: null, from_status: 'awaiting_review', to_status: 'running', plan_move: true });
    const before = await stored();
    const persisted = await persistPostgres(db, writes, CLAIM, QUIET);
    expect(persisted?.planMoves.size).toBe(0);
    const after = await stored();
    expect(after.events).toBe(before.events + 3);
    expect(after.plan).toMatchObject({ status: 'running' });
  });
});
