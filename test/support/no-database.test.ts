/**
 * A unit suite (run once, on SQLite only) cannot open a database: whatever it tries fails, naming
 * where a database test belongs, so that such a test is moved to run on both backends instead of
 * silently running on one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDotplan } from '../../src/operations/open.js';
import { openStore } from '../../src/store/index.js';
import { DATABASE_FOLDERS } from './suites.js';

const WHERE = new RegExp(`test/support/no-database\\.test\\.ts .*is a unit suite.*${DATABASE_FOLDERS.join(', ')}, or is named \\*\\.db\\.test\\.ts`);

describe('a unit suite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-unit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('cannot open a store, on SQLite or PostgreSQL, directly or through the library', async () => {
    await expect(openStore({ url: `file:${join(dir, 'x.db')}` })).rejects.toThrow(WHERE);
    await expect(openStore({ url: 'postgres://postgres@127.0.0.1:5432/postgres' })).rejects.toThrow(WHERE);
    await expect(openDotplan({ cwd: dir })).rejects.toThrow(WHERE);
  });

  it('cannot use the database drivers either', () => {
    expect(() => new pg.Client()).toThrow(WHERE);
    expect(() => new pg.Pool()).toThrow(WHERE);
    expect(() => new Database(join(dir, 'y.db'))).toThrow(WHERE);
  });
});
