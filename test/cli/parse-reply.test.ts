import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runDotplan } from '../support/cli.js';

const SEED = join(import.meta.dirname, '../fixtures/replies/seed-004.txt');

interface Report {
  id: string | null;
  updateLog: string;
  plan: { nodes: Array<Record<string, string>>; edges: Array<{ from: string; to: string; when?: string }> } | null;
  dot: string | null;
  valid: boolean;
  diagnostics: Array<{ code: string; severity: string; message: string; node?: string; line?: number; column?: number; fix?: string }>;
}

function parseReply(args: string[], input?: string) {
  return runDotplan(['parse-reply', ...args], { env: cleanEnv(), ...(input !== undefined ? { input } : {}) });
}

async function report(reply: string): Promise<{ code: number | null; stderr: string; report: Report }> {
  const result = await parseReply(['-', '--json'], reply);
  return { code: result.code, stderr: result.stderr, report: JSON.parse(result.stdout) as Report };
}

/** The 1-based line of the reply that starts with `prefix`. */
function lineOf(text: string, prefix: string): number {
  return text.split('\n').findIndex((l) => l.startsWith(prefix)) + 1;
}

const PLAN =
  'digraph G {\n  a [type="function", status="ready", toolCode="echo", toolInput="hi"];\n  b [type="confirm", status="pending", question="ok?"];\n  a -> b [when="hi"];\n}';

describe('dotplan parse-reply', () => {
  it('reads the seed 004 example verbatim: id 1, three nodes, two edges, exit 0 although its tool and question are placeholders', async () => {
    const text = readFileSync(SEED, 'utf8');
    const result = await parseReply([SEED, '--json']);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as Report;
    expect(out.valid).toBe(true);
    expect(out.id).toBe('1');
    expect(out.updateLog).toBe('节点1先向用户确认样本,确认后运行节点3的样本预分析。');
    expect(out.plan!.nodes.map((n) => [n['id'], n['type'], n['status']])).toEqual([
      ['1', 'function', 'awaiting_input'],
      ['2', 'confirm', 'pending'],
      ['3', 'function', 'pending'],
    ]);
    expect(out.plan!.nodes[2]).toMatchObject({ label: '标题3', toolCode: 'samplePreAnalysis', profile: '' });
    expect(out.plan!.edges).toEqual([
      { from: '1', to: '2' },
      { from: '2', to: '3' },
    ]);
    expect(out.dot!.startsWith('digraph G {1 [label = "标题1"')).toBe(true);
    // Reported, in the reply's lines, but not failing: they depend on the plan and process the reply is applied to.
    const graphLine = lineOf(text, '*graph=');
    expect(out.diagnostics.find((d) => d.code === 'QUESTION_EMPTY')).toMatchObject({ severity: 'error', node: '1', line: graphLine });
    expect(out.diagnostics.find((d) => d.code === 'TOOL_UNKNOWN')).toMatchObject({ severity: 'error', node: '3', line: graphLine });
    expect(result.stderr).toBe('');
  });

  it('prints a short summary of the seed example, the deferred errors on stderr with the reply line', async () => {
    const text = readFileSync(SEED, 'utf8');
    const result = await parseReply([SEED]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('seed-004.txt: plan 1');
    expect(result.stdout).toContain('update log: 节点1先向用户确认样本');
    expect(result.stdout).toContain('3 nodes, 2 edges; 2 errors checked when applied, 1 warning');
    expect(result.stderr).toContain(`seed-004.txt:${lineOf(text, '*graph=')}: error TOOL_UNKNOWN: tool "samplePreAnalysis"`);
    expect(result.stderr).toMatch(/note: errors .*TOOL_UNKNOWN.* depend on where the reply is applied/);
  });

  it('reads a reply with prose and code fences around the blocks', async () => {
    const reply = `The search returned results, so I ask for a confirmation.\n\n\`\`\`markdown\n@epupdatelog@\n- b asks for a confirmation\n- a runs now\n@epupdatelog@\n\`\`\`\n\n\`\`\`dot\n@EP@\n*id=p_0abc\n*graph=${PLAN}\n@EP@\n\`\`\`\nTell me if anything is missing.\n`;
    const { code, report: out } = await report(reply);
    expect(code).toBe(0);
    expect(out).toMatchObject({ id: 'p_0abc', updateLog: '- b asks for a confirmation\n- a runs now', valid: true, diagnostics: [] });
    expect(out.plan!.edges).toEqual([{ from: 'a', to: 'b', when: 'hi' }]);
    expect(out.dot).toBe(`${PLAN}\n`);
  });

  it('gives id null for a new plan without *id, and an empty update log when there is none', async () => {
    const { code, report: out } = await report(`@EP@\n*graph=${PLAN}\n@EP@\n`);
    expect(code).toBe(0);
    expect(out).toMatchObject({ id: null, updateLog: '', valid: true });
    expect(out.plan!.nodes.map((n) => n['id'])).toEqual(['a', 'b']);
  });

  it('reads CRLF line ends with the digraph on the line after *graph=, and names reply lines in DOT errors', async () => {
    const good = `@epupdatelog@\r\nfirst plan\r\n@epupdatelog@\r\n@EP@\r\n*id=9\r\n*graph=\r\n${PLAN.replace(/\n/g, '\r\n')}\r\n@EP@\r\n`;
    const { code, report: out } = await report(good);
    expect(code).toBe(0);
    expect(out).toMatchObject({ id: '9', updateLog: 'first plan', valid: true });
    expect(out.plan!.nodes.map((n) => n['status'])).toEqual(['ready', 'pending']);

    const broken = good.replace('a -> b [when="hi"];', 'a -> b [when="hi";');
    const result = await parseReply(['-'], broken);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^<stdin>:11: error DOT_SYNTAX: unexpected "}" at line 11, column 1/m);
  });

  it('normalises Chinese and English status names mixed in one reply', async () => {
    const reply = [
      '@epupdatelog@',
      'mixed',
      '@epupdatelog@',
      '@EP@',
      '*id=3',
      '*graph=digraph G {',
      '  1 [type="function", status="已完成", toolCode="echo", toolOutput="x"];',
      '  2 [type="function", status="ready", toolCode="echo"];',
      '  3 [type="confirm", status="待用户输入中", question="continue?"];',
      '  4 [type="function", status="pending", toolCode="echo"];',
      '  5 [type="function", status="待初始化", toolCode="echo"];',
      '  1 -> 2; 1 -> 3; 2 -> 4; 3 -> 5;',
      '}',
      '@EP@',
    ].join('\n');
    const { code, report: out } = await report(reply);
    expect(code).toBe(0);
    expect(out.plan!.nodes.map((n) => n['status'])).toEqual(['done', 'ready', 'awaiting_input', 'pending', 'pending']);
  });

  it('refuses a reply without markers: exit 1, the fix on stderr, valid false in the JSON', async () => {
    const { code, stderr, report: out } = await report('The plan is:\ndigraph G { a [type=function status=ready toolCode=echo] }\n');
    expect(code).toBe(1);
    expect(out).toMatchObject({ id: null, plan: null, dot: null, valid: false });
    expect(out.diagnostics.map((d) => d.code)).toEqual(['REPLY_NO_PLAN']);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^<stdin>: error REPLY_NO_PLAN: .*Fix: wrap the plan in @EP@ markers: a line @EP@, then \*id=<plan id>/);
  });

  it('refuses a reply over reflection.maxReplyBytes unread (DOTPLAN_MAX_REPLY_BYTES), and reads it under the default', async () => {
    const reply = `@EP@\n*graph=${PLAN}\n@EP@\n${'padding '.repeat(40)}`;
    const small = await runDotplan(['parse-reply', '-', '--json'], { env: { ...cleanEnv(), DOTPLAN_MAX_REPLY_BYTES: '200' }, input: reply });
    expect(small.code).toBe(1);
    expect((JSON.parse(small.stdout) as Report).diagnostics.map((d) => d.code)).toEqual(['REPLY_TOO_LARGE']);
    const { code } = await report(reply);
    expect(code).toBe(0);
  });

  it('refuses an @EP@ block that is never closed, naming its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotplan-reply-'));
    const file = join(dir, 'reply.txt');
    writeFileSync(file, `@epupdatelog@\nlog\n@epupdatelog@\n@EP@\n*id=1\n*graph=${PLAN}\n`);
    const result = await parseReply([file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}:4: error REPLY_UNCLOSED: the @EP@ block opened at line 4 is never closed`);
    expect(result.stderr).toMatch(/Fix: end the plan with a line @EP@/);
    expect(result.stdout).toBe('');
  });

  it('refuses a plan with a cycle, naming the cycle and its line in the reply', async () => {
    const reply = `@epupdatelog@\nloop\n@epupdatelog@\n@EP@\n*id=1\n*graph=digraph G {\n  a [type="function", status="ready", toolCode="echo"];\n  b [type="function", status="pending", toolCode="echo"];\n  a -> b;\n  b -> a;\n}\n@EP@\n`;
    const { code, stderr, report: out } = await report(reply);
    expect(code).toBe(1);
    expect(out.valid).toBe(false);
    expect(out.diagnostics.find((d) => d.code === 'CYCLE')).toMatchObject({ severity: 'error', line: 7 });
    expect(stderr).toMatch(/^<stdin>:7: error CYCLE: the plan has a cycle: "a" -> "b" -> "a"/m);
  });

  it('refuses a JSON object instead of a digraph, naming the line', async () => {
    const reply = '@epupdatelog@\nlog\n@epupdatelog@\n@EP@\n*id=1\n*graph=\n{"nodes": [{"id": "a", "type": "function"}], "edges": []}\n@EP@\n';
    const { code, stderr, report: out } = await report(reply);
    expect(code).toBe(1);
    expect(out.diagnostics).toMatchObject([{ code: 'REPLY_NOT_DIGRAPH', line: 7 }]);
    expect(stderr).toMatch(/^<stdin>:7: error REPLY_NOT_DIGRAPH: the plan at line 7 is JSON, not a Graphviz digraph\. Fix: write the plan in Graphviz DOT/);
  });

  it('exits 2 on usage errors and 1 on a missing file', async () => {
    expect((await parseReply([])).code).toBe(2);
    expect((await parseReply(['-', '--no-such-flag'])).code).toBe(2);
    const missing = await parseReply(['does-not-exist.txt']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read does-not-exist.txt: no such file');
  });
});
