/**
 * Which commands make a database: only those that make plans (plan create, demo) and the worker
 * create the default `.dotplan/dotplan.db`; a command that reads, or acts on a plan that would have
 * to exist already, leaves an empty directory empty and says there is nothing. A `--db file:` whose
 * folder does not exist is an error naming the folder (only the default `.dotplan/` is created).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const PLAN = 'digraph { a [type=function toolCode=echo toolInput="hi"] }';

describe('database files', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function emptyDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'dotplan-files-'));
    dirs.push(dir);
    return dir;
  }

  it('read-only commands in an empty directory create nothing and say there is nothing', async () => {
    const cwd = emptyDir();
    const outside = emptyDir();
    writeFileSync(join(outside, 'plan.dot'), PLAN);
    const cli = (...args: string[]) => runCli(args, { cwd });

    const list = await cli('plan', 'list');
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(/^no plans yet/);
    expect((await cli('plan', 'list', '--json')).stdout.trim()).toBe('[]');
    const inbox = await cli('inbox');
    expect(inbox.code).toBe(0);
    expect(inbox.stderr).toMatch(/nothing waits for a person/);
    for (const args of [
      ['plan', 'show', 'p_nope'],
      ['plan', 'events', 'p_nope'],
      ['plan', 'report', 'p_nope'],
      ['plan', 'calls', 'p_nope'],
      ['render', '--plan', 'p_nope'],
      ['answer', 'p_nope', 'a', 'yes'],
      ['node', 'retry', 'p_nope', 'a'],
    ]) {
      const result = await cli(...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(/p_nope.*(does not exist|not found)|(does not exist|not found).*p_nope/);
    }
    expect((await cli('template', 'list')).code).toBe(0);
    expect((await cli('validate', join(outside, 'plan.dot'))).code).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('plan create makes the default .dotplan/ folder and database', async () => {
    const cwd = emptyDir();
    writeFileSync(join(cwd, 'plan.dot'), PLAN);
    const created = await runCli(['plan', 'create', '--dot', 'plan.dot'], { cwd });
    expect(created.code, created.stderr).toBe(0);
    expect(existsSync(join(cwd, '.dotplan', 'dotplan.db'))).toBe(true);
  });

  it('--db file:<path> in a folder that does not exist is an error naming the folder; nothing is created', async () => {
    const cwd = emptyDir();
    writeFileSync(join(cwd, 'plan.dot'), PLAN);
    for (const args of [
      ['plan', 'create', '--dot', 'plan.dot'],
      ['plan', 'list'],
    ]) {
      const result = await runCli([...args, '--db', 'file:./no/such/folder/plans.db'], { cwd });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain(`${join(cwd, 'no', 'such', 'folder')} does not exist`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readdirSync(cwd)).toEqual(['plan.dot']);
    // An existing folder is fine: the file is created in it.
    const ok = await runCli(['plan', 'create', '--dot', 'plan.dot', '--db', 'file:./plans.db'], { cwd });
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(join(cwd, 'plans.db'))).toBe(true);
  });
});
