import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

describe('dotplan template and render', () => {
  it('lists the shipped templates with their parameters', async () => {
    const result = await runCli(['template', 'list', '--json']);
    expect(result.code).toBe(0);
    const names = (JSON.parse(result.stdout) as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['approval', 'fan-out-fan-in', 'research-report', 'seed-004']));
  });

  it('shows a template source, and says which exist for an unknown name', async () => {
    const shown = await runCli(['template', 'show', 'approval']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('digraph approval');
    const unknown = await runCli(['template', 'show', 'aproval']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no template named "aproval".*approval/);
  });

  it('reads a file as a template only when it is given as a path to a .dot file, never by a name', async () => {
    const outside = await runCli(['template', 'show', '../../package.json']);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/looks like a path but is not a \.dot file/);
    expect(outside.stderr).not.toContain('"name"');
    const notAName = await runCli(['template', 'show', '..']);
    expect(notAName.code).toBe(1);
    expect(notAName.stderr).toMatch(/is not a template name/);
    const byPath = await runCli(['template', 'show', join(import.meta.dirname, '../../templates/approval.dot')]);
    expect(byPath.code).toBe(0);
    expect(byPath.stdout).toContain('digraph approval');
  });

  it('exits 2 for usage errors: no command, an unknown option, a bad number', async () => {
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: dotplan');
    expect((await runCli(['validate', '--nope', 'x.dot'])).code).toBe(2);
    const bad = await runCli(['worker', '--concurrency', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--concurrency "lots": must be a whole number/);
  });

  it('renders a template to an SVG file with status colours', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotplan-render-'));
    const out = join(dir, 'plan.svg');
    const template = join(import.meta.dirname, '../../templates/approval.dot');
    const result = await runCli(['render', template, '-o', out]);
    expect(result.code).toBe(0);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toContain('<svg');
    expect(svg).toContain('Write the request');
    expect(svg).toMatch(/status(-|&#45;)pending/);
  });

  it('prints normalised DOT with --format dot that validates again', async () => {
    const template = join(import.meta.dirname, '../fixtures/dot/valid/seed-004-example-1.dot');
    const dot = await runCli(['render', template, '--format', 'dot']);
    expect(dot.code).toBe(0);
    expect(dot.stdout).toContain('status="pending"');
    expect(dot.stdout).not.toContain('待初始化');
    expect((await runCli(['validate', '-'], { input: dot.stdout })).code).toBe(0);
  });
});
