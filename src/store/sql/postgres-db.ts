import { createHash } from 'node:crypto';
import pg from 'pg';
import { DotplanError } from '../../errors/errors.js';
import { withNow, type Db, type Queryable } from './executor.js';
import { withRetry } from './retry.js';
import { TextCache } from './text-cache.js';

/** int8 (COUNT, BIGINT epoch-ms columns) and numeric as JS numbers: every value we store fits. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
  },
};

interface Prepared {
  name: string;
  text: string;
}
const prepared = new TextCache<Prepared>(5000);

/**
 * `?` placeholders → `$1, $2, ...`, `NOW` → the database clock; each distinct statement becomes a
 * named prepared statement (pg prepares it once per connection), which spares the hot path the
 * planning of its CTEs on every call.
 */
function pgStatement(sql: string): Prepared {
  return prepared.getOrMake(sql, (source) => {
    let n = 0;
    const text = withNow(source, 'postgres').replace(/\?/g, () => `$${++n}`);
    return { name: `dotplan_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
  });
}

/**
 * Rows an array parameter may hold for its statement to run on the prepared statement's plan: a generic
 * plan takes every `unnest` of a parameter for 10 rows, and for a thousand (a cascade's step over a
 * tree of 1,000 plans) it ran 585–770 ms of server time where a plan made for the values took 210–237 ms.
 */
const PLANNED_FOR_ROWS = 100;

async function query<T>(client: pg.Pool | pg.PoolClient, sql: string, params: readonly unknown[] = []): Promise<pg.QueryResult & { rows: T[] }> {
  const { name, text } = pgStatement(sql);
  const values = params.map((v) => (v === undefined ? null : v));
  // Larger arrays: an unnamed statement, planned for these values (its arrays' lengths) each time it runs.
  const named = !params.some((v) => Array.isArray(v) && v.length > PLANNED_FOR_ROWS);
  return client.query(named ? { name, text, values, types } : { text, values, types }) as Promise<pg.QueryResult & { rows: T[] }>;
}

/**
 * Statements sent in one go: the client's socket is corked from the first statement sent until the
 * queued callbacks of that moment have run (process.nextTick), so statements sent at once (pipelined
 * reads started together, BEGIN with the first statement) leave in one write, not one system call each.
 * Inside a chain of promise callbacks that moment comes only when the chain has run out: a statement
 * the caller wants on the wire before it goes on is sent with uncorked() (Queryable.flush).
 */
function corked(client: pg.PoolClient): void {
  const stream = streamOf(client);
  if (!stream || corks.has(client)) return;
  const cork = {};
  corks.set(client, cork);
  stream.cork();
  process.nextTick(() => {
    if (corks.get(client) === cork) uncorked(client);
  });
}

/** What corked() holds back, sent now. */
function uncorked(client: pg.PoolClient): void {
  if (!corks.delete(client)) return;
  streamOf(client)?.uncork();
}
/** The cork each client's socket holds now (a new one after uncorked(): an older tick's uncork leaves it be). */
const corks = new WeakMap<pg.PoolClient, object>();

type Corkable = { cork(): void; uncork(): void };
function streamOf(client: pg.PoolClient): Corkable | undefined {
  const stream = (client as unknown as { connection?: { stream?: Partial<Corkable> } }).connection?.stream;
  return stream?.cork && stream.uncork ? (stream as Corkable) : undefined;
}

/** Pipeline mode on or off for a client the caller holds with no query in flight (pg reads the flag as it sends). */
function pipelined(client: pg.PoolClient, on: boolean): void {
  (client as unknown as { pipeline: boolean }).pipeline = on;
}

/** The PostgreSQL executor on the pg pool that the Prisma adapter shares. */
export class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;

  constructor(
    readonly pool: pg.Pool,
    private readonly onClose: () => Promise<void>,
  ) {}

  async all<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return (await query<T>(this.pool, sql, params)).rows;
  }

  async run(sql: string, params?: readonly unknown[]): Promise<number> {
    return (await query(this.pool, sql, params)).rowCount ?? 0;
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return withRetry(async () => {
      const client = await this.pool.connect();
      // commitWithNext: COMMIT sent right after the statement named last, before its answer comes back.
      let last = false;
      let committed: Promise<unknown> | undefined;
      const send = <R>(sql: string, params?: readonly unknown[]) => {
        if (committed) throw new DotplanError('INTERNAL', `a statement sent after the transaction's last: ${sql.slice(0, 60)}`);
        corked(client);
        const result = query<R>(client, sql, params);
        if (last) {
          committed = client.query('COMMIT');
          committed.catch(() => undefined); // awaited after fn: a failing statement's error is the one reported
        }
        return result;
      };
      const q: Queryable = {
        dialect: 'postgres',
        all: async <R>(sql: string, params?: readonly unknown[]) => (await send<R>(sql, params)).rows,
        run: async (sql, params) => (await send(sql, params)).rowCount ?? 0,
        exec: async (sql) => void (await client.query(sql)),
        commitWithNext: () => {
          last = true;
        },
        flush: () => uncorked(client),
      };
      let broken = false;
      // Pipelined (pg's pipeline mode, on this connection while the transaction holds it): statements
      // sent before the answers to earlier ones come back — BEGIN goes with the first statement, and
      // reads a transaction makes at once (Promise.all) go in one round trip. The server still runs
      // them one after another, in the order sent.
      pipelined(client, true);
      try {
        corked(client);
        const begun = client.query('BEGIN');
        begun.catch(() => undefined); // a failed BEGIN fails the first statement too: fn's error is the one reported
        const result = await fn(q);
        await begun;
        await (committed ?? client.query('COMMIT'));
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        throw error;
      } finally {
        pipelined(client, false);
        client.release(broken);
      }
    });
  }

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
