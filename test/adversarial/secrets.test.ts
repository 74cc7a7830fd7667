/**
 * Issue 14, cases 9, 10 and 15 (b): no redirect or secret leaks. The http tool checks every redirect
 * hop against the allow-list and the private-address rule, never sends the plan's headers or body to
 * another host, and refuses loopback addresses unless `http.allowPrivate` says so. Values that came
 * from `env:` (a notifier URL with credentials, a header) and the OpenAI API key are stored redacted
 * even when a failing request or a remote side quotes them: not in `plan events`, `plan report`,
 * `plan calls`, the worker's console or any table. Real worker, real HTTP receivers on loopback,
 * the real `openai` client against the scripted server.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../../src/llm/scripted-server.js';
import { startReceiver, type Received, type Receiver, type Reply } from '../notify/receivers.js';
import { openWorkspace, workflow, type Workspace } from '../integration/workspace.js';

let ws: Workspace;
const receivers: Receiver[] = [];
const receiver = async (reply?: Reply | ((request: Received) => Reply)) => {
  const r = await startReceiver(reply);
  receivers.push(r);
  return r;
};
beforeEach(async () => {
  ws = await openWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
  for (const r of receivers.splice(0)) await r.close();
});

/** `127.0.0.1:<port>` of a receiver: an allow-list entry. */
const hostOf = (r: Receiver) => new URL(r.url).host;

/** A one-node plan calling the http tool with this input, no retries. */
const httpPlan = (input: Record<string, unknown>) =>
  workflow('call', { nodes: [`fetch [type=function toolCode=http retries=0 toolInput=${JSON.stringify(JSON.stringify(input))}]`] });

/** Runs the plan to its end with this http config; the fetch node's status and error. */
async function runHttp(http: Record<string, unknown>, input: Record<string, unknown>) {
  ws.write('dotplan.config.json', JSON.stringify({ http }));
  const planId = await ws.createPlan(httpPlan(input));
  const worker = await ws.dotplan(['worker', '--until-idle', '--quiet']);
  expect(worker.code, worker.stderr).toBe(0);
  const node = (await ws.nodes(planId)).get('fetch')!;
  return { planId, status: node.status, error: node.error ?? '', output: node.output };
}

/** Every row of a table as text, read straight from the database. */
async function tableText(table: 'events' | 'llm_calls' | 'nodes' | 'plans'): Promise<string> {
  if (ws.backend === 'postgres') {
    const client = new pg.Client({ connectionString: ws.url });
    await client.connect();
    try {
      return JSON.stringify((await client.query(`SELECT * FROM ${table}`)).rows);
    } finally {
      await client.end();
    }
  }
  const db = new Database(join(ws.dir, 'dotplan.db'), { readonly: true, fileMustExist: true });
  try {
    return JSON.stringify(db.prepare(`SELECT * FROM ${table}`).all());
  } finally {
    db.close();
  }
}

/** What a person or a program can see of a plan: its events, its report, its calls, every table. */
async function everythingShown(planId: string): Promise<string> {
  const shown = await Promise.all([
    ws.ok(['plan', 'events', planId]),
    ws.ok(['plan', 'events', planId, '--json']),
    ws.ok(['plan', 'report', planId]),
    ws.ok(['plan', 'report', planId, '--format', 'json']),
    ws.ok(['plan', 'calls', planId, '--json']),
    ws.ok(['plan', 'show', planId, '--format', 'json']),
    ...(['events', 'llm_calls', 'nodes', 'plans'] as const).map(tableText),
  ]);
  return shown.join('\n');
}

describe('case 9: the http tool and redirects', () => {
  it('refuses a redirect from an allowed host to one that is not allowed; the other host gets nothing', async () => {
    const outside = await receiver({ status: 200, body: '"secret data"' });
    const allowed = await receiver({ status: 302, headers: { location: `${outside.url}/loot` } });
    const result = await runHttp({ allowHosts: [hostOf(allowed)], allowPrivate: true }, { url: allowed.url });
    expect(result.status).toBe('failed');
    expect(result.error).toContain('node "fetch"');
    expect(result.error).toContain(`host "${hostOf(outside)}" is not in the allow-list`);
    expect(result.error).toContain(`redirected from ${allowed.url}`);
    expect(result.error).toContain('http.allowHosts');
    expect(allowed.received).toHaveLength(1);
    expect(outside.received).toHaveLength(0);
  }, 60_000);

  it('does not replay a POST body or x-api-key to another host on a 307, even an allowed one', async () => {
    const other = await receiver({ status: 200, body: '{"ok": true}' });
    const first = await receiver({ status: 307, headers: { location: other.url } });
    const result = await runHttp(
      { allowHosts: [hostOf(first), hostOf(other)], allowPrivate: true },
      { url: first.url, method: 'POST', headers: { 'x-api-key': 'KEY-307-abcdef' }, body: { card: '4111 1111 1111 1111' } },
    );
    expect(first.received[0]?.headers['x-api-key']).toBe('KEY-307-abcdef');
    expect(other.received).toHaveLength(0);
    expect(result.status).toBe('failed');
    expect(result.error).toContain('was redirected (307)');
    expect(result.error).toContain('not replayed to another host');
  }, 60_000);

  it('follows a redirect to another allowed host without the headers the plan set', async () => {
    const other = await receiver({ status: 200, body: '{"landed": true}' });
    const first = await receiver({ status: 302, headers: { location: `${other.url}?page=2` } });
    const headers = { authorization: 'Bearer AUTH-302-abcdef', 'x-api-key': 'KEY-302-abcdef', cookie: 'session=COOKIE-302' };
    const result = await runHttp({ allowHosts: [hostOf(first), hostOf(other)], allowPrivate: true }, { url: first.url, headers });
    expect(result.status, result.error).toBe('done');
    expect(JSON.parse(result.output!)).toMatchObject({ status: 200, body: { landed: true } });
    expect(first.received[0]?.headers).toMatchObject(headers);
    expect(other.received).toHaveLength(1);
    const forwarded = other.received[0]!.headers;
    for (const name of Object.keys(headers)) expect(forwarded[name], name).toBeUndefined();
  }, 60_000);

  it('refuses loopback addresses (also IPv4-mapped IPv6) unless http.allowPrivate is set', async () => {
    const local = await receiver({ status: 200, body: '{"internal": true}' });
    const refused = await runHttp({ allowHosts: ['*'] }, { url: local.url });
    expect(refused.status).toBe('failed');
    expect(refused.error).toContain(`http: node "fetch": ${local.url}`);
    expect(refused.error).toContain('127.0.0.1, a loopback address');
    expect(refused.error).toContain('"http.allowPrivate": true');
    const port = new URL(local.url).port;
    const mapped = await runHttp({ allowHosts: ['*'] }, { url: `http://[::ffff:127.0.0.1]:${port}/hook` });
    expect(mapped.status).toBe('failed');
    expect(mapped.error).toContain('a loopback address (inside an IPv6 address)');
    expect(local.received).toHaveLength(0);

    const allowed = await runHttp({ allowHosts: [hostOf(local)], allowPrivate: true }, { url: local.url });
    expect(allowed.status, allowed.error).toBe('done');
    expect(local.received).toHaveLength(1);
  }, 60_000);
});

describe('case 10 and 15: secrets are stored redacted', () => {
  it('a notifier env: URL with credentials that fails appears nowhere: events, report, tables, console', async () => {
    const hook = await receiver({ status: 200, body: 'ok' });
    // A receiver that answers 500 quoting the URL it was called on, and the header it got.
    const quoting = await receiver((request) => ({
      status: 500,
      body: `cannot deliver to ${request.url.pathname}${request.url.search} with ${String(request.headers.authorization)}`,
    }));
    const withCredentials = hook.url.replace('http://', 'http://ops:PASS-w0rd-9f3k@');
    ws.write(
      'dotplan.config.json',
      JSON.stringify({
        notify: {
          targets: [
            { type: 'webhook', name: 'ops', url: 'env:OPS_HOOK' },
            { type: 'webhook', name: 'quoting', url: 'env:QUOTING_HOOK', headers: { authorization: 'env:QUOTING_AUTH' } },
          ],
          retries: 0,
        },
      }),
    );
    const env = { OPS_HOOK: withCredentials, QUOTING_HOOK: `${quoting.url}?token=TOKEN-q8Zx41`, QUOTING_AUTH: 'Bearer AUTH-h7Yp02' };
    const planId = await ws.createPlan(workflow('asks', { nodes: ['ok [type=confirm question="Go on?"]'] }));
    const worker = await ws.dotplan(['worker', '--until-idle'], { env });
    expect(worker.code, worker.stderr).toBe(0);

    const notices = (await ws.store.events.list(planId)).filter((e) => e.kind === 'notice');
    const failed = (name: string) => notices.find((e) => e.detail?.channel === name && e.detail?.ok === false)?.reason ?? '';
    // Both failed, and their events say why — without the secrets.
    expect(failed('ops')).toContain('question to ops (webhook) failed after 1 attempt');
    expect(failed('ops')).toContain('[redacted]');
    expect(failed('quoting')).toMatch(/answered 500 Internal Server Error: cannot deliver to \/hook\?token=\[redacted\] with \[redacted\]/);
    expect(quoting.received).toHaveLength(1);
    const shown = `${await everythingShown(planId)}\n${worker.stderr}\n${worker.stdout}`;
    for (const secret of ['PASS-w0rd-9f3k', 'TOKEN-q8Zx41', 'AUTH-h7Yp02']) expect(shown, secret).not.toContain(secret);
  }, 60_000);

  it('an LLM endpoint answering 401 with the API key is stored redacted: plan calls, the plan error, events, tables', async () => {
    const key = 'sk-test-KEY401-Zq9wXy7v';
    const server = await startScriptedServer({
      script: {
        replies: [{ status: 401, content: `Incorrect API key provided: ${key}. You can find your API key at https://example.invalid/keys.`, repeat: true }],
      },
    });
    try {
      const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: key, OPENAI_MODEL: 'scripted-model', DOTPLAN_MAX_REWRITE_ATTEMPTS: '1' };
      const created = JSON.parse(await ws.ok(['plan', 'create', '--goal', 'Summarise the quarter', '--json'], { env })) as { id: string };
      const worker = await ws.dotplan(['worker', '--until-idle'], { env });
      expect(worker.code, worker.stderr).toBe(0);
      expect(server.requests.length).toBeGreaterThan(0);
      const plan = await ws.store.plans.get(created.id);
      expect(plan.status).toBe('failed');
      expect(plan.error).toContain('Incorrect API key provided: [redacted]');
      const calls = await ws.store.llm.calls(created.id);
      expect(calls.length).toBeGreaterThan(0);
      expect(JSON.stringify(calls[0]!.diagnostics)).toContain('Incorrect API key provided: [redacted]');
      const shown = `${await everythingShown(created.id)}\n${worker.stderr}\n${worker.stdout}`;
      expect(shown).not.toContain(key);
    } finally {
      await server.close();
    }
  }, 60_000);
});
