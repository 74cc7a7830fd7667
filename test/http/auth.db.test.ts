/**
 * Who may do what over HTTP: no token → 401 once tokens exist; a scope too small → 403 on every
 * command route (read < answer < operate); the token's name is the actor in the audit log; requests a
 * browser on another site could send are refused; a token that floods is slowed with 429.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApi, problemOf, runUntilIdle, type ApiUnderTest } from './client.js';

const ASK = 'digraph g { ask [type=confirm status=pending question="Go?"] }';

describe('without any token (a server on this machine only)', () => {
  let s: ApiUnderTest;
  beforeAll(async () => (s = await openApi()));
  afterAll(() => s?.close());

  it('serves the local user on a loopback Host, as the actor "local"', async () => {
    const created = await s.call('POST', '/v1/plans', { body: { dot: ASK } });
    expect(created.status).toBe(201);
    const plan = (await created.json()) as { id: string };
    const events = (await (await s.call('GET', `/v1/plans/${plan.id}/events`)).json()) as Array<{ actor?: string }>;
    expect(events.some((e) => e.actor === 'local')).toBe(true);
  });

  it('refuses a request addressed to another name (a DNS-rebinding page)', async () => {
    const response = await s.call('GET', '/v1/plans', { headers: { host: 'evil.example:8370' } });
    expect(response.status).toBe(421);
  });
});

describe('with tokens', () => {
  let s: ApiUnderTest;
  let planId: string;
  let routes: Array<{ method: string; path: string }>;
  beforeAll(async () => {
    s = await openApi({ rateLimit: 0 });
    const operate = await s.token('operate');
    planId = ((await (await s.call('POST', '/v1/plans', { token: operate, body: { dot: ASK } })).json()) as { id: string }).id;
    await runUntilIdle(s.t.dotplan);
    const doc = (await (await s.call('GET', '/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));
  });
  afterAll(() => s?.close());

  const concrete = (path: string) => path.replace('{planId}', planId).replace('{nodeId}', 'ask').replace('{revision}', '1');

  it('answers 401 with a WWW-Authenticate header to a request without a token, on every /v1 route', async () => {
    // The login itself is the one route a request without a token may use (it asks for one in its body).
    for (const route of routes.filter((r) => r.path.startsWith('/v1') && !(r.method === 'POST' && r.path === '/v1/session'))) {
      const response = await s.call(route.method, concrete(route.path), route.method === 'POST' ? { body: {} } : {});
      expect(response.status, `${route.method} ${route.path}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      await response.body?.cancel();
    }
  });

  it('answers 401 to a token it does not know', async () => {
    const response = await s.call('GET', '/v1/plans', { token: 'dp_not-a-token' });
    expect((await problemOf(response)).code).toBe('UNAUTHORIZED');
  });

  it('refuses every command to a read token (403), and person moves stay closed to it too', async () => {
    const read = await s.token('read');
    // Reading a DOT text (validate, render) and the session's own login and logout are open to every scope.
    const commands = routes.filter((r) => r.method === 'POST' && !['/v1/validate', '/v1/render', '/v1/session', '/v1/session/logout'].includes(r.path));
    expect(commands.length).toBeGreaterThan(10);
    for (const route of commands) {
      const response = await s.call('POST', concrete(route.path), { token: read, body: {} });
      const body = await problemOf(response);
      expect(response.status, `${route.path}: ${body.detail}`).toBe(403);
      expect(body.detail).toContain("'read'");
    }
    expect((await s.t.dotplan.node(planId, 'ask')).status).toBe('awaiting_input');
  });

  it('lets an answer token answer but not cancel, retry or edit; an operate token cancels', async () => {
    const answer = await s.token('answer');
    for (const path of [`/v1/plans/${planId}/cancel`, `/v1/plans/${planId}/nodes/ask/skip`, `/v1/plans/${planId}/revisions`]) {
      expect((await s.call('POST', path, { token: answer, body: {} })).status, path).toBe(403);
    }
    const answered = await s.call('POST', `/v1/plans/${planId}/nodes/ask/answer`, { token: answer, body: { text: 'yes' } });
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { answer?: string }).answer).toBe('yes');
    const events = await s.t.dotplan.events.list({ planId, kind: 'answer' });
    expect(events.map((e) => e.actor)).toEqual(['answer']);
  });

  it('reads with a read token, and lists no secret anywhere', async () => {
    const read = await s.token('read');
    const response = await s.call('GET', `/v1/plans/${planId}`, { token: read });
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).not.toContain(read);
  });

  it('refuses a command from another origin, and a form post (no CORS pre-flight) before reading it', async () => {
    const operate = await s.token('operate');
    const cross = await s.call('POST', `/v1/plans/${planId}/pause`, { token: operate, body: {}, headers: { origin: 'https://evil.example' } });
    expect(cross.status).toBe(403);
    const form = await s.call('POST', `/v1/plans/${planId}/pause`, {
      token: operate,
      body: 'reason=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect((await s.t.dotplan.plan(planId)).status).not.toBe('paused');
  });
});

describe('rate limit', () => {
  let s: ApiUnderTest;
  beforeAll(async () => (s = await openApi({ rateLimit: 3 })));
  afterAll(() => s?.close());

  it('answers 429 with Retry-After past the limit, per token', async () => {
    const read = await s.token('read');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await s.call('GET', '/v1/plans', { token: read })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await s.call('GET', '/v1/plans', { token: read });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await s.call('GET', '/v1/plans', { token: await s.token('operate') })).status).toBe(200);
  });
});
