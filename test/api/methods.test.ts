/**
 * `validate`, `render` and `report` are methods of `Dotplan`, and the CLI commands print what they
 * return: one use case per thing, whether a service or the command line asks.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDotplan } from '../support/cli.js';
import type { Dotplan } from '../../src/operations/dotplan.js';
import { openTestDotplan, type TestDotplan } from './open.js';

const GOOD =
  'digraph g { a [type=function status=pending toolCode=template toolInput="{\\"template\\": \\"hi\\"}"] b [type=function status=pending toolCode=template toolInput="{\\"template\\": \\"{{nodes.a.output}}!\\"}"] a -> b }';
const BAD = 'digraph g {\n  a [type=function status=pending toolCode=nope]\n}';

let t: TestDotplan;
let dotplan: Dotplan;

beforeAll(async () => {
  t = await openTestDotplan();
  dotplan = t.dotplan;
});
afterAll(() => t?.cleanup());

/** Runs the CLI in this process on the test's database; its exit code and what it printed. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const run = await runDotplan([...args, '--db', t.url]);
  return { code: run.code ?? -1, out: run.stdout, err: run.stderr };
}

describe('validate', () => {
  it('says whether a DOT text is a valid plan, with every diagnostic', async () => {
    expect(await dotplan.validate(GOOD)).toMatchObject({ valid: true, diagnostics: [] });
    const bad = await dotplan.validate(BAD, { source: 'bad.dot' });
    expect(bad.valid).toBe(false);
    expect(bad.diagnostics).toContainEqual(expect.objectContaining({ code: 'TOOL_UNKNOWN', node: 'a', line: 2 }));
  });

  it('is what `dotplan validate --json` prints', async () => {
    const file = join(t.dir, 'bad.dot');
    writeFileSync(file, BAD);
    const printed = await cli('validate', file, '--json');
    expect(printed.code).toBe(1);
    const { valid, diagnostics } = await dotplan.validate(BAD, { source: file });
    expect(JSON.parse(printed.out)).toEqual({ valid, diagnostics });
  });
});

describe('render', () => {
  it('draws a DOT text or a stored plan as SVG, or prints the normalised DOT', async () => {
    expect(await dotplan.render({ dot: GOOD })).toMatch(/^<svg|<\?xml/);
    const dot = await dotplan.render({ dot: GOOD }, { format: 'dot' });
    expect(dot).toMatch(/^digraph g \{/);
    const plan = await dotplan.create({ dot: GOOD });
    expect(await dotplan.render({ planId: plan.id }, { format: 'dot' })).toMatch(/a \[[^\]]*status="?ready/);
    expect(await dotplan.render({ planId: plan.id })).toContain('<svg');
  });

  it('is what `dotplan render` prints, for a file and for --plan', async () => {
    const file = join(t.dir, 'good.dot');
    writeFileSync(file, GOOD);
    expect((await cli('render', file, '--format', 'dot')).out).toBe(await dotplan.render({ dot: GOOD, source: file }, { format: 'dot' }));
    const plan = await dotplan.create({ dot: GOOD });
    expect((await cli('render', '--plan', plan.id, '--format', 'dot')).out).toBe(await dotplan.render({ planId: plan.id }, { format: 'dot' }));
  });
});

describe('report', () => {
  it('the run report as Markdown (default), HTML or JSON — what `dotplan plan report` prints', async () => {
    const plan = await dotplan.create({ dot: GOOD }, { by: 'ada' });
    const md = await dotplan.report(plan.id);
    expect(md).toMatch(/^# /);
    expect(md).toContain(plan.id);
    expect(await dotplan.report(plan.id, { format: 'html' })).toMatch(/^<!doctype html>/i);
    const json = JSON.parse(await dotplan.report(plan.id, { format: 'json' })) as { plan: { id: string } };
    expect(json.plan.id).toBe(plan.id);
    expect((await cli('plan', 'report', plan.id, '--format', 'json')).out).toBe(await dotplan.report(plan.id, { format: 'json' }));
    expect((await cli('plan', 'report', plan.id)).out).toBe(md);
  });
});
