/**
 * Usage mistakes exit 2 with a message saying what to give instead (the command line itself is
 * wrong, nothing was looked up); `plan list --status` says when nothing matches.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliDatabase, testBackend } from '../support/db.js';
import { runCli } from './run-cli.js';

describe(`usage mistakes (${testBackend()})`, () => {
  let cwd: string;
  let db: string[] = [];
  let drop: (() => Promise<void>) | undefined;
  const cli = (args: string[]) => runCli([...args, ...db], { cwd });

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-usage-'));
    writeFileSync(join(cwd, 'plan.dot'), 'digraph { a [type=function toolCode=echo toolInput="hi"] }');
    ({ args: db, drop } = await cliDatabase());
  });
  afterAll(async () => {
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  it.each([
    ['plan create without a source', ['plan', 'create'], /give exactly one of --template <name\|path>, --dot <file> or --goal <text>/],
    ['plan create with two sources', ['plan', 'create', '--dot', 'plan.dot', '--goal', 'x'], /give exactly one of/],
    ['plan create --set without --template', ['plan', 'create', '--dot', 'plan.dot', '--set', 'a=b'], /--set goes with --template/],
    ['a --set that is not key=value', ['plan', 'create', '--template', 'approval', '--set', 'laptop'], /--set expects key=value/],
    ['the same --set twice', ['demo', '--set', 'topic=a', '--set', 'topic=b'], /--set topic is given twice/],
    ['plan modify without a change', ['plan', 'modify', 'p_x'], /give exactly one of --dot <file> or --suggestion <text>/],
    ['plan modify with two changes', ['plan', 'modify', 'p_x', '--dot', 'plan.dot', '--suggestion', 'x'], /give exactly one of --dot/],
    ['render without input', ['render'], /render needs a DOT file \(or - for standard input\) or --plan <id>/],
    ['render with a file and --plan', ['render', 'plan.dot', '--plan', 'p_x'], /not both/],
    ['plan show --revision with --format json', ['plan', 'show', 'p_x', '--revision', '1', '--format', 'json'], /--revision.*cannot be used with.*--format/],
    ['plan calls --script with --json', ['plan', 'calls', 'p_x', '--script', '--json'], /--script.*cannot be used with.*--json/],
  ])('%s exits 2 with what to give instead', async (_what, args, message) => {
    const result = await cli(args);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('(run with --help for usage)');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(2);
  });

  it('node cancel is not a command: a usage error saying to skip the node or cancel the plan', async () => {
    const result = await cli(['node', 'cancel', 'p_x', 'a']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/a node is cancelled only with its plan/);
    expect(result.stderr).toContain('dotplan node skip p_x a');
    expect(result.stderr).toContain('dotplan plan cancel p_x');
  });

  it('plan list --status: an unknown status is a usage error listing the statuses; no match says so', async () => {
    const unknown = await cli(['plan', 'list', '--status', 'done']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Allowed choices are draft, awaiting_review, running, paused, completed, failed, cancelled, rejected/);

    const created = await cli(['plan', 'create', '--dot', 'plan.dot']);
    expect(created.code, created.stderr).toBe(0);
    const none = await cli(['plan', 'list', '--status', 'completed']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^no completed plans \(plan list without --status shows them all\)$/m);
    expect(none.stderr).not.toMatch(/no plans yet/);
    expect((await cli(['plan', 'list', '--status', 'running'])).stdout).toContain(created.stdout.trim());
  });

  it('loads only the command it runs, yet help lists every command and a mistyped one gets a suggestion', async () => {
    const help = await cli(['--help']);
    for (const command of [
      'validate',
      'render',
      'template',
      'plan',
      'inbox',
      'answer',
      'node',
      'worker',
      'demo',
      'bench',
      'parse-reply',
      'llm',
      'notify',
      'agent',
    ])
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const typo = await cli(['plna', 'list']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown command 'plna'[\s\S]*Did you mean plan\?/);
    const version = await cli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // A global option's value before the command is not taken for the command.
    const listed = await runCli([...(db.length > 0 ? db : ['--db', `file:${join(cwd, 'usage.db')}`]), 'plan', 'list'], { cwd });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toMatch(/no plans yet|^$/);
  });
});
