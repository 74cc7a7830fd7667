import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DotplanError } from '../../src/errors/errors.js';
import { openStore, resolveDatabase } from '../../src/store/index.js';

const dir = mkdtempSync(join(tmpdir(), 'dotplan-connect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('resolveDatabase', () => {
  it('maps URLs to backends', () => {
    expect(resolveDatabase(undefined, '/srv/app')).toEqual({ kind: 'sqlite', file: '/srv/app/.dotplan/dotplan.db', createFolder: true });
    expect(resolveDatabase('file:./data/x.db', '/srv/app')).toEqual({ kind: 'sqlite', file: '/srv/app/data/x.db' });
    expect(resolveDatabase('file:/abs/x.db?mode=rwc')).toEqual({ kind: 'sqlite', file: '/abs/x.db' });
    expect(resolveDatabase('postgresql://u@h/db')).toEqual({ kind: 'postgres', url: 'postgresql://u@h/db' });
    expect(resolveDatabase('postgres://u@h/db')).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
  });

  it('refuses anything else with a CONFIG error that says what is accepted, password hidden', () => {
    const error = (() => {
      try {
        resolveDatabase('mysql://root:secret@localhost/db');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(DotplanError);
    expect((error as DotplanError).code).toBe('CONFIG');
    expect((error as Error).message).toContain('postgres://');
    expect((error as Error).message).toContain('file:');
    expect((error as Error).message).not.toContain('secret');
  });
});

describe('openStore', () => {
  it('creates .dotplan/dotplan.db under cwd when no URL is given, in WAL mode', async () => {
    const store = await openStore({ cwd: dir });
    try {
      expect(store.backend).toBe('sqlite');
      expect(existsSync(join(dir, '.dotplan', 'dotplan.db'))).toBe(true);
      expect(existsSync(join(dir, '.dotplan', 'dotplan.db-wal'))).toBe(true);
      expect(await store.plans.list()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('create: false reads a SQLite file that does not exist as an empty database, and creates nothing', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dotplan-connect-absent-'));
    try {
      for (const url of [undefined, 'file:./plans.db']) {
        const store = await openStore({ cwd, create: false, ...(url !== undefined ? { url } : {}) });
        try {
          expect(await store.plans.list()).toEqual([]);
        } finally {
          await store.close();
        }
      }
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('a file: URL whose folder does not exist is a CONFIG error naming the folder; only the default folder is made', async () => {
    const error = await openStore({ url: 'file:./missing/plans.db', cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DotplanError);
    expect((error as DotplanError).code).toBe('CONFIG');
    expect((error as Error).message).toContain(`the folder ${join(dir, 'missing')} does not exist`);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('reports a PostgreSQL server that cannot be reached as a DATABASE error naming it, without the password', async () => {
    const error = await openStore({ url: 'postgres://someone:hunter2@127.0.0.1:1/nowhere' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DotplanError);
    expect((error as DotplanError).code).toBe('DATABASE');
    expect((error as Error).message).toContain('127.0.0.1:1');
    expect((error as Error).message).not.toContain('hunter2');
  });
});
