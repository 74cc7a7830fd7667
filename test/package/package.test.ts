/**
 * dotplan as a user's service gets it: a temp project whose `node_modules/dotplan` is this package
 * (a symlink to the repository root, as `npm link` or a file: dependency makes it), importing
 * `'dotplan'` through package.json `exports` — so only what `dist/` ships is reachable.
 *
 * - The README's "Programmatic API" example, taken from the README itself, runs with `node` in a
 *   child process: it registers an in-process tool, creates a plan from DOT text, starts the
 *   in-process worker and follows the plan's events until it completes.
 * - A TypeScript consumer is type-checked with `tsc --noEmit` (NodeNext, strict) against the shipped
 *   declarations, so the types are part of the package, not only the JavaScript.
 *
 * Needs `dist/` (built by `npm test`'s pretest, or `npm run build`).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** A type-check of the consumer takes ~10 s on an idle 2-core machine; generous for a loaded one. */
const TSC_DEADLINE_MS = 120_000;

/** The first ```js block of the README's "## Programmatic API" section. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## Programmatic API$/m)[1]?.split(/^## /m)[0];
  const code = section && /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('README.md has no ```js example under "## Programmatic API"');
  return code;
}

describe('the dotplan package, imported through its exports', () => {
  let dir: string;

  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist', 'index.js')) || !existsSync(join(ROOT, 'dist', 'index.d.ts'))) {
      throw new Error('dist/ is not built: run `npm run build` (npm test does it first)');
    }
    dir = mkdtempSync(join(tmpdir(), 'dotplan-pkg-'));
    mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
    symlinkSync(ROOT, join(dir, 'node_modules', 'dotplan'), 'dir');
    // A TypeScript user has @types/node installed; dotplan's declarations refer to Node's types.
    symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-service', private: true, type: 'module', dependencies: { dotplan: '*' } }));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('package.json points `exports`, `types` and `main` at files dist/ has', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; import: string }>;
      types: string;
      main: string;
    };
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    for (const file of [pkg.exports['.']!.types, pkg.exports['.']!.import, pkg.types, pkg.main]) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it("runs the README's example: an in-process tool, a plan from DOT, the in-process worker, the plan's events to completion", async () => {
    writeFileSync(join(dir, 'service.mjs'), readmeExample());
    const { stdout, stderr } = await run(process.execPath, ['service.mjs'], {
      cwd: dir,
      timeout: 30_000,
      env: { ...process.env, DATABASE_URL: '', DOTPLAN_TOOLS: '' },
    });
    expect(stderr).toBe('');
    const lines = stdout.trim().split('\n');
    const summary = JSON.parse(lines.pop()!) as unknown;
    expect(summary).toEqual({ plan: 'completed', outputs: { hello: 'HELLO!', world: 'HELLO! WORLD!' } });

    // Every event of the plan, in order, the last one its completion.
    const moves = lines.filter((l) => l.startsWith('status ')).map((l) => /^status (\S+): (\S+) → (\S+) by /.exec(l)!.slice(1, 4).join(' '));
    expect(moves).toEqual([
      'plan · draft',
      'plan draft running',
      'hello pending ready',
      'hello ready running',
      'hello running done',
      'world pending ready',
      'world ready running',
      'world running done',
      'plan running completed',
    ]);
    expect(lines[0]).toMatch(/^revision plan: /);
    // The worker's claims name the worker (host:pid:random), not just "engine".
    expect(lines.find((l) => l.startsWith('status hello: ready → running'))).toMatch(/ by .+:\d+:\w+$/);
    // The plan lives in the SQLite file the example named, relative to the service's directory.
    expect(existsSync(join(dir, 'plans.db'))).toBe(true);
  });

  it(
    'a TypeScript consumer type-checks against the shipped declarations (NodeNext, strict), and a misuse does not',
    async () => {
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: ['node'],
          },
          files: ['consumer.ts', 'misuse.ts'],
        }),
      );
      writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
      writeFileSync(join(dir, 'misuse.ts'), MISUSE);
      // One compiler run for both files (the declarations are checked once): errors in misuse.ts only.
      const checked = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: dir, timeout: TSC_DEADLINE_MS }).then(
        () => ({ stdout: '', stderr: '' }),
        (error: { stdout?: string; stderr?: string }) => error,
      );
      const errors = `${checked.stdout ?? ''}${checked.stderr ?? ''}`.split('\n').filter((line) => /error TS\d+/.test(line));
      expect(errors.filter((line) => !line.startsWith('misuse.ts'))).toEqual([]);
      // The types are real, not `any`: each misuse is an error.
      expect(errors).toEqual([
        expect.stringMatching(/^misuse\.ts\(4,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/),
        expect.stringMatching(/^misuse\.ts\(6,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/),
        expect.stringMatching(/^misuse\.ts\(8,\d+\): error TS\d+: .*EventQuery/),
        expect.stringMatching(/^misuse\.ts\(10,\d+\): error TS2322: Type '"pdf"' is not assignable to type 'ReportFormat/),
      ]);
    },
    2 * TSC_DEADLINE_MS,
  );
});

/** What a TypeScript service writes against dotplan's public types. */
const CONSUMER = `
import { openDotplan, DotplanError, NotFoundError, ConflictError, InvalidArgumentError, ValidationError, type Dotplan, type Tool, type ToolContext, type ToolLog, type EventRecord, type NodeRecord, type PlanRecord, type NodeStatus, type ValidationResult, type Worker } from 'dotplan';

const shout: Tool<string, string> = {
  code: 'shout',
  description: 'upper-cases a text',
  run: (input: string, ctx: ToolContext) => {
    ctx.log(\`shouting for \${ctx.planId}/\${ctx.nodeId}, attempt \${ctx.attempt}\`);
    if (ctx.signal.aborted) throw new Error('aborted');
    return input.toUpperCase();
  },
};

export async function main(): Promise<string | undefined> {
  const dotplan: Dotplan = await openDotplan({ config: { databaseUrl: 'file:./plans.db', worker: { concurrency: 2 } }, tools: [shout as Tool] });
  const plan: PlanRecord = await dotplan.create({ dot: 'digraph g { a [type=function status=pending toolCode=shout toolInput="hi"] }' }, { by: 'service' });
  const verdict: ValidationResult = await dotplan.validate('digraph g { a [type=function status=pending toolCode=shout toolInput="hi"] }', { source: 'inline' });
  if (!verdict.valid) return verdict.diagnostics.map((d) => d.message).join('; ');
  const logged: ToolLog[] = [];
  const worker: Worker = dotplan.worker({ untilIdle: true, log: (entry) => logged.push(entry) }).start();
  worker.on('question:asked', (q) => console.log(q.planId, q.nodeId, q.question));
  const feed = dotplan.events.follow({ planId: plan.id }, (event: EventRecord) => event.nodeId === undefined && event.to === 'completed');
  const last: EventRecord | undefined = await feed.ended;
  await worker.idle;
  const nodes: NodeRecord[] = await dotplan.nodes(plan.id);
  const statuses: NodeStatus[] = nodes.map((n) => n.status);
  const moves: EventRecord[] = await dotplan.events.list({ planId: plan.id, kind: 'status', after: 0, limit: 100 });
  const svg: string = await dotplan.render({ planId: plan.id }, { format: 'svg' });
  const report: string = await dotplan.report(plan.id, { format: 'md' });
  console.log(moves.length, svg.length, report.length, logged.map((l) => \`\${l.nodeId}#\${l.attempt}: \${l.message}\`));
  try {
    await dotplan.answer(plan.id, 'a', 'yes');
  } catch (error) {
    if (error instanceof InvalidArgumentError) console.log(error.argument, error.problem);
    else if (error instanceof NotFoundError || error instanceof ConflictError || error instanceof ValidationError) console.log(error.code);
    else if (error instanceof DotplanError) console.log(error.code, error.message);
  }
  await dotplan.pause(plan.id, { reason: 'maintenance' }).catch(() => undefined);
  await dotplan.close();
  return last?.to ?? statuses[0];
}
`;

/** Calls a TypeScript service must not be able to write: each line pair is one type error. */
const MISUSE = `
import { openDotplan, type Dotplan, type Tool } from 'dotplan';
declare const dotplan: Dotplan;
export const wrong: Tool = { code: 1, run: () => 0 };
// settings have their types
void openDotplan({ config: { worker: { concurrency: 'four' } } });
// the events query is an object (not the plan id of an older version)
void dotplan.events.list('p_1');
// report formats are md, html, json
void dotplan.report('p_1', { format: 'pdf' });
`;
