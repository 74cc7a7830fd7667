/**
 * PostgreSQL plans the step's one statement (src/store/sql/step-statement.ts) once and keeps that plan:
 * each variant is a named prepared statement, and after five calls planned for their values the server
 * keeps its generic plan only while that plan's estimated cost stays below theirs plus their planning.
 * Planned afresh on every call, a chain step's write took twice as long (2.07 ms against 0.96 ms;
 * bench/ANALYSES.md, "Where a PostgreSQL chain step's time goes"), and nothing else would show it: the
 * bench runs on small scratch databases, where even a statement that tips past a few thousand nodes keeps
 * its plan. So this holds it on a database grown to 10,000 nodes, with its statistics, where the chain
 * step's statement without its id list (`nodes.id = ANY(…)`) was planned afresh on all 1,500 calls of a
 * chain, and with it on none after the first five.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainPlan } from '../../src/bench/scenarios/shapes.js';
import type { Db } from '../../src/store/sql/executor.js';
import type { KnownPlans } from '../../src/store/sql/known-plans.js';
import { persistPostgres } from '../../src/store/sql/persist-postgres.js';
import type { NodeWrite, WriteSet } from '../../src/store/sql/persist-rows.js';
import { createTestStoreWithSql, testBackend, type TestStore } from '../support/db.js';
import { engineMove, SETS_NOTHING } from './fixtures.js';

const CLAIM = { owner: 'worker-1', leaseMs: 60_000, limit: 10 };
const QUIET = { channel: 'dotplan_test', payloads: [] };
const STEPS = 12;

describe.runIf(testBackend() === 'postgres')("the step statement's plan (PostgreSQL)", () => {
  let store: TestStore & { sql: Db };
  let db: Db;

  // The database grown to 10,000 nodes (one plan's), with its statistics.
  beforeAll(async () => {
    store = await createTestStoreWithSql('postgres');
    db = store.sql;
    await store.plans.create(chainPlan(10_000));
    await db.exec('ANALYZE');
  });
  afterAll(async () => {
    await store?.cleanup();
  });

  // A chain step's variant, and the throughput's (which claims other ready nodes for the worker's free slots).
  it.each([
    ['a chain step', false],
    ['a step that claims more', true],
  ])('runs %s on the plan it keeps on a database of 10,000 nodes, not planned afresh on every call', async (_, claimOthers) => {
    const planId = (await store.plans.create(chainPlan(STEPS + 1))).id;
    const rows = await db.all<{ id: number; node_id: string }>('SELECT id, node_id FROM nodes WHERE plan_id = ? ORDER BY id', [planId]);
    await db.run(`UPDATE plans SET status = 'running' WHERE id = ?`, [planId]);
    await db.run(`UPDATE nodes SET status = 'running', waiting = 0, lease_owner = 'worker-1', lease_token = 'tok-0', attempts = 1 WHERE id = ?`, [rows[0]!.id]);
    const [{ revision }] = (await db.all<{ revision: number }>('SELECT revision FROM plans WHERE id = ?', [planId])) as [{ revision: number }];
    // As a worker finishes a node from its claim's basis: the plan's status and revision expected, its columns known.
    const known: KnownPlans = new Map([[planId, { params: {}, planAttributes: {}, status: 'running', mode: 'workflow', revision }]]);

    /** Node `i` done under lease `token`, node `i + 1` handed to the worker, as a chain step writes them. */
    const chainStep = (i: number, token: string): WriteSet => {
      const [done, next] = [rows[i]!, rows[i + 1]!];
      const node = (row: { id: number; node_id: string }, write: Partial<NodeWrite>): NodeWrite => ({
        ...SETS_NOTHING,
        id: row.id,
        plan_id: planId,
        node_id: row.node_id,
        exp_status: 'pending',
        exp_waiting: 0,
        exp_taken: 0,
        exp_token: null,
        status: 'pending',
        waiting: 0,
        taken: 0,
        waits: false,
        relative: false,
        ...write,
      });
      return {
        nodes: [
          node(done, {
            exp_status: 'running',
            exp_taken: i === 0 ? 0 : 1,
            exp_token: token,
            status: 'done',
            taken: i === 0 ? 0 : 1,
            set_output: true,
            output: `out-${i}`,
            set_error: true,
            clear_lease: true,
            finished: true,
          }),
          node(next, { exp_waiting: 1, status: 'running', taken: 1, attempts: 1, run_after_delay: 0, claim: true }),
        ],
        plans: [],
        events: [
          engineMove(planId, 0, done.node_id, 'running', 'done'),
          engineMove(planId, 1, next.node_id, 'pending', 'ready'),
          engineMove(planId, 2, next.node_id, 'ready', 'running'),
        ],
        expect: [{ plan_id: planId, status: 'running', revision }],
      };
    };

    // One connection (a transaction's) runs every step, so that its prepared statement is the one asked about.
    const plans = await db.tx(async (q) => {
      let token = 'tok-0';
      for (let i = 0; i < STEPS; i++) {
        const persisted = await persistPostgres(q, chainStep(i, token), { ...CLAIM, claimOthers }, QUIET, known);
        expect(persisted?.handed.map((h) => h.nodeId)).toEqual([rows[i + 1]!.node_id]);
        token = persisted!.handed[0]!.token;
      }
      return q.all<{ generic: number; custom: number }>(
        `SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements ` +
          `WHERE statement LIKE 'WITH v AS (%' AND (statement LIKE '%, c AS (SELECT%') = ?`,
        [claimOthers],
      );
    });
    // Five calls planned for their values, then the kept plan for the rest.
    expect(plans).toEqual([{ generic: STEPS - 5, custom: 5 }]);
  });
});
