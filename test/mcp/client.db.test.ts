/**
 * Tools from MCP servers: a plan's function nodes call a fixture server's tools
 * (`toolCode="mcp:<server>/<tool>"`) over stdio and over streamable HTTP, in real processes, with the
 * SDK's own protocol traffic. The tools' list is cached so `validate` knows their schemas without
 * starting servers; a call's failures are the attempt's (retried by the node's policy); a worker
 * that stops leaves no server process behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../../src/llm/scripted-server.js';
import { MCP_CATALOGUE_PATH } from '../../src/mcp/catalogue.js';
import type { McpServerConfig } from '../../src/mcp/servers.js';
import type { Dotplan } from '../../src/operations/dotplan.js';
import { openDotplan } from '../../src/operations/open.js';
import type { Worker } from '../../src/worker/worker.js';
import { openTestDotplan, type TestDotplan } from '../api/open.js';
import { waitUntil } from '../support/wait.js';
import { alive, FIXTURE, starts, stdioFixture } from './fixture.js';

const TWO_TOOLS = `digraph two {
  sum   [type=function toolCode="mcp:fx/add" toolInput="{\\"a\\": 2, \\"b\\": 3}"]
  greet [type=function toolCode="mcp:fx/greet" toolInput="{\\"name\\": \\"n{{nodes.sum.output.sum}}\\"}"]
  sum -> greet
}`;

describe('tools from MCP servers', () => {
  let t: TestDotplan | undefined;
  let dir = '';
  let worker: Worker | undefined;
  let httpServer: ChildProcess | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    httpServer?.kill();
    httpServer = undefined;
    await t?.cleanup();
    t = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A Dotplan whose working folder (where the fixture records, and the cache lives) is `dir`. */
  async function open(servers: (dir: string) => Promise<Record<string, McpServerConfig>> | Record<string, McpServerConfig>): Promise<Dotplan> {
    dir = mkdtempSync(join(tmpdir(), 'dotplan-mcp-'));
    t = await openTestDotplan({ cwd: dir, config: { mcp: await servers(dir), retry: { retries: 0, retryDelay: '50ms' } } });
    return t.dotplan;
  }

  async function ended(dotplan: Dotplan, planId: string, timeoutMs = 60_000): Promise<string> {
    return waitUntil(
      async () => {
        const { status } = await dotplan.plan(planId);
        return ['completed', 'failed'].includes(status) && status;
      },
      `plan ${planId} to end`,
      timeoutMs,
    );
  }

  it('over stdio: a plan calls two tools of one server (structured content as JSON, text as text), on one connection', async () => {
    const dotplan = await open((d) => ({ fx: stdioFixture(d) }));
    // Opening listed the tools once (the cache was empty), with their schemas.
    expect(starts(dir)).toHaveLength(1);
    expect(dotplan.tools.get('mcp:fx/add')).toMatchObject({ description: 'Adds two numbers.' });
    const plan = await dotplan.create({ dot: TWO_TOOLS });
    worker = dotplan.worker().start();
    expect(await ended(dotplan, plan.id)).toBe('completed');
    expect(JSON.parse((await dotplan.node(plan.id, 'sum')).output!)).toEqual({ sum: 5 });
    expect((await dotplan.node(plan.id, 'greet')).output).toBe('hello, n5');
    // One process for the listing, one for the worker's connection, shared by both nodes.
    expect(starts(dir)).toHaveLength(2);
  });

  it('over streamable HTTP: the same plan, the same results', async () => {
    const dotplan = await open(async (d) => {
      const server = spawn(process.execPath, [FIXTURE, '--http'], { env: { ...process.env, FIXTURE_DIR: d }, stdio: ['ignore', 'pipe', 'inherit'] });
      httpServer = server;
      const port = await new Promise<string>((resolve) =>
        server.stdout.on('data', (b: Buffer) => /listening (\d+)/.exec(String(b))?.[1] && resolve(/listening (\d+)/.exec(String(b))![1]!)),
      );
      return { fx: { url: `http://127.0.0.1:${port}/mcp` } };
    });
    const plan = await dotplan.create({ dot: TWO_TOOLS });
    worker = dotplan.worker().start();
    expect(await ended(dotplan, plan.id)).toBe('completed');
    expect(JSON.parse((await dotplan.node(plan.id, 'sum')).output!)).toEqual({ sum: 5 });
    expect((await dotplan.node(plan.id, 'greet')).output).toBe('hello, n5');
  });

  it('validate names a wrong argument from the cached schema, without starting the server again', async () => {
    const dotplan = await open((d) => ({ fx: stdioFixture(d) }));
    expect(existsSync(join(dir, MCP_CATALOGUE_PATH))).toBe(true);
    const result = await dotplan.validate(`digraph bad {\n  sum [type=function toolCode="mcp:fx/add" toolInput="{\\"a\\": 2, \\"b\\": \\"three\\"}"]\n}`);
    expect(result.valid).toBe(false);
    const problem = result.diagnostics.find((d) => d.code === 'TOOL_INPUT_INVALID');
    expect(problem).toMatchObject({ node: 'sum', attribute: 'toolInput', line: 2 });
    expect(problem!.message).toContain('b: must be number');
    expect(problem!.fix).toContain('dotplan mcp tools --server fx');
    // An input with a reference is known only when the node runs: not checked here.
    expect(
      (
        await dotplan.validate(`digraph ok { sum [type=function toolCode="mcp:fx/add" toolInput="{\\"a\\": 2, \\"b\\": \\"{{params.b}}\\"}"] }`)
      ).diagnostics.filter((d) => d.code === 'TOOL_INPUT_INVALID'),
    ).toEqual([]);
    // A second Dotplan on the same folder reads the cache: no server starts for it.
    const again = await openDotplan({ cwd: dir, config: { mcp: { fx: stdioFixture(dir) }, databaseUrl: t!.url } });
    expect((await again.validate(`digraph u { x [type=function toolCode="mcp:fx/ad"] }`)).diagnostics[0]!.message).toContain('mcp:fx/add');
    await again.close();
    expect(starts(dir)).toHaveLength(1);
  });

  it('a tool that reports an error fails the attempt with its text, and the node is retried by its policy', async () => {
    const dotplan = await open((d) => ({ fx: stdioFixture(d) }));
    const plan = await dotplan.create({ dot: `digraph f { f [type=function toolCode="mcp:fx/fail" retries=1 retryDelay="50ms"] }` });
    worker = dotplan.worker().start();
    expect(await ended(dotplan, plan.id)).toBe('failed');
    const node = await dotplan.node(plan.id, 'f');
    expect(node).toMatchObject({ status: 'failed', attempts: 2 });
    expect(node.error).toContain('the fixture tool failed on purpose');
  });

  it('a tool that outlives the node’s timeout fails that attempt, and the next attempt runs', async () => {
    const dotplan = await open((d) => ({ fx: stdioFixture(d) }));
    const plan = await dotplan.create({
      dot: `digraph s { s [type=function toolCode="mcp:fx/slow" toolInput="{\\"seconds\\": 30}" timeout="1s" retries=1 retryDelay="50ms"] }`,
    });
    worker = dotplan.worker().start();
    expect(await ended(dotplan, plan.id)).toBe('failed');
    const node = await dotplan.node(plan.id, 's');
    expect(node.attempts).toBe(2);
    expect(node.error).toContain('timed out after 1s');
    const retried = (await dotplan.events.list({ planId: plan.id })).filter((e) => e.nodeId === 's' && e.to === 'ready' && e.from === 'running');
    expect(retried).toHaveLength(1);
  });

  it('a server killed during a call fails that attempt only; the next attempt starts it again and succeeds', async () => {
    const dotplan = await open((d) => ({ fx: stdioFixture(d) }));
    const plan = await dotplan.create({ dot: `digraph k { k [type=function toolCode="mcp:fx/block" retries=1 retryDelay="50ms"] }` });
    worker = dotplan.worker().start();
    const pid = await waitUntil(() => existsSync(join(dir, 'block.pid')) && Number(readFileSync(join(dir, 'block.pid'), 'utf8')), 'the blocking call to start');
    process.kill(pid, 'SIGKILL');
    expect(await ended(dotplan, plan.id)).toBe('completed');
    const node = await dotplan.node(plan.id, 'k');
    expect(node).toMatchObject({ attempts: 2, output: 'recovered' });
    // The listing's process, the killed one, and the one the second attempt started.
    expect(starts(dir)).toHaveLength(3);
  });

  it('a stopped worker leaves no server process behind, nor what the server started', async () => {
    const dotplan = await open((d) => ({ fx: stdioFixture(d, '--grandchild') }));
    const plan = await dotplan.create({ dot: `digraph g { g [type=function toolCode="mcp:fx/greet" toolInput="{\\"name\\": \\"x\\"}"] }` });
    worker = dotplan.worker().start();
    expect(await ended(dotplan, plan.id)).toBe('completed');
    const server = starts(dir).at(-1)!;
    const grandchild = Number(readFileSync(join(dir, 'grandchild.pid'), 'utf8'));
    expect([alive(server), alive(grandchild)]).toEqual([true, true]);
    await worker.stop();
    worker = undefined;
    expect([alive(server), alive(grandchild)]).toEqual([false, false]);
  });

  it('a server that says its tools changed updates the registry and the cache', async () => {
    const dotplan = await open((d) => ({ fx: stdioFixture(d) }));
    expect(dotplan.tools.has('mcp:fx/extra')).toBe(false);
    const plan = await dotplan.create({ dot: `digraph g { g [type=function toolCode="mcp:fx/grow"] }` });
    worker = dotplan.worker().start();
    expect(await ended(dotplan, plan.id)).toBe('completed');
    await waitUntil(() => dotplan.tools.has('mcp:fx/extra'), 'the new tool in the registry');
    await waitUntil(() => readFileSync(join(dir, MCP_CATALOGUE_PATH), 'utf8').includes('"extra"'), 'the new tool in the cache');
  });
});

it('a ReAct agent given an MCP tool is offered its schema (under a name the API takes) and its calls run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-mcp-'));
  const llm = await startScriptedServer({
    script: {
      replies: [{ toolCalls: [{ name: 'mcp_fx_add', arguments: { a: 20, b: 22 } }] }, { match: '42', content: 'the sum is 42' }],
    },
  });
  const t = await openTestDotplan({
    cwd: dir,
    config: {
      mcp: { fx: stdioFixture(dir) },
      agents: [{ code: 'adder', kind: 'react', description: 'adds numbers', tools: ['mcp:fx/add'] }],
      openai: { baseURL: llm.url, model: 'scripted', maxRetries: 0 },
    },
  });
  const worker = t.dotplan.worker({ llm: { baseURL: llm.url } }).start();
  try {
    const plan = await t.dotplan.create({ dot: `digraph r { r [type=agent agentCode=adder task="add 20 and 22"] }` });
    await waitUntil(async () => ['completed', 'failed'].includes((await t.dotplan.plan(plan.id)).status), 'the plan to end', 60_000);
    expect(await t.dotplan.node(plan.id, 'r')).toMatchObject({ status: 'done', output: 'the sum is 42' });
    const offered = (llm.requests[0]!.body as { tools: Array<{ function: { name: string; description?: string; parameters: unknown } }> }).tools;
    expect(offered[0]!.function).toMatchObject({
      name: 'mcp_fx_add',
      description: 'Adds two numbers.',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    });
    // What the server's schema says is sent as it is, less what the API refuses.
    expect(offered[0]!.function.parameters).not.toHaveProperty('$schema');
    // The tool's result went back to the model.
    expect(JSON.stringify(llm.requests[1]!.body)).toContain('{\\"sum\\":42}');
  } finally {
    await worker.stop();
    await t.cleanup();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('a long tool that reports progress runs past the SDK’s 60 s default, within the node’s timeout', { timeout: 150_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-mcp-'));
  const t = await openTestDotplan({ cwd: dir, config: { mcp: { fx: stdioFixture(dir) } } });
  const worker = t.dotplan.worker().start();
  try {
    const plan = await t.dotplan.create({
      dot: `digraph p { p [type=function toolCode="mcp:fx/slow" toolInput="{\\"seconds\\": 62, \\"every\\": 5}" timeout="100s"] }`,
    });
    await waitUntil(
      async () => (await t.dotplan.plan(plan.id)).status !== 'running' && (await t.dotplan.plan(plan.id)).status,
      'the plan to end',
      120_000,
      500,
    );
    const node = await t.dotplan.node(plan.id, 'p');
    expect(node).toMatchObject({ status: 'done', attempts: 1, output: 'finished after 62s' });
    // Its progress reached the node's log.
    const logs = (await t.dotplan.events.list({ planId: plan.id, kind: 'log' })).map((e) => e.reason ?? '');
    expect(logs.some((line) => /progress \d+\/13: step \d+/.test(line))).toBe(true);
  } finally {
    await worker.stop();
    await t.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});
