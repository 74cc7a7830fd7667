/**
 * `dotplan mcp serve` as an MCP host runs it: a real process spoken to over stdio by the SDK's own
 * client (`Client` + `StdioClientTransport`), on the run's database, beside a real `dotplan worker`
 * process on the same database. A model lists the tools, checks a plan, creates one, answers its
 * question, approves a review and reads the results; refusals come back as tool results and the
 * server goes on; stdout carries nothing but the protocol, and the process ends cleanly.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackend, testDatabase } from '../support/db.js';
import { cleanEnv } from '../support/run.js';
import { DOTPLAN_BIN, runDotplanProcess, spawnDotplan, type DotplanProcess } from '../support/subprocess.js';
import { waitUntil } from '../support/wait.js';

const BY = 'mcp-tester';

/** A confirm question with options, then a function node that uses its answer (taken on "yes" only). */
const QUESTION_PLAN = `digraph ship {
  label="Ship version 2"
  ask  [type=confirm shape=ellipse question="Ship version 2 now?" options="yes,no"]
  ship [type=function shape=record toolCode=echo toolInput="shipping after {{nodes.ask.answer}}"]
  ask -> ship [when="yes"]
}`;

const ONE_STEP = `digraph reviewed {
  label="Needs a reviewer"
  greet [type=function toolCode=template toolInput="{\\"template\\": \\"hello {{name}}\\", \\"values\\": {\\"name\\": \\"reviewer\\"}}"]
}`;

/** Line 3 has a misspelt type; line 4 calls a tool nobody registered. */
const BAD_PLAN = `digraph bad {
  a [type=function toolCode=echo toolInput="hi"]
  b [type=fucntion toolCode=echo]
  c [type=function toolCode=no_such_tool]
  a -> b -> c
}`;

const TOOLS = ['list_templates', 'validate_plan', 'create_plan', 'list_plans', 'show_plan', 'list_inbox', 'answer_question', 'approve_review', 'reject_review'];

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}
interface Diagnostic {
  code: string;
  severity: string;
  message: string;
  node?: string;
  attribute?: string;
  line?: number;
  fix?: string;
}
interface PlanView {
  id: string;
  status: string;
  nodes: Array<{ id: string; type: string; status: string; output?: string; answer?: string }>;
  waitingFor: Array<{ for: string; node?: string }>;
  result: { answer?: string; outputs: Array<{ node: string; output?: string; answer?: string }> };
}
interface InboxItem {
  kind: 'question' | 'review';
  planId: string;
  nodeId?: string;
  question?: string;
  options?: string[];
  calls: string[];
}

function textOf(result: ToolResult): string {
  return result.content.map((c) => c.text ?? '').join('\n');
}

function stringEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(cleanEnv(extra))) if (value !== undefined) env[key] = value;
  return env;
}

describe(`dotplan mcp serve (${testBackend()})`, () => {
  let cwd: string;
  let url: string;
  let drop: (() => Promise<void>) | undefined;
  let client: Client;
  let serverLog = '';
  let worker: DotplanProcess | undefined;

  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolResult> =>
    (await client.callTool({ name, arguments: args })) as unknown as ToolResult;

  const showPlan = async (planId: string): Promise<PlanView> => {
    const result = await call('show_plan', { planId });
    expect(result.isError, textOf(result)).toBeFalsy();
    return result.structuredContent as unknown as PlanView;
  };

  /** Polls show_plan until the plan is in `status` (deadline: 30 s), as a model following a plan would. */
  const planReaches = (planId: string, status: string): Promise<PlanView> =>
    waitUntil(
      async () => {
        const plan = await showPlan(planId);
        return plan.status === status && plan;
      },
      `plan ${planId} to be ${status} (server log: ${serverLog})`,
      30_000,
      100,
    );

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-mcp-'));
    ({ url, drop } = await testDatabase(cwd));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [DOTPLAN_BIN, 'mcp', 'serve', '--db', url, '--by', BY],
      cwd,
      env: stringEnv(),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (serverLog += chunk.toString('utf8')));
    client = new Client({ name: 'dotplan-test', version: '1.0.0' });
    // The server opens (and makes) the database before it answers, so the worker below finds it made.
    await client.connect(transport);
    worker = spawnDotplan(['worker', '--db', url], { cwd, timeoutMs: 300_000 });
  });

  afterAll(async () => {
    await client?.close();
    worker?.kill('SIGTERM');
    await worker?.exited;
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('lists its tools, each with a description for a model and an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(120);
      expect(tool.inputSchema.type, tool.name).toBe('object');
    }
    const create = tools.find((t) => t.name === 'create_plan')!;
    expect(Object.keys(create.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['template', 'values', 'dot', 'goal', 'title', 'review']));
    expect(create.description).toContain('Example');
    const answer = tools.find((t) => t.name === 'answer_question')!;
    expect(answer.inputSchema.required).toEqual(expect.arrayContaining(['planId', 'nodeId', 'answer']));
    expect(JSON.stringify(answer.inputSchema.properties)).toContain('one of the options');

    const templates = await call('list_templates');
    const approval = (templates.structuredContent?.templates as Array<{ name: string; params: Array<{ name: string; required: boolean }> }>).find(
      (t) => t.name === 'approval',
    );
    expect(approval?.params).toContainEqual({ name: 'item', required: true });
    expect(textOf(templates)).toContain('item (required)');
  });

  it('validates a bad plan: a result that says invalid, each diagnostic with its line, node, attribute and fix (not an isError)', async () => {
    const result = await call('validate_plan', { dot: BAD_PLAN });
    expect(result.isError).toBeFalsy();
    const { valid, diagnostics } = result.structuredContent as { valid: boolean; diagnostics: Diagnostic[] };
    expect(valid).toBe(false);
    const type = diagnostics.find((d) => d.code === 'TYPE_UNKNOWN');
    expect(type).toMatchObject({ severity: 'error', node: 'b', attribute: 'type', line: 3 });
    expect(type?.fix).toContain('"function"');
    expect(diagnostics.find((d) => d.code === 'TOOL_UNKNOWN')).toMatchObject({ node: 'c', attribute: 'toolCode', line: 4 });
    const text = textOf(result);
    expect(text).toMatch(/^NOT valid: 2 errors/);
    expect(text).toContain('line 3: error TYPE_UNKNOWN');
    expect(text).toContain('Fix: did you mean "function"?');

    const good = await call('validate_plan', { dot: QUESTION_PLAN });
    expect(good.structuredContent).toMatchObject({ valid: true, errors: 0 });
    expect(textOf(good)).toMatch(/^valid/);
  });

  it('creates a plan from DOT; its question shows in the inbox with its options; answered, the worker runs it to completion', async () => {
    const created = await call('create_plan', { dot: QUESTION_PLAN });
    expect(created.isError, textOf(created)).toBeFalsy();
    const { id, status } = created.structuredContent as { id: string; status: string };
    expect(id).toMatch(/^p_/);
    expect(status).toBe('running');
    expect(textOf(created)).toContain(`created plan ${id} "Ship version 2"`);

    // The worker process moves the confirm node to awaiting_input; the inbox shows it with its options.
    const question = await waitUntil(
      async () => {
        const inbox = await call('list_inbox', { planId: id });
        return (inbox.structuredContent?.items as InboxItem[]).find((i) => i.kind === 'question' && i.nodeId === 'ask') && inbox;
      },
      `the question of plan ${id} in the inbox (server log: ${serverLog})`,
      30_000,
      100,
    );
    const item = (question.structuredContent?.items as InboxItem[])[0]!;
    expect(item).toMatchObject({ planId: id, nodeId: 'ask', question: 'Ship version 2 now?', options: ['yes', 'no'] });
    expect(item.calls[0]).toBe(`answer_question {"planId":"${id}","nodeId":"ask","answer":"yes"}`);
    expect(textOf(question)).toContain('options: yes, no');
    const waiting = await showPlan(id);
    expect(waiting.waitingFor).toContainEqual(expect.objectContaining({ for: 'answer', node: 'ask' }));
    expect(waiting.nodes.map((n) => [n.id, n.type, n.status])).toEqual([
      ['ask', 'confirm', 'awaiting_input'],
      ['ship', 'function', 'pending'],
    ]);

    // An answer outside the options is refused with the list; the node keeps waiting.
    const wrong = await call('answer_question', { planId: id, nodeId: 'ask', answer: 'maybe' });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toContain('yes');

    const answered = await call('answer_question', { planId: id, nodeId: 'ask', answer: 'Yes' });
    expect(answered.isError, textOf(answered)).toBeFalsy();
    expect(answered.structuredContent).toMatchObject({ nodeStatus: 'done', by: BY });

    const done = await planReaches(id, 'completed');
    expect(done.nodes.find((n) => n.id === 'ask')).toMatchObject({ status: 'done', answer: 'yes' });
    expect(done.result.outputs).toEqual([{ node: 'ship', output: 'shipping after yes' }]);
    const text = textOf(await call('show_plan', { planId: id }));
    expect(text).toContain(`plan ${id} "Ship version 2": completed`);
    expect(text).toContain('- ship [function] done — output: shipping after yes');
    expect(text).toContain('result (end nodes):\n- ship: shipping after yes');

    // The answer is recorded as the person the server was started as (--by).
    const events = await runDotplanProcess(['plan', 'events', id, '--json', '--db', url], { cwd });
    expect(events.code, events.stderr).toBe(0);
    const log = JSON.parse(events.stdout) as Array<{ nodeId?: string; driver: string; actor?: string; to: string }>;
    expect(log).toContainEqual(expect.objectContaining({ nodeId: 'ask', driver: 'person', actor: BY, to: 'done' }));
  });

  it('creates a plan that waits for review; approved through the tool, it runs to completion', async () => {
    const created = await call('create_plan', { dot: ONE_STEP, review: true });
    const { id, status } = created.structuredContent as { id: string; status: string };
    expect(status).toBe('awaiting_review');
    expect(textOf(created)).toContain('approve_review');

    const inbox = await call('list_inbox');
    const review = (inbox.structuredContent?.items as InboxItem[]).find((i) => i.planId === id);
    expect(review).toMatchObject({ kind: 'review', planId: id });
    expect(review?.calls[0]).toBe(`approve_review {"planId":"${id}"}`);
    expect((await showPlan(id)).waitingFor).toContainEqual(expect.objectContaining({ for: 'review' }));

    const approved = await call('approve_review', { planId: id, reason: 'checked over MCP' });
    expect(approved.isError, textOf(approved)).toBeFalsy();
    expect(approved.structuredContent).toMatchObject({ planId: id, status: 'running', by: BY });

    const done = await planReaches(id, 'completed');
    expect(done.result.outputs).toEqual([{ node: 'greet', output: 'hello reviewer' }]);

    // Approving again: the plan no longer waits for review — a refusal saying so, not a crash.
    const again = await call('approve_review', { planId: id });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/review/);
  });

  it('rejects through the tool: the plan ends rejected and nothing of it runs', async () => {
    const created = await call('create_plan', { template: 'approval', values: { item: 'a new laptop' }, review: true });
    const { id } = created.structuredContent as { id: string };
    const rejected = await call('reject_review', { planId: id, reason: 'no budget this quarter' });
    expect(rejected.structuredContent).toMatchObject({ status: 'rejected' });
    const plan = await showPlan(id);
    expect(plan.status).toBe('rejected');
    expect(plan.nodes.every((n) => n.status !== 'done')).toBe(true);
  });

  it('returns user errors as isError results with the message and the fix, and keeps serving', async () => {
    const unknown = await call('show_plan', { planId: 'p_does_not_exist' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('"p_does_not_exist" not found');
    expect(textOf(unknown)).toContain('list_plans');
    expect(textOf(unknown)).not.toMatch(/\n\s+at /);
    expect(unknown.structuredContent).toMatchObject({ error: { code: 'NOT_FOUND' } });

    const answer = await call('answer_question', { planId: 'p_does_not_exist', nodeId: 'ask', answer: 'yes' });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain('not found');

    // An invalid plan given to create_plan: refused with every diagnostic, nothing stored.
    const before = ((await call('list_plans', { limit: 500 })).structuredContent?.plans as unknown[]).length;
    const invalid = await call('create_plan', { dot: BAD_PLAN });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('nothing was stored');
    expect(textOf(invalid)).toContain('line 3: error TYPE_UNKNOWN');
    expect((invalid.structuredContent?.error as { diagnostics: Diagnostic[] }).diagnostics.map((d) => d.code)).toEqual(
      expect.arrayContaining(['TYPE_UNKNOWN', 'TOOL_UNKNOWN']),
    );
    expect(((await call('list_plans', { limit: 500 })).structuredContent?.plans as unknown[]).length).toBe(before);

    const both = await call('create_plan', { template: 'approval', dot: QUESTION_PLAN });
    expect(both.isError).toBe(true);
    expect(textOf(both)).toContain('exactly one of');
    const missing = await call('create_plan', { template: 'approval' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('item');

    // Still serving: the next calls work.
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(TOOLS.length);
    const plans = await call('list_plans');
    expect(plans.isError).toBeFalsy();
    expect(textOf(plans)).toContain('newest first');
  });
});

describe('dotplan mcp serve, the process', () => {
  let cwd: string;
  let url: string;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-mcp-proc-'));
    ({ url, drop } = await testDatabase(cwd));
  });
  afterAll(async () => {
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** The server with raw pipes: JSON-RPC lines written to its stdin, its stdout and stderr read whole. */
  const start = () => {
    const child = spawn(process.execPath, [DOTPLAN_BIN, 'mcp', 'serve', '--db', url], { cwd, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => {
        clearTimeout(killer);
        resolve({ code, signal });
      }),
    );
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const initialize = async () => {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      await waitUntil(() => stdout.includes('"id":1'), `the initialize response (stderr: ${stderr})`);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_plans', arguments: {} } });
      await waitUntil(() => stdout.includes('"id":2'), `the tools/call response (stderr: ${stderr})`);
    };
    return { child, exited, initialize, stdout: () => stdout, stderr: () => stderr };
  };

  /** Every line on stdout is a JSON-RPC message: nothing else writes there. */
  const onlyProtocol = (stdout: string) => {
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe('2.0');
  };

  it('ends with exit 0 when its client closes stdin, having written only protocol messages to stdout', async () => {
    const server = start();
    await server.initialize();
    expect(server.stdout()).toContain('no plans');
    server.child.stdin.end();
    const { code } = await server.exited;
    expect(code, server.stderr()).toBe(0);
    onlyProtocol(server.stdout());
    expect(server.stderr()).toContain('dotplan mcp serve on stdio');
    expect(server.stderr()).not.toMatch(/\n\s+at /);
  });

  it('stops cleanly on SIGTERM', async () => {
    const server = start();
    await server.initialize();
    server.child.kill('SIGTERM');
    const { code } = await server.exited;
    expect(code, server.stderr()).toBe(0);
    expect(server.stderr()).toContain('SIGTERM: stopping');
    onlyProtocol(server.stdout());
  });
});
