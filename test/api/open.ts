/**
 * A `Dotplan` as a service gets it (`openDotplan`), on a database of its own: a SQLite file in a temp
 * folder, or a fresh PostgreSQL database when the suite runs on PostgreSQL (DB=postgres).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDotplan, type OpenDotplanOptions } from '../../src/operations/open.js';
import type { Dotplan } from '../../src/operations/dotplan.js';
import { testDatabase } from '../support/db.js';

export interface TestDotplan {
  dotplan: Dotplan;
  /** The database URL (for a CLI run on the same database: `--db <url>`). */
  url: string;
  /** The service's working folder. */
  dir: string;
  cleanup(): Promise<void>;
}

export async function openTestDotplan(options: OpenDotplanOptions = {}): Promise<TestDotplan> {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-api-'));
  const database = await testDatabase(dir, 'dotplan.db');
  const dotplan = await openDotplan({ cwd: dir, ...options, config: { ...options.config, databaseUrl: database.url } });
  return {
    dotplan,
    url: database.url,
    dir,
    async cleanup() {
      await dotplan.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What a call threw (or rejected with); fails when it did not throw. */
export async function thrown(call: () => unknown): Promise<Error & { code?: string; argument?: string }> {
  try {
    await call();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected the call to throw, but it returned');
}
