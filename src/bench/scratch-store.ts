import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openStore } from '../store/index.js';
import type { Store } from '../store/types.js';
import type { DotplanBenchTarget } from './run.js';

/**
 * A store on an empty database for one benchmark run: the given SQLite file (the harness hands
 * out a fresh one), or on PostgreSQL a throw-away database `dotplan_bench_<random>` created on the
 * server the URL names and dropped afterwards, so that no run sees another's data.
 */
export interface ScratchStore {
  store: Store;
  /** Closes the store and drops the throw-away database (PostgreSQL). */
  dispose(): Promise<void>;
}

export async function openScratchStore(target: DotplanBenchTarget): Promise<ScratchStore> {
  if (target.backend === 'sqlite') {
    const store = await openStore({ url: target.databaseUrl });
    return { store, dispose: () => store.close() };
  }
  const name = `dotplan_bench_${randomBytes(6).toString('hex')}`;
  await admin(target.databaseUrl, `CREATE DATABASE ${name}`);
  const url = new URL(target.databaseUrl);
  url.pathname = `/${name}`;
  const drop = () => admin(target.databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  let store: Store;
  try {
    store = await openStore({ url: url.toString() });
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  }
  return {
    store,
    async dispose() {
      try {
        await store.close();
      } finally {
        await drop();
      }
    },
  };
}

/**
 * A scratch store of `backend` for a measuring script under bench/: SQLite in a file of a temporary
 * folder (removed with it), PostgreSQL in a throw-away database on DATABASE_URL's server (default: the
 * local one).
 */
export async function openScratchFor(backend: DotplanBenchTarget['backend'], env: NodeJS.ProcessEnv = process.env): Promise<ScratchStore> {
  if (backend === 'postgres') return openScratchStore({ backend, databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dotplan-scratch-'));
  const scratch = await openScratchStore({ backend, databaseUrl: `file:${path.join(dir, 'bench.db')}` });
  return {
    store: scratch.store,
    async dispose() {
      try {
        await scratch.dispose();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
