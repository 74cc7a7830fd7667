/**
 * Storage: plans, revisions, nodes, edges and events on SQLite (default) or PostgreSQL, through
 * Prisma 7 with driver adapters. `openStore` resolves the URL, connects, applies pending migrations.
 */
import { connect, resolveDatabase } from './connect.js';
import { migrate } from './migrate.js';
import { SqlStore } from './store.js';
import type { Store } from './types.js';

export interface OpenStoreOptions {
  /** `postgres://…`/`postgresql://…` for PostgreSQL, `file:<path>` for a SQLite file; unset: `.dotplan/dotplan.db` under cwd. */
  url?: string;
  /** Base for the default SQLite file and relative `file:` paths; default process.cwd(). */
  cwd?: string;
  /** Where the migration folders are (tests); default the package's prisma/migrations. */
  migrationsDir?: string;
}

export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  const connection = await connect(resolveDatabase(options.url, options.cwd));
  try {
    await migrate(connection.db, options.migrationsDir);
  } catch (error) {
    await connection.db.close().catch(() => undefined);
    throw error;
  }
  return new SqlStore(connection);
}

export { resolveDatabase, redact, type DatabaseTarget } from './connect.js';
export { migrate, loadMigrations, checksum, DEFAULT_MIGRATIONS_DIR } from './migrate.js';
export { newPlanId } from './ids.js';
export { AUTHOR_DRIVER } from './sql/plans.js';
export * from './types.js';
