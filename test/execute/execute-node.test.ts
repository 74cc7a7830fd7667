import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { AttemptAbort } from '../../src/execute/attempt-abort.js';
import { executeNode, type ExecuteContext, type ExecutableNode } from '../../src/execute/execute-node.js';
import { ToolError } from '../../src/errors/errors.js';
import { createRegistry, type ToolRegistry } from '../../src/tools/registry.js';
import { waitUntil } from '../support/wait.js';

let tools: ToolRegistry;
const ran: string[] = [];

beforeAll(async () => {
  tools = await createRegistry({ userModules: ['test/fixtures/tools/tools.mjs'] });
  tools.register({
    code: 'strict',
    inputSchema: z.object({ n: z.number().int(), name: z.string() }),
    run: (input) => input,
  });
  tools.register({ code: 'deaf', run: () => new Promise(() => {}) }, 'test');
  tools.register({
    code: 'watch',
    run: async (input: unknown, ctx) => {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      ran.push(`aborted ${JSON.stringify(input)}`);
      throw new Error('stopped');
    },
  });
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a tool that rejects with a non-Error
  tools.register({ code: 'throws-string', run: () => Promise.reject('plain string') });
  // Two calls that wait for each other: run one after the other, the first would wait forever.
  let arrived = 0;
  let meet!: () => void;
  const met = new Promise<void>((resolve) => (meet = resolve));
  tools.register({
    code: 'meet',
    run: async (input: unknown) => {
      if (++arrived === 2) meet();
      await met;
      return input;
    },
  });
});

function ctx(overrides: Partial<ExecuteContext> = {}): ExecuteContext {
  return {
    planId: 'p1',
    attempt: 1,
    abort: new AttemptAbort(),
    log: () => {},
    params: { who: 'Ada "the first"' },
    nodes: (id) => (({ up: { output: '{"n": 7, "list": [1, 2]}' }, asked: { answer: 'yes' } }) as Record<string, { output?: string; answer?: string }>)[id],
    ...overrides,
  };
}

const fn = (attributes: Record<string, string>): ExecutableNode => ({ id: 'n', type: 'function', attributes });
const multi = (calls: unknown): ExecutableNode => ({
  id: 'm',
  type: 'multiFunction',
  attributes: { toolCalls: typeof calls === 'string' ? calls : JSON.stringify(calls) },
});

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('executeNode: function', () => {
  it('resolves references, runs the tool and stores strings as they are', async () => {
    const result = await executeNode(
      fn({ toolCode: 'template', toolInput: '{"template": "Hi {{name}}, n={{nodes.up.output.n}}", "values": {"name": "{{params.who}}"}}' }),
      ctx(),
      tools,
    );
    expect(result).toEqual({ output: 'Hi Ada "the first", n=7' });
  });

  it('stores other values as JSON', async () => {
    const result = await executeNode(
      fn({ toolCode: 'echo', toolInput: '{"list": "{{nodes.up.output.list}}", "answer": "{{nodes.asked.answer}}"}' }),
      ctx(),
      tools,
    );
    expect(JSON.parse(result.output)).toEqual({ list: [1, 2], answer: 'yes' });
  });

  it('passes plan, node and attempt to the tool', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dotplan-exec-')), 'log');
    await executeNode(fn({ toolCode: 'record', toolInput: JSON.stringify({ file }) }), ctx({ attempt: 3 }), tools);
    expect(readFileSync(file, 'utf8')).toBe(`p1 n 3 ${process.pid}\n`);
  });

  it('refuses input that does not fit the schema, naming node and issues, without retry', async () => {
    const error = await failure(executeNode(fn({ toolCode: 'strict', toolInput: '{"n": 1.5}' }), ctx(), tools));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/^node "n": input does not fit tool "strict": n: .*; name: /);
  });

  it('fails without retry on an unknown tool or a missing upstream output', async () => {
    expect((await failure(executeNode(fn({ toolCode: 'nope' }), ctx(), tools))).retryable).toBe(false);
    const missing = await failure(executeNode(fn({ toolCode: 'echo', toolInput: '{{nodes.ghost.output}}' }), ctx(), tools));
    expect(missing.retryable).toBe(false);
    expect(missing.message).toBe('node "n": {{nodes.ghost.output}}: the plan has no node "ghost"');
  });

  it('keeps retryable and non-retryable marks of what the tool throws', async () => {
    const hard = await failure(executeNode(fn({ toolCode: 'fail', toolInput: '{"message": "bad data"}' }), ctx(), tools));
    expect(hard).toMatchObject({ retryable: false, message: 'bad data' });
    expect(hard.cause).toBeInstanceOf(Error);
    const flaky = await failure(executeNode(fn({ toolCode: 'flaky', toolInput: '{"failures": 1}' }), ctx(), tools));
    expect(flaky).toMatchObject({ retryable: true, message: 'flaky: attempt 1 fails' });
    expect(await executeNode(fn({ toolCode: 'flaky', toolInput: '{"failures": 1}' }), ctx({ attempt: 2 }), tools)).toEqual({
      output: '{"attempt":2}',
    });
    const odd = await failure(executeNode(fn({ toolCode: 'throws-string' }), ctx(), tools));
    expect(odd).toMatchObject({ retryable: true, message: 'plain string' });
  });

  it('times out a slow tool, abort reaching the tool, as a retryable failure', async () => {
    const start = Date.now();
    const error = await failure(executeNode(fn({ toolCode: 'slow', toolInput: '{"ms": 10000}' }), ctx({ timeoutMs: 100 }), tools));
    expect(Date.now() - start).toBeLessThan(2000);
    expect(error.message).toBe('node "n" timed out after 0.1s');
    expect(error.retryable).toBe(true);
  });

  it('does not wait for a tool that ignores its signal', async () => {
    const start = Date.now();
    const error = await failure(executeNode(fn({ toolCode: 'deaf' }), ctx({ timeoutMs: 50 }), tools));
    expect(error.message).toMatch(/timed out after 0.05s/);
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('stops when the worker aborts (shutdown or cancel), keeping the reason', async () => {
    const abort = new AttemptAbort();
    const reason = new Error('worker shutting down');
    setTimeout(() => abort.abort(reason), 30);
    const error = await failure(executeNode(fn({ toolCode: 'sleep', toolInput: '{"ms": 10000}' }), ctx({ abort }), tools));
    expect(error.message).toBe('node "n" was aborted: worker shutting down');
    expect(error.cause).toBe(reason);
  });

  it("stops on the worker's abort also when the tool ignores its signal, with or without a timeout", async () => {
    for (const timeout of [{}, { timeoutMs: 60_000 }]) {
      const abort = new AttemptAbort();
      const running = failure(executeNode(fn({ toolCode: 'deaf' }), ctx({ abort, ...timeout }), tools));
      abort.abort(new Error('lease lost'));
      const error = await running;
      expect(error.message).toBe('node "n" was aborted: lease lost');
    }
  });

  it("gives a tool that reads its signal one that fires with the attempt's abort", async () => {
    const abort = new AttemptAbort();
    const reason = new Error('plan cancelled');
    setTimeout(() => abort.abort(reason), 30);
    ran.length = 0;
    const error = await failure(executeNode(fn({ toolCode: 'watch', toolInput: '"w"' }), ctx({ abort }), tools));
    expect(ran).toEqual(['aborted "w"']);
    expect(error.cause).toBe(reason);
  });
});

describe('executeNode: multiFunction', () => {
  it('runs the calls concurrently and outputs the array of results', async () => {
    const result = await executeNode(
      multi([
        { toolCode: 'meet', toolInput: 'first' },
        { toolCode: 'meet', toolInput: 'second' },
        { toolCode: 'echo', toolInput: '{{nodes.up.output.n}}' },
        { toolCode: 'template', toolInput: 'for {{params.who}}' },
      ]),
      ctx({ timeoutMs: 5000 }),
      tools,
    );
    // The two `meet` calls can only both finish if they ran at the same time.
    expect(JSON.parse(result.output)).toEqual(['first', 'second', 7, 'for Ada "the first"']);
  });

  it('fails as a whole when one call fails, aborting the others', async () => {
    ran.length = 0;
    const error = await failure(
      executeNode(
        multi([
          { toolCode: 'watch', toolInput: 'a' },
          { toolCode: 'fail', toolInput: { message: 'second broke' } },
        ]),
        ctx(),
        tools,
      ),
    );
    expect(error).toMatchObject({ message: 'second broke', retryable: false });
    await waitUntil(() => ran.length > 0, 'the other call to see the abort');
    expect(ran).toEqual(['aborted "a"']);
  });

  it('names the call whose input is wrong', async () => {
    const error = await failure(
      executeNode(
        multi([
          { toolCode: 'echo', toolInput: 1 },
          { toolCode: 'strict', toolInput: { n: 1 } },
        ]),
        ctx(),
        tools,
      ),
    );
    expect(error.message).toMatch(/^node "m" toolCalls\[1\] \(strict\): input does not fit tool "strict": name: /);
  });

  it('refuses toolCalls that are not a JSON array of calls', async () => {
    expect((await failure(executeNode(multi('[{"toolCode": '), ctx(), tools))).message).toMatch(/toolCalls is not JSON/);
    expect((await failure(executeNode(multi({ toolCode: 'echo' }), ctx(), tools))).message).toMatch(/must be a JSON array/);
    expect((await failure(executeNode(multi([{ toolInput: 1 }]), ctx(), tools))).message).toMatch(/toolCalls\[0\] needs a "toolCode"/);
  });
});
