/**
 * Test databases: each call gives its own store — a SQLite file in a fresh temp dir, or, when the
 * suite runs on PostgreSQL (`DB=postgres`, or DATABASE_URL=postgres://…), its own database
 * `dotplan_test_<random>` created on the server named by DATABASE_URL and dropped in cleanup().
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect, resolveDatabase } from '../../src/store/connect.js';
import { openStore, type OpenStoreOptions } from '../../src/store/index.js';
import type { Db } from '../../src/store/sql/executor.js';
import type { Store } from '../../src/store/types.js';
import { testBackend, type TestBackend } from './backend.js';

export { testBackend, type TestBackend } from './backend.js';

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestStore extends Store {
  /** The URL the store was opened with (open a second store on the same database with it). */
  url: string;
  cleanup(): Promise<void>;
}

/** The PostgreSQL server to create test databases on. */
export function postgresServerUrl(): string {
  const url = process.env.DATABASE_URL ?? '';
  return /^postgres(ql)?:\/\//i.test(url) ? url : DEFAULT_POSTGRES_URL;
}

/**
 * The PostgreSQL server a benchmark test measures on: the one DATABASE_URL names; in CI (and with
 * DB=postgres) always, on the default local server if need be, so that a server that cannot be
 * reached fails those tests instead of skipping them; otherwise none (the tests skip, and say why).
 */
export function benchPostgresUrl(): string | undefined {
  const url = process.env.DATABASE_URL;
  if (url !== undefined && /^postgres(ql)?:\/\//i.test(url)) return url;
  return process.env.CI === 'true' || process.env.DB === 'postgres' ? postgresServerUrl() : undefined;
}

/**
 * A login role of its own on the PostgreSQL server at `serverUrl`, allowed to create databases, and
 * `url`: the server's URL signed in as that role. Databases a test creates through `url` are the ones
 * `ownedDatabases` lists (their owner is the role), so the test can tell them from those that test
 * files running beside it create. `drop` removes what the role still owns, then the role.
 */
export async function createOwnRole(serverUrl: string): Promise<{ url: string; ownedDatabases(): Promise<string[]>; drop(): Promise<void> }> {
  const role = `dotplan_test_role_${randomBytes(6).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  const asAdmin = <T>(work: (client: pg.Client) => Promise<T>) => onServer(serverUrl, work);
  const owned = () =>
    asAdmin(async (client) => {
      const res = await client.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE datdba = (SELECT oid FROM pg_roles WHERE rolname = $1) ORDER BY datname',
        [role],
      );
      return res.rows.map((r) => r.datname);
    });
  await asAdmin((client) => client.query(`CREATE ROLE ${role} LOGIN CREATEDB PASSWORD '${password}'`));
  const url = new URL(serverUrl);
  url.username = role;
  url.password = password;
  return {
    url: url.toString(),
    ownedDatabases: owned,
    async drop() {
      for (const name of await owned()) await asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      await asAdmin((client) => client.query(`DROP ROLE IF EXISTS ${role}`));
    },
  };
}

export async function createTestStore(backend: TestBackend = testBackend(), options: Omit<OpenStoreOptions, 'url'> = {}): Promise<TestStore> {
  return backend === 'postgres' ? createPostgresStore(options) : createSqliteStore(options);
}

/**
 * A test store with a SQL connection of its own to the same database (`sql`), for tests that write or read rows
 * as the store's statements do; cleanup() closes both.
 */
export async function createTestStoreWithSql(backend: TestBackend = testBackend()): Promise<TestStore & { sql: Db }> {
  const store = await createTestStore(backend);
  const { db: sql } = await connect(resolveDatabase(store.url));
  const cleanup = store.cleanup.bind(store);
  return Object.assign(store, {
    sql,
    async cleanup() {
      await sql.close();
      await cleanup();
    },
  });
}

async function createSqliteStore(options: Omit<OpenStoreOptions, 'url'>): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-test-'));
  const url = `file:${join(dir, 'dotplan.db')}`;
  const store = await openStore({ ...options, url });
  return Object.assign(store, {
    url,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** `work` on a connection of its own to the PostgreSQL server at `serverUrl`, closed afterwards. */
async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty PostgreSQL database; returns its URL and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = postgresServerUrl();
  const name = `dotplan_test_${randomBytes(6).toString('hex')}`;
  await onServer(server, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(server, async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}

/**
 * A database for a test on the run's backend (or `backend`): a SQLite file under `dir` (the test removes the folder;
 * `drop` does nothing), or a fresh PostgreSQL database that `drop` removes.
 */
export async function testDatabase(dir: string, file = 'plans.db', backend: TestBackend = testBackend()): Promise<{ url: string; drop: () => Promise<void> }> {
  if (backend === 'postgres') return createPostgresDatabase();
  return { url: `file:${join(dir, file)}`, drop: () => Promise.resolve() };
}

async function createPostgresStore(options: Omit<OpenStoreOptions, 'url'>): Promise<TestStore> {
  const database = await createPostgresDatabase();
  let store: Store;
  try {
    store = await openStore({ ...options, url: database.url });
  } catch (error) {
    await database.drop().catch(() => undefined);
    throw error;
  }
  return Object.assign(store, {
    url: database.url,
    async cleanup() {
      await store.close();
      await database.drop();
    },
  });
}

/**
 * The `--db` arguments a CLI test gives each command, on the run's backend: none on SQLite (each command
 * then uses `.dotplan/dotplan.db` under the test's working directory), a fresh database on PostgreSQL;
 * `drop` removes it (nothing on SQLite: the test removes its directory).
 */
export async function cliDatabase(): Promise<{ args: string[]; drop: () => Promise<void> }> {
  if (testBackend() !== 'postgres') return { args: [], drop: () => Promise.resolve() };
  const created = await createPostgresDatabase();
  return { args: ['--db', created.url], drop: created.drop };
}
