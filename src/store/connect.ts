import { existsSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { DotplanError } from '../errors/errors.js';
import type { PrismaClient } from '../generated/sqlite/client.js';
import { PostgresDb } from './sql/postgres-db.js';
import { SqliteDb } from './sql/sqlite-db.js';
import type { Db } from './sql/executor.js';

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

/** The two clients a store works with: Prisma for typed reads, the raw executor for SQL. */
export interface Connection {
  target: DatabaseTarget;
  db: Db;
  /** Typed as the SQLite client; the PostgreSQL client has the same models and methods. */
  prisma: PrismaClient;
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
  const [{ PrismaBetterSqlite3 }, { PrismaClient }] = await Promise.all([import('@prisma/adapter-better-sqlite3'), import('../generated/sqlite/client.js')]);
  const factory = new PrismaBetterSqlite3({ url: path === ':memory:' ? path : `file:${path}`, timeout: 5000 });
  // Prisma opens the connection; we keep a handle on it so that our SQL and Prisma's share it.
  let handle: BetterSqlite3.Database | undefined;
  const adapter = {
    provider: 'sqlite' as const,
    adapterName: factory.adapterName,
    async connect() {
      const opened = await factory.connect();
      handle = (opened as unknown as { client?: BetterSqlite3.Database }).client;
      return opened;
    },
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
  const prisma = new PrismaClient({ adapter });
  await prisma.$connect();
  if (!handle || typeof handle.prepare !== 'function') {
    await prisma.$disconnect();
    throw new DotplanError(
      'INTERNAL',
      'the SQLite driver adapter did not expose its better-sqlite3 connection (an unsupported @prisma/adapter-better-sqlite3 version?)',
    );
  }
  handle.pragma('journal_mode = WAL');
  handle.pragma('busy_timeout = 5000');
  handle.pragma('synchronous = NORMAL');
  handle.pragma('foreign_keys = ON');
  const db = new SqliteDb(handle, target.file, () => prisma.$disconnect());
  return { target, db, prisma };
}

async function connectPostgres(target: { kind: 'postgres'; url: string }): Promise<Connection> {
  const [{ PrismaPg }, { PrismaClient }] = await Promise.all([import('@prisma/adapter-pg'), import('../generated/postgresql/client.js')]);
  // JIT compilation costs milliseconds that short transactional queries never win back (it kicked in on
  // the outlook's estimate over stale statistics: 13 ms instead of well under one).
  const pool = new pg.Pool({ connectionString: target.url, max: 12, options: '-c jit=off' });
  pool.on('error', () => undefined); // an idle client's connection dropped: the pool replaces it
  try {
    (await pool.connect()).release(); // fail fast, with the server's message, when it cannot connect
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const db = new PostgresDb(pool, async () => {
    await prisma.$disconnect();
    await pool.end();
  });
  return { target, db, prisma: prisma as unknown as PrismaClient };
}
