/** Start-up migrations: pending ones applied and recorded, edits to applied ones reported. */
import { cpSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DotplanError } from '../../src/errors/errors.js';
import { connect, resolveDatabase } from '../../src/store/connect.js';
import { DEFAULT_MIGRATIONS_DIR, migrate, splitStatements } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/index.js';
import { createPostgresDatabase, testBackend, type TestBackend } from '../support/db.js';

describe('splitStatements', () => {
  it('drops comment lines and splits at semicolons that end a line', () => {
    expect(splitStatements('-- a comment; with a semicolon\nCREATE TABLE a (x TEXT);\n\n-- next\nCREATE INDEX i ON a (x);')).toEqual([
      'CREATE TABLE a (x TEXT)',
      'CREATE INDEX i ON a (x)',
    ]);
  });
});

function migrationSuite(backend: TestBackend) {
  describe(`migrations on ${backend}`, () => {
    let dir: string;
    let url: string;
    let drop: () => Promise<void> = async () => undefined;
    const provider = backend === 'sqlite' ? 'sqlite' : 'postgresql';
    const shipped = readdirSync(join(DEFAULT_MIGRATIONS_DIR, provider)).sort();
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'dotplan-migrations-'));
      cpSync(DEFAULT_MIGRATIONS_DIR, join(dir, 'migrations'), { recursive: true });
      if (backend === 'sqlite') url = `file:${join(dir, 'db.sqlite')}`;
      else ({ url, drop } = await createPostgresDatabase());
    });
    afterAll(async () => {
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('applies a new migration folder once, in its own recorded step', async () => {
      const migrations = join(dir, 'migrations');
      await (await openStore({ url, migrationsDir: migrations })).close();
      mkdirSync(join(migrations, provider, '9001_extra'));
      writeFileSync(
        join(migrations, provider, '9001_extra', 'migration.sql'),
        '-- test only\nCREATE TABLE extra_test (id INTEGER NOT NULL);\nCREATE INDEX extra_test_id_idx ON extra_test (id);\n',
      );
      const connection = await connect(resolveDatabase(url));
      try {
        expect(await migrate(connection.db, migrations)).toEqual(['9001_extra']);
        expect(await migrate(connection.db, migrations)).toEqual([]);
        const rows = await connection.db.all<{ name: string }>('SELECT name FROM _dotplan_migrations ORDER BY name');
        expect(rows.map((r) => r.name)).toEqual([...shipped, '9001_extra']);
        expect(await connection.db.all('SELECT id FROM extra_test')).toEqual([]);
      } finally {
        await connection.db.close();
      }
    });

    it('applies concurrently started migrations exactly once', async () => {
      const migrations = join(dir, 'migrations');
      mkdirSync(join(migrations, provider, '9002_more'));
      writeFileSync(join(migrations, provider, '9002_more', 'migration.sql'), 'CREATE TABLE more_test (id INTEGER NOT NULL);\n');
      const stores = await Promise.all([1, 2, 3].map(() => openStore({ url, migrationsDir: migrations })));
      await Promise.all(stores.map((s) => s.close()));
      const connection = await connect(resolveDatabase(url));
      try {
        const rows = await connection.db.all<{ name: string }>('SELECT name FROM _dotplan_migrations ORDER BY name');
        expect(rows.map((r) => r.name)).toEqual([...shipped, '9001_extra', '9002_more']);
      } finally {
        await connection.db.close();
      }
    });

    it('reports a migration edited after it was applied, and applies nothing', async () => {
      const migrations = join(dir, 'migrations');
      const file = join(migrations, provider, '0001_init', 'migration.sql');
      writeFileSync(file, readFileSync(file, 'utf8').replace('"title" TEXT NOT NULL', '"title" TEXT'));
      const error = await openStore({ url, migrationsDir: migrations }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DotplanError);
      expect((error as DotplanError).code).toBe('DATABASE');
      expect((error as Error).message).toMatch(new RegExp(`migration ${provider}/0001_init was changed after it was applied`));
    });
  });
}

migrationSuite(testBackend());
