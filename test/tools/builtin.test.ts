import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors/errors.js';
import { echoTool } from '../../src/tools/builtin/echo.js';
import { jsonTool } from '../../src/tools/builtin/json.js';
import { sleepTool } from '../../src/tools/builtin/sleep.js';
import { renderTemplate, templateTool } from '../../src/tools/builtin/template.js';
import type { Tool } from '../../src/tools/types.js';
import { toolContext } from './context.js';

/** Validates like the engine does, then runs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any built-in tool, whatever its input and output
async function call(tool: Tool<any, any>, input: unknown, ctx = toolContext()): Promise<unknown> {
  const parsed = tool.inputSchema!.safeParse(input);
  if (!parsed.success) throw new Error(`invalid input: ${String(parsed.error)}`);
  return tool.run(parsed.data, ctx);
}

describe('echo', () => {
  it('returns its input unchanged', async () => {
    const input = { a: [1, 'two', { three: null }], emoji: '🙂' };
    expect(await call(echoTool, input)).toEqual(input);
    expect(await call(echoTool, 'plain text')).toBe('plain text');
  });
});

describe('sleep', () => {
  it('waits the given milliseconds, as {ms} or a number', async () => {
    const start = Date.now();
    expect(await call(sleepTool, { ms: 60 })).toEqual({ slept: 60 });
    expect(await call(sleepTool, 30)).toEqual({ slept: 30 });
    expect(Date.now() - start).toBeGreaterThanOrEqual(85);
  });

  it('stops promptly with a ToolError when the signal aborts', async () => {
    const controller = new AbortController();
    const start = Date.now();
    const run = call(sleepTool, { ms: 10_000 }, toolContext({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('shutdown')), 30);
    await expect(run).rejects.toBeInstanceOf(ToolError);
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('refuses a negative duration', () => {
    expect(sleepTool.inputSchema!.safeParse({ ms: -1 }).success).toBe(false);
  });
});

describe('template', () => {
  it('renders {{key.path}} from values', async () => {
    const out = await call(templateTool, {
      template: 'Hello {{name}}, first item {{ items[0].title }}; all: {{tags}}',
      values: { name: 'Ada', items: [{ title: 'Notes' }], tags: ['x', 'y'] },
    });
    expect(out).toBe('Hello Ada, first item Notes; all: ["x","y"]');
  });

  it('returns a plain string as it is', async () => {
    expect(await call(templateTool, 'already rendered')).toBe('already rendered');
  });

  it('names placeholders without a value instead of leaving blanks', () => {
    expect(() => renderTemplate('Dear {{name}} from {{ org }}', { name: 'x' })).toThrow(/no value for \{\{ org \}\}/);
    expect(() => renderTemplate('{{missing}}', {})).toThrow(expect.objectContaining({ retryable: false }));
  });
});

describe('json', () => {
  it('picks a value by path', async () => {
    expect(await call(jsonTool, { pick: 'a.b[1].c', from: { a: { b: [{}, { c: 42 }] } } })).toBe(42);
  });

  it('picks from JSON text (an upstream output inserted as text)', async () => {
    expect(await call(jsonTool, { pick: 'items[0]', from: '{"items":["first"]}' })).toBe('first');
  });

  it('fails, non-retryable, naming a missing path', async () => {
    const error = await call(jsonTool, { pick: 'a.x.y', from: { a: {} } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toContain('a.x');
    expect((error as ToolError).retryable).toBe(false);
  });

  it('merges objects, later keys winning', async () => {
    expect(await call(jsonTool, { merge: [{ a: 1, b: 1 }, '{"b":2}', { c: 3 }] })).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('refuses to merge something that is not an object', async () => {
    await expect(call(jsonTool, { merge: [{ a: 1 }, [1, 2]] })).rejects.toThrow(/merge\[1\] is not an object/);
  });

  it('refuses an input that is neither pick nor merge', () => {
    expect(jsonTool.inputSchema!.safeParse({ select: 'a' }).success).toBe(false);
  });
});
