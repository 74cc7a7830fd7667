/**
 * SQLite writes a step's node and plan rows with statements that set only what each write changes
 * (src/store/sql/sqlite-updates.ts). They must leave the rows exactly as the general statements they
 * replaced — one CASE per column, every column named — would: these property tests run both on the
 * same row state for random writes (every field set or not, expectations that hold or not, claims
 * and lease clears, waits, count-downs written as changes of the counters) and compare what each changed, the rows each counted, and the claimed
 * row a claim returns. Times written as NOW are compared as "set now" (the two statements run a few
 * milliseconds apart), a new lease token by its shape.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_ROW } from '../../src/store/sql/claim.js';
import { named, type Db, type Queryable } from '../../src/store/sql/executor.js';
import { nodeUpdateSqlite, planUpdateSqlite } from '../../src/store/sql/sqlite-updates.js';
import type { NodeWrite, PlanWrite } from '../../src/store/sql/persist-rows.js';
import { chainPlan } from '../../src/bench/scenarios/shapes.js';
import { createTestStoreWithSql, testBackend, type TestStore } from '../support/db.js';
import { SETS_NOTHING } from './fixtures.js';

/**
 * The general statement that wrote every node row on SQLite before (persist-sqlite.ts), kept here as the reference;
 * with the count-down (NodeWrite.relative) written as PostgreSQL's step statement writes it (step-statement.ts).
 */
const GENERAL =
  `UPDATE nodes SET status = :status, ` +
  // A count-down (NodeWrite.relative) adds its change to the counters, on a row the change leaves waiting.
  `waiting = CASE WHEN :relative THEN waiting + :waiting - :exp_waiting ELSE :waiting END, ` +
  `taken = CASE WHEN :relative THEN taken + :taken - :exp_taken ELSE :taken END, ` +
  `output = CASE WHEN :set_output THEN :output ELSE output END, answer = CASE WHEN :set_answer THEN :answer ELSE answer END, ` +
  `error = CASE WHEN :set_error THEN :error ELSE error END, attempts = COALESCE(:attempts, attempts), ` +
  `run_after = CASE WHEN :run_after_delay IS NULL THEN run_after WHEN :run_after_delay = 0 THEN 0 ELSE NOW + :run_after_delay END, ` +
  `skipped_by = CASE WHEN :set_skipped_by THEN :skipped_by ELSE skipped_by END, attributes = COALESCE(:attributes, attributes), ` +
  `lease_owner = CASE WHEN :claim THEN :owner WHEN :clear_lease THEN NULL ELSE lease_owner END, ` +
  `lease_token = CASE WHEN :claim THEN id || '.' || lower(hex(randomblob(16))) WHEN :clear_lease THEN NULL ELSE lease_token END, ` +
  `lease_expires_at = CASE WHEN :claim THEN NOW + :lease_ms WHEN :clear_lease THEN NULL ELSE lease_expires_at END, ` +
  `started_at = CASE WHEN :claim THEN NOW ELSE started_at END, finished_at = CASE WHEN :finished THEN NOW ELSE finished_at END, updated_at = NOW, ` +
  `waiting_since = CASE WHEN :waits THEN NOW ELSE waiting_since END, remind_at = CASE WHEN :waits THEN NULL ELSE remind_at END, ` +
  `timeout_at = CASE WHEN :waits THEN NULL ELSE timeout_at END ` +
  `WHERE id = :id AND status = :exp_status ` +
  `AND CASE WHEN :relative THEN waiting + :waiting - :exp_waiting > 0 ELSE waiting = :exp_waiting AND taken = :exp_taken END ` +
  `AND (:exp_token IS NULL OR lease_token = :exp_token) ` +
  `RETURNING ${CLAIM_ROW}`;

/** The general statement of a plan's move before (persist-sqlite.ts). */
const GENERAL_PLAN =
  `UPDATE plans SET status = :to_status, error = CASE WHEN :set_error THEN :error ELSE error END, updated_at = NOW, ` +
  `waiting_since = CASE WHEN :waits THEN NOW ELSE waiting_since END, remind_at = CASE WHEN :waits THEN NULL ELSE remind_at END, ` +
  `timeout_at = CASE WHEN :waits THEN NULL ELSE timeout_at END WHERE id = :plan_id AND status = :from_status RETURNING id`;
const PLAN_COLUMNS = ['status', 'error', 'updated_at', 'waiting_since', 'remind_at', 'timeout_at'] as const;
const PLAN_STATUSES = ['draft', 'running', 'paused', 'awaiting_review', 'completed', 'failed'] as const;

const COLUMNS = [
  'status',
  'waiting',
  'taken',
  'output',
  'answer',
  'error',
  'attempts',
  'run_after',
  'skipped_by',
  'attributes',
  'lease_owner',
  'lease_token',
  'lease_expires_at',
  'started_at',
  'finished_at',
  'updated_at',
  'waiting_since',
  'remind_at',
  'timeout_at',
] as const;
/** Columns a write may set to NOW (or NOW plus a delay): compared as set-to-about-now, or unchanged. */
const TIMES = new Set(['run_after', 'lease_expires_at', 'started_at', 'finished_at', 'updated_at', 'waiting_since']);
const STATUSES = ['pending', 'ready', 'running', 'done', 'failed', 'awaiting_input'] as const;
const LEASE = { owner: 'worker-7', leaseMs: 60_000 };
const OLD = 1_000; // the row's times before the write: far in the past

type Row = Record<(typeof COLUMNS)[number], unknown>;
/** The row's state before a write. */
type Seed = { status: string; waiting: number; taken: number; token: string | null; output: string | null };

/** A node row's state before the write. */
const before = fc.record({
  status: fc.constantFrom(...STATUSES),
  waiting: fc.integer({ min: 0, max: 2 }),
  taken: fc.integer({ min: 0, max: 2 }),
  token: fc.constantFrom(null, 'tok-a', 'tok-b'),
  output: fc.constantFrom(null, 'old output'),
});

/** A write of that row: each field set or not (its expectations, when the property does not take the row's own). */
const write = fc.record({
  exp_status: fc.constantFrom(...STATUSES),
  exp_waiting: fc.integer({ min: 0, max: 2 }),
  exp_taken: fc.integer({ min: 0, max: 2 }),
  exp_token: fc.constantFrom(null, 'tok-a', 'tok-b'),
  status: fc.constantFrom(...STATUSES),
  waiting: fc.integer({ min: 0, max: 2 }),
  taken: fc.integer({ min: 0, max: 2 }),
  set_output: fc.boolean(),
  output: fc.constantFrom(null, 'new output'),
  set_answer: fc.boolean(),
  answer: fc.constantFrom(null, 'yes'),
  set_error: fc.boolean(),
  error: fc.constantFrom(null, 'boom'),
  attempts: fc.constantFrom(null, 1, 3),
  run_after_delay: fc.constantFrom(null, 0, 5_000),
  set_skipped_by: fc.boolean(),
  skipped_by: fc.constantFrom(null, 'engine', 'operator'),
  attributes: fc.constantFrom(null, '{"type":"function","toolCode":"noop"}'),
  claim: fc.boolean(),
  clear_lease: fc.boolean(),
  finished: fc.boolean(),
  waits: fc.boolean(),
  relative: fc.boolean(),
});

describe.runIf(testBackend() === 'sqlite')('SQLite node and plan writes set only what they change (sqlite-updates.ts)', () => {
  let store: TestStore & { sql: Db };
  let db: Db;
  let rowId: number;
  let planId: string;

  beforeAll(async () => {
    store = await createTestStoreWithSql('sqlite');
    db = store.sql;
    planId = (await store.plans.create(chainPlan(1))).id;
    [{ id: rowId }] = (await db.all<{ id: number }>('SELECT id FROM nodes WHERE plan_id = ?', [planId])) as [{ id: number }];
  });
  afterAll(async () => {
    await store?.cleanup();
  });

  /** Runs `statement` on the row as `state` leaves it, and rolls back: the rows it counted, what it returned, the row after. */
  async function outcome(state: Seed, statement: (q: Queryable) => Promise<{ changed: number; returned: unknown[] }>) {
    return rolledBack(
      (q) => seed(q, state),
      statement,
      (q) => q.all<Row>(`SELECT ${COLUMNS.join(', ')} FROM nodes WHERE id = ?`, [rowId]),
    );
  }

  /** Seeds a row, runs the statement and reads the row after it, in a transaction rolled back. */
  async function rolledBack<R>(
    seeding: (q: Queryable) => Promise<unknown>,
    statement: (q: Queryable) => Promise<{ changed: number; returned: unknown[] }>,
    read: (q: Queryable) => Promise<R[]>,
  ) {
    let seen: { changed: number; returned: unknown[]; row: R; at: number } | undefined;
    await db
      .tx(async (q) => {
        await seeding(q);
        const at = Date.now();
        const { changed, returned } = await statement(q);
        const [row] = await read(q);
        seen = { changed, returned, row: row!, at };
        throw new RolledBack();
      })
      .catch((error: unknown) => {
        if (!(error instanceof RolledBack)) throw error;
      });
    return seen!;
  }

  async function seed(q: Queryable, state: Seed) {
    await q.run(
      `UPDATE nodes SET status = ?, waiting = ?, taken = ?, lease_token = ?, lease_owner = ?, output = ?, answer = NULL, error = NULL, attempts = 2, ` +
        `run_after = ${OLD}, skipped_by = NULL, lease_expires_at = ?, started_at = ${OLD}, finished_at = NULL, updated_at = ${OLD}, ` +
        `waiting_since = ${OLD}, remind_at = ${OLD}, timeout_at = ${OLD} WHERE id = ?`,
      [state.status, state.waiting, state.taken, state.token, state.token ? 'worker-1' : null, state.output, state.token ? OLD : null, rowId],
    );
  }

  it('leaves the row as the general statement does, for any write and row state', async () => {
    await fc.assert(
      fc.asyncProperty(before, write, fc.integer({ min: 0, max: 4 }), async (state, fields, holds) => {
        // Four writes in five expect the row as it is (with or without its lease token); the fifth expects anything.
        const expected =
          holds === 0 ? {} : { exp_status: state.status, exp_waiting: state.waiting, exp_taken: state.taken, exp_token: holds === 1 ? null : state.token };
        const node: NodeWrite = { id: rowId, plan_id: 'p', node_id: 'n0', ...fields, ...expected };
        const general = await outcome(state, async (q) => {
          const { sql, params } = named(GENERAL, (name) =>
            name === 'owner' ? LEASE.owner : name === 'lease_ms' ? LEASE.leaseMs : node[name as keyof NodeWrite],
          );
          const returned = await q.all(sql, params);
          return { changed: returned.length, returned };
        });
        const lean = await outcome(state, async (q) => {
          const { sql, params, returning } = nodeUpdateSqlite(node, LEASE);
          if (returning) {
            const returned = await q.all(sql, params);
            return { changed: returned.length, returned };
          }
          return { changed: await q.run(sql, params), returned: [] };
        });
        expect(lean.changed).toBe(general.changed);
        for (const column of COLUMNS)
          expect([column, comparable(column, lean.row[column], lean.at)]).toEqual([column, comparable(column, general.row[column], general.at)]);
        // A claim returns the claimed row (as the general statement did); any other write, nothing.
        if (node.claim) expect(lean.returned.map(withoutToken)).toEqual(general.returned.map(withoutToken));
        else expect(lean.returned).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it("leaves a plan's row as the general statement does, for any move and plan state", async () => {
    const move = fc.record({
      before: fc.constantFrom(...PLAN_STATUSES),
      from_status: fc.constantFrom(...PLAN_STATUSES),
      to_status: fc.constantFrom(...PLAN_STATUSES),
      set_error: fc.boolean(),
      error: fc.constantFrom(null, 'the plan failed'),
      waits: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(move, fc.boolean(), async ({ before: status, ...fields }, holds) => {
        const plan: PlanWrite = { plan_id: planId, ...fields, ...(holds ? { from_status: status } : {}) };
        const seeding = (q: Queryable) =>
          q.run(
            `UPDATE plans SET status = ?, error = 'old', updated_at = ${OLD}, waiting_since = ${OLD}, remind_at = ${OLD}, timeout_at = ${OLD} WHERE id = ?`,
            [status, planId],
          );
        const read = (q: Queryable) => q.all<Record<string, unknown>>(`SELECT ${PLAN_COLUMNS.join(', ')} FROM plans WHERE id = ?`, [planId]);
        const general = await rolledBack(
          seeding,
          async (q) => {
            const { sql, params } = named(GENERAL_PLAN, (name) => plan[name as keyof PlanWrite]);
            const returned = await q.all(sql, params);
            return { changed: returned.length, returned: [] };
          },
          read,
        );
        const lean = await rolledBack(
          seeding,
          async (q) => {
            const { sql, params } = planUpdateSqlite(plan);
            return { changed: await q.run(sql, params), returned: [] };
          },
          read,
        );
        expect(lean.changed).toBe(general.changed);
        for (const column of PLAN_COLUMNS)
          expect([column, comparable(column, lean.row[column], lean.at)]).toEqual([column, comparable(column, general.row[column], general.at)]);
      }),
      { numRuns: 200 },
    );
  });

  it('counts no row when an expectation does not hold, and changes nothing', async () => {
    const state = { status: 'running', waiting: 0, taken: 0, token: 'tok-a', output: 'old output' };
    const node: NodeWrite = {
      ...SETS_NOTHING,
      id: rowId,
      plan_id: 'p',
      node_id: 'n0',
      exp_status: 'running',
      exp_waiting: 0,
      exp_taken: 0,
      exp_token: 'tok-b', // another attempt's lease
      status: 'done',
      waiting: 0,
      taken: 0,
      set_output: true,
      output: 'new output',
      clear_lease: true,
      finished: true,
    };
    const lean = await outcome(state, async (q) => {
      const { sql, params } = nodeUpdateSqlite(node, LEASE);
      return { changed: await q.run(sql, params), returned: [] };
    });
    expect(lean.changed).toBe(0);
    expect(lean.row).toMatchObject({ status: 'running', output: 'old output', lease_token: 'tok-a', updated_at: OLD });
  });
});

class RolledBack extends Error {}

/** A column's value as the two statements are compared: a time set now as 'now' (or 'now + delay'), a new lease token by its shape. */
function comparable(column: string, value: unknown, at: number): unknown {
  if (TIMES.has(column) && typeof value === 'number' && value > OLD) {
    const from = value - at;
    return from > 2_500 ? 'later than now' : 'now';
  }
  if (column === 'lease_token' && typeof value === 'string' && /^\d+\.[0-9a-f]{32}$/.test(value)) return 'a new token';
  return value;
}

function withoutToken(row: unknown): unknown {
  const { token: _, leaseExpiresAt: __, ...rest } = row as Record<string, unknown>;
  return rest;
}
