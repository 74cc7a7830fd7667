/**
 * Which test files run where, by where they live (vitest.config.ts reads this):
 *
 * - `db`: a file under one of DATABASE_FOLDERS, or named `*.db.test.ts` anywhere, needs a database:
 *   it runs on the run's backend, so once on SQLite (`npm test`) and once on PostgreSQL
 *   (`DB=postgres DATABASE_URL=… npm test`).
 * - `bench`: the benchmarks' own tests, once (in the SQLite run).
 * - `browser`: the web UI's tests in Chromium (test/ui), once (in the SQLite run): the UI calls the same
 *   API over either store (the API's own tests run on both), and the browser beside the PostgreSQL
 *   run's long tests slowed them past their deadlines.
 * - `unit`: every other file, once (in the SQLite run). A unit file that opens a database fails,
 *   saying where to move it (test/support/no-database.ts), so a database test cannot silently run
 *   on SQLite alone.
 */
export const DATABASE_FOLDERS = ['test/integration', 'test/store', 'test/cli', 'test/report', 'test/api', 'test/adversarial', 'test/agents'] as const;
export const DATABASE_SUFFIX = '.db.test.ts';

const db = [...DATABASE_FOLDERS.map((folder) => `${folder}/**/*.test.ts`), `test/**/*${DATABASE_SUFFIX}`];
const bench = ['test/bench/**/*.test.ts'];
const browser = ['test/ui/**/*.test.ts'];

export const SUITES = {
  db: { include: db, exclude: browser },
  bench: { include: bench },
  browser: { include: browser },
  unit: { include: ['test/**/*.test.ts'], exclude: [...db, ...bench, ...browser] },
} as const;
