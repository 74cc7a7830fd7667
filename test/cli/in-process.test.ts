/**
 * The command line run in-process (`main(argv, io)`): a command takes everything from its `io` —
 * the working directory for relative paths and `./templates`, the environment for settings,
 * standard input (text, or a terminal a person types on), and stop requests in place of SIGTERM —
 * and nothing from the test process's own.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cron from 'node-cron';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { cleanEnv, runDotplan, startDotplan, waitUntil } from '../support/cli.js';
import { FIXTURE_TOOLS, json, openWorkspace, workflow, type Workspace } from '../integration/workspace.js';

const PLAN = 'digraph one {\n  mode="workflow"\n  a [type=function status=pending toolCode=echo toolInput="hi"]\n}\n';

describe('the CLI in-process, with its own working directory, environment and input', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dotplan-in-process-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads and writes relative paths in its working directory, not the test process’s', async () => {
    writeFileSync(join(dir, 'plan.dot'), PLAN);
    const rendered = await runDotplan(['render', 'plan.dot', '-o', 'plan.svg'], { cwd: dir });
    expect(rendered.code, rendered.stderr).toBe(0);
    expect(readFileSync(join(dir, 'plan.svg'), 'utf8')).toMatch(/^<svg|<\?xml/);
    expect(existsSync(join(process.cwd(), 'plan.svg'))).toBe(false);
    expect((await runDotplan(['validate', 'plan.dot'], { cwd: dir })).code).toBe(0);
  });

  it('finds templates in ./templates of its working directory, and a template by a relative path', async () => {
    mkdirSync(join(dir, 'templates'));
    writeFileSync(join(dir, 'templates', 'local-one.dot'), `// A local template\n${PLAN}`);
    const listed = await runDotplan(['template', 'list', '--json'], { cwd: dir });
    expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((t) => t.name)).toContain('local-one');
    const byPath = await runDotplan(['template', 'show', 'templates/local-one.dot'], { cwd: dir });
    expect(byPath.stdout).toContain('digraph one');
  });

  it('takes its settings from its environment: the database DATABASE_URL names', async () => {
    const url = `file:${join(dir, 'from-env.db')}`;
    writeFileSync(join(dir, 'plan.dot'), PLAN);
    const created = await runDotplan(['plan', 'create', '--dot', 'plan.dot', '--json'], { cwd: dir, env: cleanEnv({ DATABASE_URL: url }) });
    expect(created.code, created.stderr).toBe(0);
    const store = await openStore({ url });
    try {
      expect((await store.plans.get((JSON.parse(created.stdout) as { id: string }).id)).status).toBe('running');
    } finally {
      await store.close();
    }
    expect(existsSync(join(dir, '.dotplan'))).toBe(false);
  });

  it('reads standard input for -', async () => {
    const result = await runDotplan(['validate', '-', '--json'], { cwd: dir, input: PLAN });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: true });
  });

  it('asks on a terminal when standard input is one: the demo takes the answer typed', async () => {
    const result = await runDotplan(['demo'], { cwd: dir, env: cleanEnv(), answers: ['yes, ship it'] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/standard input is not a terminal/);
    expect(result.stderr).toMatch(/\? .*\[yes\] yes, ship it/);
    expect(result.stdout).toContain('yes, ship it');
  });
});

describe('a long-running command in-process', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('stops on a stop request as on SIGTERM: the running node is released, the attempt not counted, nothing left scheduled', async () => {
    const scheduled = cron.getTasks().size;
    const gate = join(ws.dir, 'gate-open');
    const planId = await ws.createPlan(workflow('held', { nodes: [`held [type=function toolCode=gate toolInput=${json({ file: gate })}]`] }));
    const worker = startDotplan(['worker', '--poll', '0 0 * * * *'], { cwd: ws.dir, env: cleanEnv({ DATABASE_URL: ws.url, DOTPLAN_TOOLS: FIXTURE_TOOLS }) });
    await worker.waitForOutput(/^worker .* on (sqlite|postgres)/);
    await waitUntil(async () => (await ws.store.plans.node(planId, 'held')).status === 'running', 'the node to start');
    expect(worker.hasExited()).toBe(false);

    worker.stop();
    const exit = await worker.exited;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toMatch(/SIGTERM: stopping; running nodes are released back to ready/);
    expect(await ws.store.plans.node(planId, 'held')).toMatchObject({ status: 'ready', attempts: 0 });
    // Its poll schedule went with it: nothing of one in-process run is left to the next.
    expect(cron.getTasks().size).toBe(scheduled);
  });
});
