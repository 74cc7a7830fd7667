/**
 * Followers of the audit log get every event once, in id order, even when PostgreSQL commits them out
 * of id order: an id is taken when the row is inserted, so a transaction holding id N may commit after
 * one holding N+1 was read. A follower of every event (the worker's progress lines, the HTTP API's
 * shared feed) waits for a missing id a while before it goes past it. SQLite commits one writer at a
 * time, so its ids are always committed in order: this runs on PostgreSQL only.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/store/types.js';
import { openTestDotplan, type TestDotplan } from '../api/open.js';
import { testBackend } from '../support/db.js';
import { waitUntil } from '../support/wait.js';

const INSERT = `INSERT INTO events (plan_id, node_id, kind, driver, actor, from_status, to_status, reason, detail, at)
  VALUES ($1, NULL, 'log', 'operator', 'test', '', '', $2, NULL, 0) RETURNING id`;

describe.runIf(testBackend() === 'postgres')('events committed out of id order (PostgreSQL)', () => {
  let t: TestDotplan;
  let planId: string;
  beforeAll(async () => {
    t = await openTestDotplan();
    planId = (await t.dotplan.create({ dot: 'digraph g { a [type=confirm status=pending question="Go?"] }' })).id;
  });
  afterAll(() => t?.cleanup());

  it('delivers the earlier id first, once its transaction commits, then the later one', async () => {
    const [slow, fast] = [new pg.Client({ connectionString: t.url }), new pg.Client({ connectionString: t.url })];
    await Promise.all([slow.connect(), fast.connect()]);
    const seen: EventRecord[] = [];
    await t.dotplan.store.events.listening;
    const following = t.dotplan.events.follow({ after: await t.dotplan.events.lastId() }, (event) => void seen.push(event));
    try {
      await slow.query('BEGIN');
      const first = Number((await slow.query<{ id: string }>(INSERT, [planId, 'first, committed last'])).rows[0]!.id);
      await fast.query('BEGIN');
      const second = Number((await fast.query<{ id: string }>(INSERT, [planId, 'second, committed first'])).rows[0]!.id);
      // Wakes the follower as a worker's commit does, so that it reads right after this commit.
      await fast.query(`SELECT pg_notify('dotplan_wake', $1)`, [JSON.stringify({ i: 'test', r: 'plan', p: planId })]);
      await fast.query('COMMIT');
      expect(second).toBeGreaterThan(first);
      // The later id is committed and readable; the follower must not hand it out past the missing one.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(seen.map((e) => e.id)).toEqual([]);
      await slow.query('COMMIT');
      await waitUntil(() => seen.length >= 2, 'both events');
      expect(seen.map((e) => e.id)).toEqual([first, second]);
    } finally {
      await following.stop();
      await Promise.all([slow.end(), fast.end()]);
    }
  });

  it('goes past an id that never commits (a rolled-back transaction) after waiting a while', async () => {
    const [rolled, other] = [new pg.Client({ connectionString: t.url }), new pg.Client({ connectionString: t.url })];
    await Promise.all([rolled.connect(), other.connect()]);
    const seen: EventRecord[] = [];
    const following = t.dotplan.events.follow({ after: await t.dotplan.events.lastId() }, (event) => void seen.push(event));
    try {
      await rolled.query('BEGIN');
      await rolled.query(INSERT, [planId, 'never committed']);
      await rolled.query('ROLLBACK');
      const after = Number((await other.query<{ id: string }>(INSERT, [planId, 'after the hole'])).rows[0]!.id);
      await waitUntil(() => seen.length >= 1, 'the event after the hole', 10_000);
      expect(seen.map((e) => e.id)).toEqual([after]);
    } finally {
      await following.stop();
      await Promise.all([rolled.end(), other.end()]);
    }
  });
});
