import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { testBackend } from './test/support/backend.js';
import { SUITES } from './test/support/suites.js';

/**
 * Three sets of test files (test/support/suites.ts): `db` runs on the run's backend; `unit` and
 * `bench` run once, in the SQLite run. So `npm test` runs everything on SQLite, and
 * `DB=postgres DATABASE_URL=… npm test` runs only what touches a database, on PostgreSQL.
 */
const onPostgres = testBackend() === 'postgres';
/**
 * Files run side by side, one per core: most of a test's time is spent waiting (on a database, a
 * worker, a timer), not computing — vitest's default (cores - 1) ran them one at a time on 2 cores.
 */
const workers = Math.max(2, availableParallelism());

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: workers,
    projects: [
      { extends: true as const, test: { name: 'db', include: [...SUITES.db.include], exclude: [...SUITES.db.exclude] } },
      ...(onPostgres
        ? []
        : [
            {
              extends: true as const,
              test: { name: 'unit', include: [...SUITES.unit.include], exclude: [...SUITES.unit.exclude], setupFiles: ['test/support/no-database.ts'] },
            },
            { extends: true as const, test: { name: 'bench', include: [...SUITES.bench.include] } },
            { extends: true as const, test: { name: 'browser', include: [...SUITES.browser.include] } },
          ]),
    ],
  },
});
