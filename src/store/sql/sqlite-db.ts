import type BetterSqlite3 from 'better-sqlite3';
import { withNow, type Db, type Queryable } from './executor.js';
import { withRetry } from './retry.js';
import { TextCache } from './text-cache.js';

type Database = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;

/**
 * One turn queue per database file and process: two stores on one file in one process (tests,
 * a CLI command beside a worker) would otherwise deadlock — the second's BEGIN IMMEDIATE blocks
 * the thread in busy_timeout while the first waits, mid-transaction, for that same thread.
 */
const turns = new Map<string, { turn: Promise<unknown> }>();

/**
 * The SQLite executor on the better-sqlite3 connection that the Prisma adapter opened. One
 * connection serves the process, so every use of it (our statements and Prisma's) takes a turn
 * behind one mutex; write transactions are `BEGIN IMMEDIATE` so that several processes wait on
 * busy_timeout instead of failing with SQLITE_BUSY when a read would have to become a write.
 */
export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  readonly #handle: Database;
  readonly #statements = new TextCache<Statement>(2000);
  readonly #queue: { turn: Promise<unknown> };
  readonly #inner: Queryable;
  /** Hand-offs of the checkpoints not released yet (handOffCheckpoints). */
  #checkpointsElsewhere = 0;

  constructor(
    handle: Database,
    file: string,
    private readonly onClose: () => Promise<void>,
  ) {
    this.#handle = handle;
    let queue = turns.get(file);
    if (!queue) turns.set(file, (queue = { turn: Promise.resolve() }));
    this.#queue = queue;
    this.#inner = {
      dialect: 'sqlite',
      all: async (sql, params) => this.#all(sql, params),
      run: async (sql, params) => this.#run(sql, params),
      exec: async (sql) => void this.#handle.exec(sql),
    };
  }

  all<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.exclusive(async () => this.#all<T>(sql, params));
  }

  run(sql: string, params?: readonly unknown[]): Promise<number> {
    return this.exclusive(async () => this.#run(sql, params));
  }

  exec(sql: string): Promise<void> {
    return this.exclusive(async () => void this.#handle.exec(sql));
  }

  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return withRetry(() =>
      this.exclusive(async () => {
        this.#statement('BEGIN IMMEDIATE').run();
        try {
          const result = await fn(this.#inner);
          this.#statement('COMMIT').run();
          return result;
        } catch (error) {
          if (this.#handle.inTransaction) this.#statement('ROLLBACK').run();
          throw error;
        }
      }),
    );
  }

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#queue.turn.then(fn, fn);
    this.#queue.turn = result.catch(() => undefined);
    return result;
  }

  /** Changes when another connection commits to the file (not on this connection's own commits). */
  dataVersion(): Promise<number> {
    return this.exclusive(async () => Number(this.#handle.pragma('data_version', { simple: true })));
  }

  /**
   * Another connection to the file checkpoints the write-ahead log (a worker's lease thread), so this
   * one stops doing it at its commits (`wal_autocheckpoint = 0`) until every hand-off is released: the
   * checkpoints' page copies and fsyncs leave the thread that runs the writes.
   */
  async handOffCheckpoints(): Promise<() => Promise<void>> {
    if (this.#checkpointsElsewhere++ === 0) await this.exclusive(async () => void this.#handle.pragma('wal_autocheckpoint = 0'));
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      if (--this.#checkpointsElsewhere > 0) return;
      await this.exclusive(async () => void (this.#handle.open && this.#handle.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT}`)));
    };
  }

  async close(): Promise<void> {
    await this.exclusive(() => this.onClose());
  }

  #statement(sql: string): Statement {
    return this.#statements.getOrMake(sql, (text) => {
      const statement = this.#handle.prepare(withNow(text, 'sqlite'));
      if (statement.reader) statement.safeIntegers(false);
      return statement;
    });
  }

  #all<T>(sql: string, params: readonly unknown[] = []): T[] {
    const statement = this.#statement(sql);
    if (!statement.reader) {
      statement.run(...params.map(bindable));
      return [];
    }
    return statement.all(...params.map(bindable)) as T[];
  }

  #run(sql: string, params: readonly unknown[] = []): number {
    const statement = this.#statement(sql);
    if (statement.reader) return statement.all(...params.map(bindable)).length;
    return statement.run(...params.map(bindable)).changes;
  }
}

/** SQLite's own default: a commit that leaves this many pages or more in the write-ahead log checkpoints it. */
const SQLITE_AUTOCHECKPOINT = 1000;

function bindable(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  return value;
}
