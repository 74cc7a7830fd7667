import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DotplanError } from '../../src/errors/errors.js';
import { createRegistry, ToolRegistry } from '../../src/tools/registry.js';
import { toolContext } from './context.js';

const fixtures = 'test/fixtures/tools';

describe('ToolRegistry', () => {
  it('starts with the built-in tools, each described and with an input schema', async () => {
    const registry = await createRegistry();
    expect(registry.list().map((t) => t.code)).toEqual(['echo', 'sleep', 'template', 'json', 'http']);
    for (const tool of registry.list()) {
      expect(tool.description).toBeTruthy();
      expect(typeof tool.inputSchema?.safeParse).toBe('function');
    }
    expect(registry.has('echo')).toBe(true);
    expect(registry.get('nope')).toBeUndefined();
  });

  it('refuses a duplicate code, naming both sources', () => {
    const registry = new ToolRegistry().register({ code: 'x', run: () => 1 }, 'first.mjs');
    expect(() => registry.register({ code: 'x', run: () => 2 }, 'second.mjs')).toThrow(/"x" from second\.mjs .* from first\.mjs/);
  });

  it('refuses a user tool that clashes with a built-in', async () => {
    await expect(createRegistry({ userModules: [`${fixtures}/duplicate-echo.mjs`] })).rejects.toThrow(
      /"echo" from test\/fixtures\/tools\/duplicate-echo\.mjs .* from built-in/,
    );
  });

  it('passes the http allow-list to the http tool', async () => {
    const registry = await createRegistry({ http: { allowHosts: ['example.invalid'] } });
    const error = await Promise.resolve(registry.get('http')!.run({ url: 'http://other.invalid/' }, toolContext())).catch((e: unknown) => e);
    expect((error as Error).message).toContain('(example.invalid)');
  });
});

describe('user tool modules', () => {
  it('loads a plain .mjs module (default export) and runs its tools', async () => {
    const registry = await createRegistry({ userModules: [`${fixtures}/tools.mjs`] });
    expect(registry.sourceOf('record')).toBe(`${fixtures}/tools.mjs`);
    const file = join(mkdtempSync(join(tmpdir(), 'dotplan-tools-')), 'log.txt');
    await registry.get('record')!.run({ file }, toolContext({ nodeId: 'n7', attempt: 2 }));
    expect(readFileSync(file, 'utf8')).toBe(`plan-1 n7 2 ${process.pid}\n`);
    const error = await Promise.resolve()
      .then(() => registry.get('fail')!.run({}, toolContext()))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: false });
  });

  it('loads a .ts module (export const tools) through tsx, zod schemas included', async () => {
    const registry = await createRegistry({ userModules: [resolve(fixtures, 'tools.ts')] });
    expect(registry.has('ts_record') && registry.has('ts_fail') && registry.has('ts_slow')).toBe(true);
    const slow = registry.get('ts_slow')!;
    expect(slow.inputSchema!.safeParse({ ms: 'soon' }).success).toBe(false);
    expect(await slow.run({ ms: 5 }, toolContext())).toEqual({ waited: 5 });
  });

  it('loads several modules side by side', async () => {
    const registry = await createRegistry({ userModules: [`${fixtures}/tools.mjs`, `${fixtures}/tools.ts`] });
    expect(registry.list()).toHaveLength(5 + 6 + 3); // built-in, tools.mjs, tools.ts
  });

  it('names a path that does not exist', async () => {
    const error = await createRegistry({ userModules: ['nowhere/tools.mjs'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DotplanError);
    expect(error).toMatchObject({ code: 'CONFIG' });
    expect((error as Error).message).toContain('"nowhere/tools.mjs" not found');
  });

  it('names the module and the tool whose shape is wrong', async () => {
    await expect(createRegistry({ userModules: [`${fixtures}/bad-shape.mjs`] })).rejects.toThrow(
      /bad-shape\.mjs", tool #1 \("broken"\): "run" must be a function/,
    );
  });

  it('explains what to export when a module has no tools', async () => {
    await expect(createRegistry({ userModules: [`${fixtures}/no-tools.mjs`] })).rejects.toThrow(
      /no-tools\.mjs" exports no array of tools: write `export default/,
    );
  });

  it('resolves relative paths against the given cwd', async () => {
    const registry = await createRegistry({ userModules: ['tools.mjs'], cwd: resolve(fixtures) });
    expect(registry.has('slow')).toBe(true);
  });
});
