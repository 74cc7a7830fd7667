/**
 * The SQL executor both backends share: statements are written once with `?` placeholders and run
 * on the raw driver (better-sqlite3 / pg) under the Prisma client, which keeps the worker's hot path
 * free of per-query ORM overhead. `NOW` in a statement is the database clock in epoch milliseconds.
 */
import { TextCache } from './text-cache.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Queryable {
  readonly dialect: Dialect;
  /** Rows of a query (or of `... RETURNING`). */
  all<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a statement; resolves to the number of rows changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Runs SQL text verbatim: no parameters, no `NOW`/`?` rewriting (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * In a PostgreSQL transaction: the next statement is the transaction's last, and COMMIT is sent
   * with it, in its round trip (a failing statement makes the server roll back instead). Nothing may
   * be sent after it, and nothing may fail after it: the transaction is committed by then. Absent
   * where there is no round trip to save (SQLite) or no transaction.
   */
  commitWithNext?(): void;
  /**
   * In a PostgreSQL transaction: puts what was sent and is still held back (statements sent in one
   * go leave together once the queued callbacks have run) on the wire now, so that the server works
   * on it while the caller prepares its next statement. Absent where nothing is held back.
   */
  flush?(): void;
}

export interface Db extends Queryable {
  /**
   * Runs `fn` in one transaction (SQLite: BEGIN IMMEDIATE behind the connection's mutex), retried
   * on the retryable errors of `retry.ts`. `fn` may run more than once: keep side effects out of it.
   */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Runs `fn` with the connection to itself (SQLite); used around Prisma calls. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** One SQL statement and its parameters (`?` placeholders, `NOW`), to run now or as part of a larger one. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** No SQL: a condition or a part left out (`Statement` defaults). */
export const NO_SQL: Readonly<Statement> = Object.freeze({ sql: '', params: [] });

/** `NOW` (epoch ms, database clock) spelled for each dialect. */
export const NOW_SQL: Readonly<Record<Dialect, string>> = {
  sqlite: `CAST(unixepoch('subsec') * 1000 AS INTEGER)`,
  postgres: `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`,
};

/** Replaces the `NOW` token (a whole word, upper case) by the dialect's expression. */
export function withNow(sql: string, dialect: Dialect): string {
  return sql.replace(/\bNOW\b/g, NOW_SQL[dialect]);
}

/** `?, ?, ?` for an IN list. */
export function marks(count: number): string {
  return repeated('?', count);
}

const lists = new Map<string, string[]>();
/**
 * `item` `count` times, comma-separated: the lists of placeholders a statement's text is built of, made
 * once per item and count (up to 500) and then the same string, which a statement cache finds at once.
 */
export function repeated(item: string, count: number): string {
  let made = lists.get(item);
  if (!made) lists.set(item, (made = []));
  const known = made[count];
  if (known !== undefined) return known;
  const text = Array.from({ length: count }, () => item).join(', ');
  if (count <= 500) made[count] = text;
  return text;
}

/** `FOR UPDATE` on PostgreSQL (row locks), nothing on SQLite (the write transaction locks the file). */
export function forUpdate(q: Queryable, extra = ''): string {
  return q.dialect === 'postgres' ? ` FOR UPDATE${extra ? ` ${extra}` : ''}` : '';
}

/**
 * A multi-row statement's parameters: each row's values, one row after another. A loop, not
 * `Array.prototype.flatMap`, which took about 1.2 µs a row of nine values on Node 20 against 0.05 µs
 * (a loop of 10-row batches), in statements a worker writes for every node.
 */
export function rowParams<T>(rows: readonly T[], values: (row: T) => readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const row of rows) {
    const list = values(row);
    for (let i = 0; i < list.length; i++) out.push(list[i]);
  }
  return out;
}

/** Splits a list so that IN lists and multi-row inserts stay under both databases' parameter limits. */
export function chunk<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Statements with `:name` placeholders as `?` text and the names in order, worked out once per statement. */
const compiled = new TextCache<{ text: string; names: string[] }>(200);

/**
 * A statement written with `:name` placeholders, turned into `?` placeholders and the matching
 * parameter list (a name may appear several times): `value` gives each name's value (booleans are
 * bound as 1 and 0). The text is rewritten once per statement (it ran for every node a step wrote:
 * ~8% of the SQLite worker's time), and no object of values is built per call.
 */
export function named(sql: string, value: (name: string) => unknown): { sql: string; params: unknown[] } {
  const statement = compiled.getOrMake(sql, (source) => {
    const names: string[] = [];
    const text = source.replace(/(?<!:):([a-z_][a-z0-9_]*)/gi, (_, name: string) => {
      names.push(name);
      return '?';
    });
    return { text, names };
  });
  const params = statement.names.map((name) => {
    const v = value(name);
    if (v === undefined) throw new Error(`no value for :${name}`);
    return v === true ? 1 : v === false ? 0 : v;
  });
  return { sql: statement.text, params };
}
