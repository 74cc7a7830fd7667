/**
 * dotplan as an MCP server over streamable HTTP: `/mcp` of a listening `dotplan serve` (on
 * 127.0.0.1, port 0), spoken to by the SDK's own client (`Client` + `StreamableHTTPClientTransport`)
 * with a bearer token, beside a worker on the same database. The same tools as over stdio, behind the
 * API's tokens: a read token reads but is refused the commands (naming the scope), the actor is the
 * token's name, no token is a 401, a page from another origin a 403; the 2025 protocol and the
 * 2026-07-28 one both work, and a client goes on across a restart of the server (stateless).
 */
import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/http/server.js';
import type { Worker } from '../../src/worker/worker.js';
import { openTestDotplan, type TestDotplan } from '../api/open.js';
import { testBackend } from '../support/db.js';
import { waitUntil } from '../support/wait.js';

const TOOLS = ['list_templates', 'validate_plan', 'create_plan', 'list_plans', 'show_plan', 'list_inbox', 'answer_question', 'approve_review', 'reject_review'];

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}
interface PlanView {
  id: string;
  status: string;
  nodes: Array<{ id: string; status: string; answer?: string; output?: string }>;
  result: { outputs: Array<{ node: string; output?: string; answer?: string }> };
}
interface InboxItem {
  kind: string;
  planId: string;
  nodeId?: string;
  options?: string[];
}

function textOf(result: ToolResult): string {
  return result.content.map((c) => c.text ?? '').join('\n');
}

describe(`dotplan serve: MCP over streamable HTTP at /mcp (${testBackend()})`, () => {
  let t: TestDotplan;
  let server: RunningServer;
  let worker: Worker;
  let operate: string;
  let read: string;
  const serverLog: string[] = [];
  const clients: Client[] = [];

  const start = () => listen(t.dotplan, { host: '127.0.0.1', port: 0 }, { ui: false, rateLimit: 0, logError: (e) => serverLog.push(String(e)) });

  /** A client of `/mcp` with `token` as its bearer (none: no Authorization header). */
  const connect = async (token: string | undefined, options: ClientOptions = {}): Promise<Client> => {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
      requestInit: { headers: token !== undefined ? { authorization: `Bearer ${token}` } : {} },
    });
    const client = new Client({ name: 'dotplan-http-test', version: '1.0.0' }, options);
    await client.connect(transport);
    clients.push(client);
    return client;
  };

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> =>
    (await client.callTool({ name, arguments: args })) as unknown as ToolResult;

  /** A raw request to `/mcp`, as a program or a browser page would send it. */
  const post = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(new URL('/mcp', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

  beforeAll(async () => {
    // A small DOT limit, so that a body over the limit (limits.maxDotBytes + 1 MiB) is quick to send.
    t = await openTestDotplan({ config: { limits: { maxDotBytes: 100_000 } } });
    operate = (await t.dotplan.tokens.create({ name: 'assistant', scope: 'operate', by: 'test' })).secret;
    read = (await t.dotplan.tokens.create({ name: 'reader', scope: 'read', by: 'test' })).secret;
    server = await start();
    // The MCP server stores and steers plans; this worker on the same database runs their nodes.
    worker = t.dotplan.worker();
    worker.start();
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await worker?.stop();
    await server?.stop();
    await t?.cleanup();
  });

  it('lists the same tools as over stdio, each with its input schema', async () => {
    const client = await connect(operate);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) expect(tool.inputSchema.type, tool.name).toBe('object');
    expect(client.getServerVersion()?.name).toBe('dotplan');
  });

  it('creates a plan from a template, shows its question, takes the answer and reads the result, recording the token as the actor', async () => {
    const client = await connect(operate);
    const created = await call(client, 'create_plan', { template: 'approval', values: { item: 'a new laptop' } });
    expect(created.isError, textOf(created)).toBeFalsy();
    const { id, status } = created.structuredContent as { id: string; status: string };
    expect(status).toBe('running');

    // The worker runs `request` and stops at the `approve` question; the inbox shows it.
    const item = await waitUntil(
      async () => {
        const inbox = await call(client, 'list_inbox', { planId: id });
        return (inbox.structuredContent?.items as InboxItem[]).find((i) => i.kind === 'question' && i.nodeId === 'approve');
      },
      `the question of plan ${id} in the inbox (server log: ${serverLog.join('\n')})`,
      30_000,
      100,
    );
    expect(item.planId).toBe(id);

    const answered = await call(client, 'answer_question', { planId: id, nodeId: 'approve', answer: 'yes' });
    expect(answered.isError, textOf(answered)).toBeFalsy();
    expect(answered.structuredContent).toMatchObject({ nodeStatus: 'done', by: 'assistant' });

    const done = await waitUntil(
      async () => {
        const plan = (await call(client, 'show_plan', { planId: id })).structuredContent as unknown as PlanView;
        return plan.status === 'completed' && plan;
      },
      `plan ${id} to complete (server log: ${serverLog.join('\n')})`,
      30_000,
      100,
    );
    expect(done.nodes.find((n) => n.id === 'approve')).toMatchObject({ status: 'done', answer: 'yes' });
    expect(done.nodes.find((n) => n.id === 'rejected')?.status).toBe('skipped');
    expect(done.result.outputs.map((o) => o.node)).toEqual(['notify']);
    expect(done.result.outputs[0]?.output).toContain('a new laptop');

    // The plan and the answer are the token's, as over the API.
    const events = await t.dotplan.events.list({ planId: id });
    expect(events.filter((e) => e.kind === 'answer').map((e) => e.actor)).toEqual(['assistant']);
    expect(events.find((e) => e.kind !== 'answer' && e.actor !== undefined)?.actor).toBe('assistant');
  });

  it('lets a read token read, and refuses it the commands with a result naming the scope each needs', async () => {
    const client = await connect(read);
    const plans = await call(client, 'list_plans');
    expect(plans.isError, textOf(plans)).toBeFalsy();
    const before = (plans.structuredContent?.plans as unknown[]).length;
    expect(before).toBeGreaterThan(0);
    expect((await call(client, 'validate_plan', { dot: 'digraph g { a [type=function toolCode=echo toolInput="hi"] }' })).structuredContent).toMatchObject({
      valid: true,
    });

    const create = await call(client, 'create_plan', { template: 'approval', values: { item: 'a boat' } });
    expect(create.isError).toBe(true);
    expect(textOf(create)).toContain("create_plan needs the 'operate' scope; the token 'reader' has 'read'");
    expect(create.structuredContent).toMatchObject({ error: { code: 'FORBIDDEN', scope: 'operate' } });

    const answer = await call(client, 'answer_question', { planId: 'p_any', nodeId: 'approve', answer: 'yes' });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain("needs the 'answer' scope");
    const reject = await call(client, 'reject_review', { planId: 'p_any', reason: 'no' });
    expect(textOf(reject)).toContain("needs the 'answer' scope");

    expect(((await call(client, 'list_plans')).structuredContent?.plans as unknown[]).length).toBe(before);
  });

  it('answers 401 without a token or with one it does not know, before any MCP is spoken', async () => {
    const none = await post(listTools);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await none.body?.cancel();
    const unknown = await post(listTools, { authorization: 'Bearer dp_not-a-token' });
    expect(unknown.status).toBe(401);
    await unknown.body?.cancel();
    await expect(connect(undefined)).rejects.toThrow(/401|nauthorized/);
  });

  it('refuses a page from another origin (403) and a body that is not JSON (415), as the API does', async () => {
    const cross = await post(listTools, { authorization: `Bearer ${operate}`, origin: 'http://evil.example' });
    expect(cross.status).toBe(403);
    await cross.body?.cancel();
    const form = await post('a=1', { authorization: `Bearer ${operate}`, 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    await form.body?.cancel();
    // The server's own origin (a page it serves) is let through.
    const own = await post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      { authorization: `Bearer ${operate}`, origin: server.url },
    );
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  it('answers 413 to a body over the API limit, before parsing it', async () => {
    const limit = t.dotplan.config.limits.maxDotBytes + (1 << 20);
    const big = 'x'.repeat(limit + 1);
    const response = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_plan', arguments: { dot: big } } },
      {
        authorization: `Bearer ${operate}`,
      },
    );
    expect(response.status).toBe(413);
    expect(await response.text()).toContain(`must not exceed ${limit} bytes`);
  });

  it('serves the 2026-07-28 protocol too (a client that negotiates), with the same scopes', async () => {
    const client = await connect(read, { versionNegotiation: { mode: 'auto' } });
    expect(client.getProtocolEra()).toBe('modern');
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(TOOLS.length);
    const refused = await call(client, 'create_plan', { dot: 'digraph g { a [type=function toolCode=echo toolInput="hi"] }' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("needs the 'operate' scope");
  });

  it('keeps no session: a client goes on after the server is stopped and started again on the same port', async () => {
    const client = await connect(operate);
    expect((await call(client, 'list_plans')).isError).toBeFalsy();
    const port = new URL(server.url).port;
    await server.stop();
    server = await listen(t.dotplan, { host: '127.0.0.1', port: Number(port) }, { ui: false, rateLimit: 0 });
    // The keep-alive connection the stop closed may fail the first call (the client's pool may not have seen it
    // close yet); a server with sessions would refuse every later call too (its session died with it).
    const plans = await call(client, 'list_plans').catch((error: unknown) => {
      expect(String((error as { cause?: unknown }).cause ?? error)).toMatch(/other side closed|ECONNRESET|socket/i);
      return call(client, 'list_plans');
    });
    expect(plans.isError, textOf(plans)).toBeFalsy();
    expect(textOf(plans)).toContain('newest first');
  });
});

describe(`dotplan serve: /mcp while no token exists (${testBackend()})`, () => {
  let t: TestDotplan;
  let server: RunningServer;
  beforeAll(async () => {
    t = await openTestDotplan();
    server = await listen(t.dotplan, { host: '127.0.0.1', port: 0 }, { ui: false, rateLimit: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await t?.cleanup();
  });

  it('serves the local user on a loopback address, as the actor "local", with operate scope', async () => {
    const client = new Client({ name: 'dotplan-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url)));
    try {
      const created = (await client.callTool({
        name: 'create_plan',
        arguments: { dot: 'digraph g { ask [type=confirm question="Go?"] }' },
      })) as unknown as ToolResult;
      expect(created.isError, textOf(created)).toBeFalsy();
      const { id } = created.structuredContent as { id: string };
      const events = await t.dotplan.events.list({ planId: id });
      expect(events.map((e) => e.actor)).toContain('local');
    } finally {
      await client.close();
    }
  });

  it('refuses a request addressed to another name (a DNS-rebinding page) with 421', async () => {
    const response = await server.api.app.request('/mcp', {
      method: 'POST',
      headers: {
        host: 'evil.example:8370',
        origin: 'http://evil.example:8370',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(421);
  });
});
