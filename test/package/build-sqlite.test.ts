/**
 * scripts/build-sqlite.mjs, the SQLite driver's build that `npm ci` runs (package.json `prepare`) in place of
 * better-sqlite3's own install script: what a checkout's later installs meet. The compile itself is what
 * `.ci/run`'s clean `npm ci` does before every suite, all of which then open SQLite databases with it.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'build-sqlite.mjs');

/** The script's exit code and output, run as npm runs it (`npm_lifecycle_event` set) or as a person might (`node …`). */
async function buildSqlite(args: string[], underNpm: boolean): Promise<{ code: number; out: string; err: string }> {
  const env = { ...process.env };
  if (underNpm) env.npm_lifecycle_event = 'build:sqlite';
  else delete env.npm_lifecycle_event;
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, ...args], { cwd: ROOT, env });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout, err: failed.stderr };
  }
}

describe('the SQLite driver build of a checkout', () => {
  it('keeps the module that is there and loads: a later npm install builds nothing and says nothing', async () => {
    expect(await buildSqlite([], true)).toEqual({ code: 0, out: '', err: '' });
  });

  it('run by hand to build, says to run it through npm, which hands node-gyp its settings', async () => {
    const { code, err } = await buildSqlite(['--force'], false);
    expect(code).toBe(1);
    expect(err).toContain('run `npm run build:sqlite`');
    expect(err).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });
});
