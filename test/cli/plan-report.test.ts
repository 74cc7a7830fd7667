import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliDatabase, testBackend } from '../support/db.js';
import { runCli } from './run-cli.js';

describe(`dotplan plan report (${testBackend()})`, () => {
  let cwd: string;
  let db: string[] = [];
  let drop: (() => Promise<void>) | undefined;
  let id: string;
  const cli = (args: string[]) => runCli([...args, ...db], { cwd });
  const ok = async (args: string[]) => {
    const result = await cli(args);
    expect(result.stderr, `dotplan ${args.join(' ')}`).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  };

  // An approval plan run to its end: the worker stops at the question, a person answers, the worker finishes.
  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-report-'));
    ({ args: db, drop } = await cliDatabase());
    id = (JSON.parse(await ok(['plan', 'create', '--template', 'approval', '--set', 'item=x', '--json'])) as { id: string }).id;
    expect((await cli(['worker', '--until-idle', '--quiet'])).code).toBe(0);
    await ok(['answer', id, 'approve', 'yes', '--by', 'alice']);
    expect((await cli(['worker', '--until-idle', '--quiet'])).code).toBe(0);
  });
  afterAll(async () => {
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('prints Markdown by default: the plan, every node, the answer and who gave it', async () => {
    const md = await ok(['plan', 'report', id]);
    expect(md).toMatch(/^# Run report: Approval: x for a colleague\n/);
    expect(md).toContain(`| Plan | \`${id}\` |`);
    expect(md).toContain('| Status | completed |');
    expect(md).toContain('| Template | approval |');
    expect(md).toContain('Not reviewed (review not required).');
    for (const node of ['request', 'approve', 'approved', 'rejected', 'notify']) expect(md).toMatch(new RegExp(`\\n\\| \`${node}\` \\|`));
    expect(md).toMatch(/\n\| `rejected` \| Rejected path \| function \| skipped \|/);
    expect(md).toMatch(/\n\| `approve` \| a colleague asks for x \(amount: unspecified\)\. Approve\? \(yes\/no\) \| yes \| person:alice \| /);
    expect(md).toMatch(/\n\| 1 \| - \| template \| /);
    expect(md).toContain('## LLM calls\n\nNone.');
    expect(md).toMatch(/\n\| [^|]+ \| _plan_ \| engine \| running → completed \| /);
  });

  it('--format json gives the same content as data', async () => {
    const report = JSON.parse(await ok(['plan', 'report', id, '--format', 'json'])) as {
      plan: { id: string; status: string; finished: boolean; durationMs: number };
      nodes: Array<{ id: string; status: string; output?: string }>;
      questions: Array<{ node: string; answer: string; answeredBy: string }>;
      revisions: Array<{ number: number; author: string }>;
      timeline: Array<{ what: string }>;
      llm: { calls: unknown[]; totalTokens: number };
    };
    expect(report.plan).toMatchObject({ id, status: 'completed', finished: true });
    expect(report.nodes.map((n) => [n.id, n.status])).toEqual([
      ['request', 'done'],
      ['approve', 'done'],
      ['approved', 'done'],
      ['rejected', 'skipped'],
      ['notify', 'done'],
    ]);
    expect(report.nodes.find((n) => n.id === 'notify')?.output).toContain('was answered: yes');
    expect(report.questions).toEqual([expect.objectContaining({ node: 'approve', answer: 'yes', answeredBy: 'person:alice' })]);
    expect(report.revisions).toEqual([expect.objectContaining({ number: 1, author: 'template' })]);
    expect(report.timeline.at(-1)?.what).toBe('running → completed');
    expect(report.llm).toEqual({ calls: [], promptTokens: 0, completionTokens: 0, totalTokens: 0 });
  });

  it('--format html gives one page with the plan drawn, one SVG node per plan node', async () => {
    const html = await ok(['plan', 'report', id, '--format', 'html']);
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html.match(/<g id="node\d+" class="node status&#45;/g)).toHaveLength(5);
    expect(html).toMatch(
      /<td><code>approve<\/code><\/td><td class="value">a colleague asks for x[^<]*<\/td><td class="value answer">yes<\/td><td class="answered-by">person:alice<\/td>/,
    );
    expect(html).not.toMatch(/<script|<link|\ssrc=/i);
  });

  it('-o writes the report to a file and prints nothing', async () => {
    const file = join(cwd, 'report.md');
    const written = await cli(['plan', 'report', id, '-o', file]);
    expect(written).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(file, 'utf8')).toBe(await ok(['plan', 'report', id]));
    const html = join(cwd, 'report.html');
    expect((await cli(['plan', 'report', id, '--format', 'html', '--output', html])).code).toBe(0);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!DOCTYPE html>[\s\S]*<\/html>\n$/);
  });

  it('refuses an unknown plan id in one line, and an unknown format as a usage error', async () => {
    const missing = await cli(['plan', 'report', 'p_nope']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toMatch(/p_nope/);
    const format = await cli(['plan', 'report', id, '--format', 'pdf']);
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/pdf/);
  });
});
