/**
 * What `dotplan plan list`, `plan show` and `inbox` load: operators run them in loops, so they load the
 * read side and its database client, not the MCP client, the LLM client, the HTTP server, Graphviz, the worker,
 * Prisma's generated client or the regular-expression engine of edge conditions. Observed in a real
 * process through a module hook (NODE_OPTIONS=--import) that names every file it loads on standard error;
 * a file of the CLI's bundle (dist/bundle) stands for the modules its manifest says it holds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runDotplanProcess } from '../support/cli.js';
import { cliDatabase, testBackend } from '../support/db.js';
import { runCli } from './run-cli.js';

const MARK = 'dotplan-test-loaded ';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = `${ROOT}dist/bundle/`;
/** The modules in each file of the CLI's bundle (scripts/bundle-cli.mjs writes the manifest), paths from the package root. */
const BUNDLED: Record<string, string[]> = readManifest();

function readManifest(): Record<string, string[]> {
  try {
    return JSON.parse(readFileSync(`${BUNDLE}modules.json`, 'utf8')) as Record<string, string[]>;
  } catch {
    throw new Error('dist/bundle/modules.json is missing: run `npm run build` (npm test does it first)');
  }
}

/** A loaded file as the modules it holds: a bundle file's from the manifest, any other file itself. */
function modulesIn(url: string): string[] {
  const file = url.startsWith('file:') ? fileURLToPath(url) : url;
  if (!file.startsWith(BUNDLE)) return [file];
  const held = BUNDLED[file.slice(BUNDLE.length)];
  if (!held) throw new Error(`${file} is not in dist/bundle/modules.json: rebuild (npm run build)`);
  return held.map((module) => `${ROOT}${module}`);
}

/**
 * Modules a command that only reads plans has no use for: the clients of the outside services a worker
 * calls, the HTTP server, Graphviz, Prisma's generated client, the worker and its poll schedule, and the
 * engine's edge conditions.
 */
const NOT_FOR_A_READ: ReadonlyArray<[RegExp, string]> = [
  [/\/node_modules\/@modelcontextprotocol\//, 'the MCP client'],
  [/\/node_modules\/@a2a-js\//, 'the A2A client'],
  [/\/node_modules\/jose\//, "the A2A client's JWT library"],
  [/\/node_modules\/openai\//, 'the LLM client'],
  [/\/node_modules\/hono\//, 'the HTTP server'],
  [/\/node_modules\/@viz-js\/viz\//, 'Graphviz'],
  [/\/dist\/generated\//, "Prisma's generated client"],
  [/\/dist\/worker\/worker\.js$/, 'the worker'],
  [/\/node_modules\/node-cron\//, "the worker's poll schedule"],
  [/\/node_modules\/re2js\//, 'the regular-expression engine of edge conditions'],
];

describe(`what plan list, plan show and inbox load (${testBackend()})`, () => {
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

  /** `dotplan <args>` in a real process: its result, and every module it loaded (the hook's lines on standard error). */
  async function loadedBy(args: string[]) {
    const env = cleanEnv({ NODE_OPTIONS: `--import ${pathToFileURL(join(cwd, 'hook.mjs')).href}` });
    const run = await runDotplanProcess([...args, ...db], { cwd, env });
    expect(run.code, run.stderr).toBe(0);
    const modules = run.stderr
      .split('\n')
      .filter((line) => line.startsWith(MARK))
      .flatMap((line) => modulesIn(line.slice(MARK.length)));
    // The hook saw the command's own module: an empty list would prove nothing.
    expect(modules.some((url) => url.endsWith('/dist/cli/commands/plan.js'))).toBe(true);
    return { stdout: run.stdout, modules };
  }
  const unwantedIn = (modules: readonly string[], list: ReadonlyArray<[RegExp, string]>) =>
    list.flatMap(([pattern, what]) => {
      const hit = modules.find((url) => pattern.test(url));
      return hit ? [`${what} (${hit})`] : [];
    });

  it('lists and shows plans and the inbox without loading what they do not use', async () => {
    const created = await runCli(['plan', 'create', '--dot', 'plan.dot', '--title', 'listed', ...db], { cwd });
    expect(created.code, created.stderr).toBe(0);
    // An MCP server in the config (not a working one): a command that uses no tool neither lists nor loads them.
    writeFileSync(join(cwd, 'dotplan.config.json'), JSON.stringify({ mcp: { files: { command: process.execPath, args: ['-e', '0'] } } }));
    const shown = await loadedBy(['plan', 'show', created.stdout.trim()]);
    expect(shown.stdout).toContain('toolInput="hi"');
    expect(unwantedIn(shown.modules, NOT_FOR_A_READ)).toEqual([]);
    const listed = await loadedBy(['plan', 'list']);
    expect(listed.stdout).toContain('listed');
    expect(unwantedIn(listed.modules, NOT_FOR_A_READ)).toEqual([]);
    const inbox = await loadedBy(['inbox', '--json']);
    expect(JSON.parse(inbox.stdout)).toEqual([]);
    expect(unwantedIn(inbox.modules, NOT_FOR_A_READ)).toEqual([]);
  });
});
