import { existsSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { DotplanError } from '../errors/errors.js';
import type { PrismaClient } from '../generated/sqlite/client.js';
import { withServerOptions } from './pg-options.js';
import { SqliteDb } from './sql/sqlite-db.js';
import type { Db } from './sql/executor.js';

/**
 * How the store's SQLite connection is set: write-ahead log, commits that do not wait for the disk (a
 * power cut may lose the last ones, never corrupt the file), a wait for a lock held by another process
 * instead of an error, foreign keys checked. The bench's SQLite floor (src/bench/sqlite-floor.ts) sets the same.
 */
export const SQLITE_PRAGMAS: readonly string[] = ['journal_mode = WAL', 'busy_timeout = 5000', 'synchronous = NORMAL', 'foreign_keys = ON'];

/**
 * Where the data lives, resolved from a URL (or its absence). Only the default SQLite file has its
 * folder made when missing (`createFolder`); a `file:` URL names a file in a folder that exists.
 */
export type DatabaseTarget = { kind: 'sqlite'; file: string; createFolder?: true } | { kind: 'postgres'; url: string };

export interface ConnectOptions {
  /**
   * Make the database when it does not exist (default true). false: a SQLite file that does not
   * exist is not created — an empty in-memory database stands in for it, so that a command that
   * only reads (or acts on plans that would have to exist) finds nothing and leaves nothing behind.
   */
  create?: boolean;
}

/** The two clients a store works with: the raw executor for SQL, and Prisma for typed reads, made on first use. */
export interface Connection {
  target: DatabaseTarget;
  db: Db;
  /**
   * The Prisma client on the same connection (SQLite) or pool (PostgreSQL), made when first asked
   * for. The store reads in SQL (reads.ts) and never asks: the tests hold those reads equal to this
   * client's, whose query compiler (WebAssembly) would cost each command about a third of a second.
   * Typed as the SQLite client; the PostgreSQL client has the same models and methods.
   */
  prisma: () => Promise<PrismaClient>;
  /** PostgreSQL: a new client (not connected) for the wake-ups' LISTEN. */
  listener?: () => pg.Client;
}

export const DEFAULT_SQLITE_FILE = join('.dotplan', 'dotplan.db');

/** No url → `.dotplan/dotplan.db` under cwd; `file:` → that SQLite file; `postgres(ql)://` → PostgreSQL. */
export function resolveDatabase(url: string | undefined, cwd = process.cwd()): DatabaseTarget {
  if (url === undefined || url.trim() === '') return { kind: 'sqlite', file: resolve(cwd, DEFAULT_SQLITE_FILE), createFolder: true };
  const trimmed = url.trim();
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return { kind: 'postgres', url: trimmed };
  if (/^file:/i.test(trimmed)) {
    const path = trimmed
      .slice('file:'.length)
      .replace(/^\/\/(?=\/)/, '')
      .split('?')[0]!;
    if (path === '') throw new DotplanError('CONFIG', `database URL "${trimmed}" names no file: write file:<path>, e.g. file:./dotplan.db`);
    return { kind: 'sqlite', file: isAbsolute(path) ? path : resolve(cwd, path) };
  }
  throw new DotplanError(
    'CONFIG',
    `unsupported database URL "${redact(trimmed)}": use postgres://user@host:5432/db (or postgresql://) for PostgreSQL, ` +
      `file:<path> for a SQLite file, or leave it unset for ${DEFAULT_SQLITE_FILE} in the current directory`,
  );
}

/** The URL with any password replaced, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

export async function connect(target: DatabaseTarget, options: ConnectOptions = {}): Promise<Connection> {
  try {
    return target.kind === 'sqlite' ? await connectSqlite(target, options.create ?? true) : await connectPostgres(target);
  } catch (error) {
    if (error instanceof DotplanError) throw error;
    const where = target.kind === 'sqlite' ? target.file : redact(target.url);
    throw new DotplanError('DATABASE', `cannot open the database at ${where}: ${(error as Error).message}`, { cause: error });
  }
}

/** The file to open: the target's (its folder made if it may be), or `:memory:` for one that does not exist and is not to be created. */
function sqlitePath(target: Extract<DatabaseTarget, { kind: 'sqlite' }>, create: boolean): string {
  const folder = dirname(target.file);
  if (!target.createFolder && !existsSync(folder)) {
    throw new DotplanError(
      'CONFIG',
      `cannot use the SQLite database ${target.file}: the folder ${folder} does not exist (create it first; only the default ${dirname(DEFAULT_SQLITE_FILE)}/ folder is made by dotplan)`,
    );
  }
  if (!create && !existsSync(target.file)) return ':memory:';
  if (target.createFolder) mkdirSync(folder, { recursive: true });
  return target.file;
}

async function connectSqlite(target: Extract<DatabaseTarget, { kind: 'sqlite' }>, create: boolean): Promise<Connection> {
  const path = sqlitePath(target, create);
  const { PrismaBetterSqlite3 } = await import('@prisma/adapter-better-sqlite3');
  const factory = new PrismaBetterSqlite3({ url: path === ':memory:' ? path : `file:${path}`, timeout: 5000 });
  // The adapter opens the connection; our SQL and (once made) Prisma's client share it.
  let opened: Awaited<ReturnType<typeof factory.connect>>;
  try {
    opened = await factory.connect();
  } catch (error) {
    throw driverNotBuilt(error) ?? error;
  }
  const handle = (opened as unknown as { client?: BetterSqlite3.Database }).client;
  if (!handle || typeof handle.prepare !== 'function') {
    await opened.dispose();
    throw new DotplanError(
      'INTERNAL',
      'the SQLite driver adapter did not expose its better-sqlite3 connection (an unsupported @prisma/adapter-better-sqlite3 version?)',
    );
  }
  for (const setting of SQLITE_PRAGMAS) handle.pragma(setting);
  let prisma: Promise<PrismaClient> | undefined;
  const makePrisma = () =>
    (prisma ??= import('../generated/sqlite/client.js').then(async ({ PrismaClient }) => {
      const client = new PrismaClient({
        adapter: { provider: 'sqlite', adapterName: factory.adapterName, connect: async () => opened, connectToShadowDb: () => factory.connectToShadowDb() },
      });
      await client.$connect();
      return client;
    }));
  const db = new SqliteDb(handle, target.file, async () => {
    // Prisma's disconnect disposes of the adapter's connection; without a client we do it.
    if (prisma) await (await prisma).$disconnect();
    else await opened.dispose();
  });
  return { target, db, prisma: makePrisma };
}

/**
 * better-sqlite3's native module missing (a checkout's install skips its build script: scripts/build-sqlite.mjs
 * makes it) or built for another Node: what to run, instead of the list of paths the loader tried.
 */
export function driverNotBuilt(error: unknown): DotplanError | undefined {
  const message = error instanceof Error ? error.message : '';
  const missing = message.startsWith('Could not locate the bindings file');
  if (!missing && !message.includes('NODE_MODULE_VERSION')) return undefined;
  return new DotplanError(
    'DATABASE',
    `SQLite's driver, better-sqlite3, has ${missing ? 'no native module built' : 'a native module built for another Node.js'}: ` +
      'in a checkout of dotplan run `npm run build:sqlite`; where dotplan is installed as a package, `npm rebuild better-sqlite3`',
    { cause: error },
  );
}

async function connectPostgres(target: { kind: 'postgres'; url: string }): Promise<Connection> {
  const [{ default: pg }, { PostgresDb }] = await Promise.all([import('pg'), import('./sql/postgres-db.js')]);
  // JIT compilation costs milliseconds that short transactional queries never win back (it kicked in on
  // the outlook's estimate over stale statistics: 13 ms instead of well under one). Idle connections
  // stay open for minutes, not pg's 10 s: a worker whose tool ran 10 s found its connection gone and
  // paid a reconnect (~19 ms) and the re-planning of its prepared statements.
  const pool = new pg.Pool({ ...withServerOptions(target.url, '-c jit=off'), max: 12, idleTimeoutMillis: 300_000 });
  pool.on('error', () => undefined); // an idle client's connection dropped: the pool replaces it
  try {
    (await pool.connect()).release(); // fail fast, with the server's message, when it cannot connect
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  let prisma: Promise<PrismaClient> | undefined;
  const makePrisma = () =>
    (prisma ??= Promise.all([import('@prisma/adapter-pg'), import('../generated/postgresql/client.js')]).then(
      ([{ PrismaPg }, { PrismaClient }]) => new PrismaClient({ adapter: new PrismaPg(pool) }) as unknown as PrismaClient,
    ));
  const db = new PostgresDb(pool, async () => {
    if (prisma) await (await prisma).$disconnect();
    await pool.end();
  });
  return { target, db, prisma: makePrisma, listener: () => new pg.Client({ connectionString: target.url }) };
}
