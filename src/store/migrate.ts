import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DotplanError } from '../errors/errors.js';
import { DATA_STEPS } from './migrations-data.js';
import type { Db, Dialect } from './sql/executor.js';
import { packagePath } from '../config/package-path.js';

/**
 * Applies the committed migrations (prisma/migrations/<provider>/NNNN_name/migration.sql) at
 * start-up, because `prisma migrate` needs a download this project cannot rely on (NOTES.md).
 * Each pending migration runs in its own transaction and is recorded with a checksum in
 * `_dotplan_migrations`, with its data step if it has one (migrations-data.ts); on PostgreSQL under an advisory lock, so workers starting together apply
 * it once. A recorded migration whose file changed since is reported, never re-applied.
 */
export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export const DEFAULT_MIGRATIONS_DIR = packagePath('prisma', 'migrations');

const PROVIDER_DIR: Record<Dialect, string> = { sqlite: 'sqlite', postgres: 'postgresql' };

/** Arbitrary constant key for pg_advisory_xact_lock (what the released `0x646f74706c616e`, "dotplan" in ASCII, rounds to as a JS number). */
const ADVISORY_LOCK_KEY = '28270043564106096';

export function checksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

export function loadMigrations(dialect: Dialect, dir = DEFAULT_MIGRATIONS_DIR): Migration[] {
  const root = join(dir, PROVIDER_DIR[dialect]);
  if (!existsSync(root)) throw new DotplanError('DATABASE', `no migrations found in ${root}; the dotplan installation is incomplete`);
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(root, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: checksum(sql) };
    });
}

/** Splits a migration into statements: `--` comment lines dropped, split at `;` ending a line. */
export function splitStatements(sql: string): string[] {
  return sql
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS _dotplan_migrations (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at BIGINT NOT NULL)`;

interface AppliedRow {
  name: string;
  checksum: string;
}

/** Applies pending migrations; returns the names applied now. */
export async function migrate(db: Db, dir = DEFAULT_MIGRATIONS_DIR): Promise<string[]> {
  const migrations = loadMigrations(db.dialect, dir);
  const known = await readApplied(db);
  if (known && migrations.every((m) => known.get(m.name) === m.checksum)) return [];
  const applied: string[] = [];
  for (const migration of migrations) {
    const didApply = await db.tx(async (q) => {
      if (q.dialect === 'postgres') await q.all('SELECT pg_advisory_xact_lock(?)', [ADVISORY_LOCK_KEY]);
      await q.run(CREATE_TABLE);
      const [row] = await q.all<AppliedRow>('SELECT name, checksum FROM _dotplan_migrations WHERE name = ?', [migration.name]);
      if (row) {
        if (row.checksum !== migration.checksum) throw editedMigration(migration, db.dialect);
        return false;
      }
      for (const statement of splitStatements(migration.sql)) await q.exec(statement);
      await DATA_STEPS[migration.name]?.(q);
      await q.run('INSERT INTO _dotplan_migrations (name, checksum, applied_at) VALUES (?, ?, NOW)', [migration.name, migration.checksum]);
      return true;
    });
    if (didApply) applied.push(migration.name);
  }
  return applied;
}

async function readApplied(db: Db): Promise<Map<string, string> | undefined> {
  const exists =
    db.dialect === 'sqlite'
      ? await db.all(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_dotplan_migrations'`)
      : await db.all(`SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '_dotplan_migrations'`);
  if (exists.length === 0) return undefined;
  const rows = await db.all<AppliedRow>('SELECT name, checksum FROM _dotplan_migrations');
  return new Map(rows.map((r) => [r.name, r.checksum]));
}

function editedMigration(migration: Migration, dialect: Dialect): DotplanError {
  return new DotplanError(
    'DATABASE',
    `migration ${PROVIDER_DIR[dialect]}/${migration.name} was changed after it was applied to this database ` +
      `(checksum ${migration.checksum.slice(0, 12)} differs from the recorded one): released migrations must not be edited; ` +
      `restore the file and add a new migration folder for the change`,
  );
}
