/**
 * Setup of the unit suites (see suites.ts): they run once, in the SQLite run only, so a unit file
 * may not open a database — it would never run on PostgreSQL. Opening one (the store's `connect`,
 * or `pg` / `better-sqlite3` straight from a test) fails with where the file belongs instead.
 */
import { expect, vi } from 'vitest';
import { DATABASE_FOLDERS, DATABASE_SUFFIX } from './suites.js';

const { refuse } = vi.hoisted(() => ({
  refuse: (what: string): never => {
    const file = (expect.getState().testPath ?? 'this test file').replace(`${process.cwd()}/`, '');
    throw new Error(
      `${file} ${what}, but it is a unit suite, run once and on SQLite only. A test that needs a database lives under ` +
        `${DATABASE_FOLDERS.join(', ')}, or is named *${DATABASE_SUFFIX}, so that it runs on SQLite and on PostgreSQL (test/support/suites.ts).`,
    );
  },
}));

vi.mock('../../src/store/connect.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/store/connect.js')>()),
  connect: () => refuse('opens a database'),
}));

vi.mock('pg', async (importOriginal) => {
  const pg = (await importOriginal<{ default: typeof import('pg') }>()).default;
  const Refused = class {
    constructor() {
      refuse('connects to PostgreSQL');
    }
  };
  return { default: { ...pg, Client: Refused, Pool: Refused }, Client: Refused, Pool: Refused };
});

vi.mock('better-sqlite3', () => ({
  default: function Database() {
    refuse('opens a SQLite database');
  },
}));
