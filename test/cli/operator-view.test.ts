/**
 * What an operator sees of what happened, through the real command: the problems of a refused LLM
 * reply in `plan calls`, a template plan's parameter values in `plan show`, the same key names in
 * `worker --json` and `plan events --json`, and every way to decide a review in `inbox`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { testBackend, testDatabase } from '../support/db.js';
import { runCli } from './run-cli.js';

describe(`what operators see (${testBackend()})`, () => {
  let cwd: string;
  let url: string;
  let drop: (() => Promise<void>) | undefined;
  const cli = (args: string[]) => runCli([...args, '--db', url], { cwd });
  const create = async (args: string[]) => {
    const created = await cli(['plan', 'create', ...args, '--json']);
    expect(created.code, created.stderr).toBe(0);
    return (JSON.parse(created.stdout) as { id: string }).id;
  };

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-view-'));
    ({ url, drop } = await testDatabase(cwd));
  });
  afterAll(async () => {
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('plan calls shows the problems of a refused reply without --json', async () => {
    const id = await create(['--goal', 'Say hello']);
    const store = await openStore({ url });
    try {
      await store.llm.record({
        planId: id,
        purpose: 'plan',
        model: 'gpt-test',
        prompt: '[]',
        reply: 'no markers here',
        promptTokens: 10,
        completionTokens: 3,
        ms: 12,
        outcome: 'refused',
        diagnostics: [
          { code: 'REPLY_NO_PLAN', severity: 'error', message: 'the reply has no @EP@ block', line: 1, fix: 'answer with @EP@ *graph=digraph ... @EP@' },
        ],
      });
      await store.llm.record({
        planId: id,
        purpose: 'plan',
        model: 'gpt-test',
        prompt: '[]',
        promptTokens: 0,
        completionTokens: 0,
        ms: 5,
        outcome: 'error',
        diagnostics: [{ code: 'LLM_FAILED', severity: 'error', message: 'HTTP 503 from the endpoint' }],
      });
    } finally {
      await store.close();
    }
    const calls = await cli(['plan', 'calls', id]);
    expect(calls.code, calls.stderr).toBe(0);
    expect(calls.stdout).toMatch(/^1\s+plan\s+gpt-test\s+10\+3\s+12\s+refused \(1 problem\)$/m);
    expect(calls.stdout).toContain(
      'call 1 (plan, refused):\n  reply:1: error REPLY_NO_PLAN: the reply has no @EP@ block. Fix: answer with @EP@ *graph=digraph ... @EP@',
    );
    expect(calls.stdout).toContain('call 2 (plan, error):\n  error LLM_FAILED: HTTP 503 from the endpoint.');
  });

  it('plan show of a plan made from a template shows the parameter values, in the comment block and in --format json', async () => {
    const id = await create(['--template', 'approval', '--set', 'item=a "quiet" laptop', '--set', 'amount=1,200 EUR']);
    const dot = await cli(['plan', 'show', id]);
    expect(dot.stdout).toContain('// dotplan: made from template approval with item="a \\"quiet\\" laptop", requester="a colleague", amount="1,200 EUR"');
    const json = JSON.parse((await cli(['plan', 'show', id, '--format', 'json'])).stdout) as { template: string; params: Record<string, string> };
    expect(json.template).toBe('approval');
    expect(json.params).toEqual({ item: 'a "quiet" laptop', requester: 'a colleague', amount: '1,200 EUR' });
    // The line is dotplan's own: a file that comes back with it applies as no change.
    const applied = await runCli(['plan', 'apply', id, '-', '--db', url], { cwd, input: dot.stdout });
    expect(applied.stdout).toMatch(/^no change/);
  });

  it('worker --json and plan events --json name the same fields the same way', async () => {
    writeFileSync(
      join(cwd, 'two.dot'),
      'digraph { a [type=function toolCode=echo toolInput="hi"]; b [type=function toolCode=echo toolInput="{{nodes.a.output}}!"]; a -> b }',
    );
    const id = await create(['--dot', 'two.dot']);
    const worker = await cli(['worker', '--until-idle', '--json']);
    expect(worker.code, worker.stderr).toBe(0);
    const lines = worker.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.planId === id);
    const events = JSON.parse((await cli(['plan', 'events', id, '--json'])).stdout) as Array<Record<string, unknown>>;
    const done = lines.find((l) => l.nodeId === 'b' && l.to === 'done')!;
    expect(done).toBeDefined();
    const { durationMs, ...same } = done;
    expect(durationMs).toEqual(expect.any(Number));
    expect(events.find((e) => e.id === done.id)).toEqual(same);
    for (const line of lines) expect(Object.keys(line).filter((k) => k !== 'durationMs')).toEqual(Object.keys(events.find((e) => e.id === line.id)!));
  });

  it('inbox shows approve, reject and modify for a plan waiting for review', async () => {
    const id = await create(['--dot', 'two.dot', '--review']);
    const inbox = await cli(['inbox', '--plan', id]);
    expect(inbox.code, inbox.stderr).toBe(0);
    expect(inbox.stdout).toContain(`dotplan plan approve ${id}`);
    expect(inbox.stdout).toContain(`dotplan plan reject ${id} --reason "<why>"`);
    expect(inbox.stdout).toContain(`dotplan plan modify ${id} --dot <file>`);
    const [entry] = JSON.parse((await cli(['inbox', '--plan', id, '--json'])).stdout) as Array<{ command: string; commands: string[] }>;
    expect(entry!.command).toBe(`dotplan plan approve ${id}`);
    expect(entry!.commands).toEqual([`dotplan plan approve ${id}`, `dotplan plan reject ${id} --reason "<why>"`, `dotplan plan modify ${id} --dot <file>`]);
  });
});
