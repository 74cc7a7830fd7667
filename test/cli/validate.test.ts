import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/dot');
const expected = JSON.parse(readFileSync(join(FIXTURES, 'invalid/expected.json'), 'utf8')) as Record<string, { code: string; node?: string; line?: number }>;

describe('dotplan validate', () => {
  it.each(readdirSync(join(FIXTURES, 'valid')))('accepts valid/%s (exit 0)', async (file) => {
    const result = await runCli(['validate', join(FIXTURES, 'valid', file)]);
    expect(result.stderr).not.toMatch(/error /);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('valid');
  });

  it.each(Object.entries(expected))('rejects invalid/%s naming the place', async (file, want) => {
    const result = await runCli(['validate', '--json', join(FIXTURES, 'invalid', file)]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      valid: boolean;
      diagnostics: Array<{ code: string; severity: string; message: string; node?: string; line?: number; fix?: string }>;
    };
    expect(report.valid).toBe(false);
    const hit = report.diagnostics.find((d) => d.code === want.code);
    expect(hit, `diagnostic ${want.code} in ${JSON.stringify(report.diagnostics)}`).toBeDefined();
    expect(hit!.severity).toBe('error');
    if (want.node !== undefined) expect(hit!.node).toBe(want.node);
    if (want.line !== undefined) expect(hit!.line).toBe(want.line);
  });

  it('prints one line per diagnostic with file, line, node and fix, and no stack trace', async () => {
    const result = await runCli(['validate', join(FIXTURES, 'invalid/unknown-type.dot')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/unknown-type\.dot:\d+: error TYPE_UNKNOWN: .*node "b".*Fix:/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('reads standard input with -', async () => {
    const dot = 'digraph { a [type=function status=ready toolCode=echo toolInput="hi"] }';
    const result = await runCli(['validate', '-', '--json'], { input: dot });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ valid: true, diagnostics: [] });
  });

  it('knows user tools given with --tools anywhere on the line', async () => {
    const dot = 'digraph { a [type=function status=ready toolCode=record toolInput="{}"] }';
    const tools = join(import.meta.dirname, '../fixtures/tools/tools.mjs');
    expect((await runCli(['validate', '-'], { input: dot })).code).toBe(1);
    expect((await runCli(['validate', '-', '--tools', tools], { input: dot })).code).toBe(0);
    expect((await runCli(['--tools', tools, 'validate', '-'], { input: dot })).code).toBe(0);
  });

  it('exits 2 on usage errors and 1 on a missing file', async () => {
    expect((await runCli(['validate'])).code).toBe(2);
    expect((await runCli(['no-such-command'])).code).toBe(2);
    const missing = await runCli(['validate', 'does-not-exist.dot']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read does-not-exist.dot: no such file');
  });
});
