/**
 * What `dotplan plan list` loads: operators run it in loops, so it loads the read side and its database
 * client, not the MCP client, the LLM client, the HTTP server, the worker, Prisma's generated client
 * or the regular-expression engine of edge conditions. Observed in a real process through a module
 * hook (NODE_OPTIONS=--import) that names every module it loads on standard error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runDotplanProcess } from '../support/cli.js';
import { cliDatabase, testBackend } from '../support/db.js';
import { runCli } from './run-cli.js';

const MARK = 'dotplan-test-loaded ';

/** Modules a command that only reads plans has no use for, and what each stands for. */
const NOT_FOR_A_LIST: ReadonlyArray<[RegExp, string]> = [
  [/\/node_modules\/@modelcontextprotocol\//, 'the MCP client'],
  [/\/node_modules\/openai\//, 'the LLM client'],
  [/\/node_modules\/hono\//, 'the HTTP server'],
  [/\/dist\/worker\/worker\.js$/, 'the worker'],
  [/\/dist\/generated\//, "Prisma's generated client"],
  [/\/node_modules\/re2js\//, 'the regular-expression engine of edge conditions'],
];

describe(`what plan list loads (${testBackend()})`, () => {
  let cwd: string;
  let db: string[];
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-start-cost-'));
    ({ args: db, drop } = await cliDatabase());
    writeFileSync(join(cwd, 'plan.dot'), 'digraph { a [type=function toolCode=echo toolInput="hi"] }');
    writeFileSync(
      join(cwd, 'loader.mjs'),
      `export async function load(url, context, next) {\n  const loaded = await next(url, context);\n  process.stderr.write(${JSON.stringify(MARK)} + url + '\\n');\n  return loaded;\n}\n`,
    );
    writeFileSync(join(cwd, 'hook.mjs'), `import { register } from 'node:module';\nregister('./loader.mjs', import.meta.url);\n`);
  });
  afterAll(async () => {
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('lists the plans without loading the MCP client, the LLM client, the HTTP server, the worker or Prisma', async () => {
    const created = await runCli(['plan', 'create', '--dot', 'plan.dot', '--title', 'listed', ...db], { cwd });
    expect(created.code, created.stderr).toBe(0);
    // Then an MCP server in the config (not a working one): a command that uses no tool neither lists nor loads them.
    writeFileSync(join(cwd, 'dotplan.config.json'), JSON.stringify({ mcp: { files: { command: process.execPath, args: ['-e', '0'] } } }));
    const env = cleanEnv({ NODE_OPTIONS: `--import ${pathToFileURL(join(cwd, 'hook.mjs')).href}` });
    const listed = await runDotplanProcess(['plan', 'list', ...db], { cwd, env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('listed');
    const modules = listed.stderr
      .split('\n')
      .filter((line) => line.startsWith(MARK))
      .map((line) => line.slice(MARK.length));
    // The hook saw the command's own module: an empty list would prove nothing.
    expect(modules.some((url) => url.endsWith('/dist/cli/commands/plan.js'))).toBe(true);
    const unwanted = NOT_FOR_A_LIST.flatMap(([pattern, what]) => {
      const hit = modules.find((url) => pattern.test(url));
      return hit ? [`${what} (${hit})`] : [];
    });
    expect(unwanted).toEqual([]);
  });
});
