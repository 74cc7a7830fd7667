/**
 * The library's errors name arguments (`goal`, `values.item`, `suggestion`); the command line names
 * its flags for the same mistakes (`--goal`, `--set item=…`, `--suggestion`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDotplan } from '../support/cli.js';
import { openTestDotplan, type TestDotplan } from './open.js';

let t: TestDotplan;
beforeAll(async () => {
  t = await openTestDotplan();
});
afterAll(() => t?.cleanup());

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const run = await runDotplan([...args, '--db', t.url]);
  return { code: run.code ?? -1, out: run.stdout.trimEnd(), err: run.stderr.trimEnd() };
}

describe('the CLI speaks of its flags', () => {
  it('plan create --goal " "', async () => {
    const run = await cli('plan', 'create', '--goal', ' ');
    expect(run.code).toBe(1);
    expect(run.err).toBe('error: --goal is empty: say what the plan should achieve [INVALID_INPUT]');
  });

  it('plan create --template without a required --set', async () => {
    const run = await cli('plan', 'create', '--template', 'approval');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^error: --set item=… is required: template "approval" declares it without a default/);
  });

  it('plan create --template with a --set the template does not declare', async () => {
    const run = await cli('plan', 'create', '--template', 'approval', '--set', 'item=x', '--set', 'colour=red');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^error: --set colour=… is not a parameter of template "approval"; its parameters: item, requester, amount/);
  });

  it('plan modify --suggestion " "', async () => {
    const created = await cli('plan', 'create', '--goal', 'write a haiku', '--review');
    expect(created.code).toBe(0);
    const run = await cli('plan', 'modify', created.out.trim(), '--suggestion', ' ');
    expect(run.code).toBe(1);
    expect(run.err).toBe('error: --suggestion is empty: say what the plan should change [INVALID_INPUT]');
  });
});
