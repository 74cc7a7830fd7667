/**
 * PostgreSQL transactions are pipelined (src/store/sql/postgres-db.ts): statements a transaction sends
 * at once share a round trip (flush puts them on the wire before the caller goes on), and the statement
 * named last (commitWithNext) carries the COMMIT. What a caller relies on must still hold: each read gets
 * its own rows in the order sent, a failing statement among them rolls the whole transaction back, and
 * the connection goes back to the pool clean.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, resolveDatabase } from '../../src/store/connect.js';
import type { Db } from '../../src/store/sql/executor.js';
import { createPostgresDatabase, testBackend } from '../support/db.js';

describe.runIf(testBackend() === 'postgres')('pipelined transactions (PostgreSQL)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    db = (await connect(resolveDatabase(created.url))).db;
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, v text)');
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('gives each read sent at once its own rows, in order, after the writes before them', async () => {
    const rows = await db.tx(async (q) => {
      await q.run('INSERT INTO t VALUES (1, ?)', ['one']);
      return Promise.all([q.all('SELECT v FROM t WHERE id = 1'), q.all('SELECT 2 AS n'), q.all('SELECT count(*) AS n FROM t')]);
    });
    expect(rows).toEqual([[{ v: 'one' }], [{ n: 2 }], [{ n: 1 }]]);
  });

  it('rolls the whole transaction back when one of the statements sent at once fails, and the connection is reused clean', async () => {
    await expect(
      db.tx(async (q) => {
        await q.run('INSERT INTO t VALUES (2, ?)', ['two']);
        await Promise.all([q.all('SELECT 1 AS n'), q.all('SELECT * FROM no_such_table'), q.all('SELECT 3 AS n')]);
      }),
    ).rejects.toThrow(/no_such_table/);
    expect(await db.all('SELECT id FROM t ORDER BY id')).toEqual([{ id: 1 }]);
    for (let i = 0; i < 3; i++) expect(await db.tx((q) => q.all('SELECT ? AS n', [i]))).toEqual([{ n: String(i) }]);
  });

  it('commits with the statement named last: its rows and the ones before it are kept, and it returns its rows', async () => {
    const rows = await db.tx(async (q) => {
      await q.run('INSERT INTO t VALUES (10, ?)', ['ten']);
      q.commitWithNext?.();
      return q.all('INSERT INTO t VALUES (11, ?) RETURNING v', ['eleven']);
    });
    expect(rows).toEqual([{ v: 'eleven' }]);
    expect(await db.all('SELECT id FROM t WHERE id >= 10 ORDER BY id')).toEqual([{ id: 10 }, { id: 11 }]);
  });

  it("rolls back when the statement named last fails: nothing before it is kept, the error is the statement's", async () => {
    await expect(
      db.tx(async (q) => {
        await q.run('INSERT INTO t VALUES (20, ?)', ['twenty']);
        q.commitWithNext?.();
        await q.run('INSERT INTO t VALUES (10, ?)', ['ten again']); // id 10 exists
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await db.all('SELECT id FROM t WHERE id = 20')).toEqual([]);
    expect(await db.tx((q) => q.all('SELECT 1 AS n'))).toEqual([{ n: 1 }]);
  });

  it('puts what it holds back on the wire at flush, while the caller goes on with work of its own', async () => {
    const gap = await db.tx(async (q) => {
      await q.all('SELECT 1 AS n');
      const sent = Date.now();
      const answer = q.all<{ at: number }>('SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::float8 AS at');
      q.flush?.();
      // The caller's own work, in the same tick: without the flush, the statement would leave only after it.
      while (Date.now() - sent < 1000);
      const [row] = await answer;
      return row!.at - sent;
    });
    expect(gap).toBeLessThan(500);
  });

  it('refuses a statement sent after the last one, naming it', async () => {
    await expect(
      db.tx(async (q) => {
        q.commitWithNext?.();
        await q.run('INSERT INTO t VALUES (30, ?)', ['thirty']);
        await q.run('INSERT INTO t VALUES (31, ?)', ['thirty-one']);
      }),
    ).rejects.toThrow(/after the transaction's last: INSERT INTO t VALUES \(31/);
    // The last statement committed with it: only the refused one is missing.
    expect(await db.all('SELECT id FROM t WHERE id >= 30 ORDER BY id')).toEqual([{ id: 30 }]);
  });
});
