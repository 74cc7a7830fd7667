import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DotplanError } from '../../src/errors/errors.js';
import { openStore, resolveDatabase } from '../../src/store/index.js';
import { driverNotBuilt } from '../../src/store/connect.js';

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

describe('a SQLite driver without its native module (a checkout installs it with scripts/build-sqlite.mjs)', () => {
  it('says what to run instead of listing the paths the loader tried', () => {
    // The error better-sqlite3 throws then, made by the library it loads its module with (`bindings`), on a package with none built.
    const root = join(dir, 'unbuilt');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'package.json'), '{"name":"unbuilt"}');
    const bindings = createRequire(import.meta.url)('bindings') as (options: { bindings: string; module_root: string }) => unknown;
    const missing = (() => {
      try {
        bindings({ bindings: 'better_sqlite3.node', module_root: root });
      } catch (error) {
        return error;
      }
    })();
    const error = driverNotBuilt(missing);
    expect(error).toBeInstanceOf(DotplanError);
    expect(error!.code).toBe('DATABASE');
    expect(error!.message).toContain('no native module built');
    expect(error!.message).toContain('npm run build:sqlite');
    expect(error!.message).not.toContain(root);
    // Node's refusal of a module built for another Node.js.
    const other = new Error(`The module '${root}/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 127.`);
    expect(driverNotBuilt(other)!.message).toContain('built for another Node.js');
    expect(driverNotBuilt(new Error('SQLITE_CANTOPEN: unable to open database file'))).toBeUndefined();
  });
});
