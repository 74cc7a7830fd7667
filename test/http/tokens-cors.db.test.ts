/**
 * Tokens over HTTP are an admin's (make, list, revoke; the secret shown once); and CORS, off unless
 * configured: a configured origin's page may call the API with a token, any other origin may not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApi, problemOf, type ApiUnderTest } from './client.js';

describe('tokens over HTTP', () => {
  let s: ApiUnderTest;
  beforeAll(async () => (s = await openApi({ rateLimit: 0 })));
  afterAll(() => s?.close());

  it('lets an admin token make, list and revoke tokens, and nobody else', async () => {
    const admin = await s.token('admin');
    const operate = await s.token('operate');
    expect((await s.call('GET', '/v1/tokens', { token: operate })).status).toBe(403);
    expect((await s.call('POST', '/v1/tokens', { token: operate, body: { name: 'x', scope: 'read' } })).status).toBe(403);
    const made = await s.call('POST', '/v1/tokens', { token: admin, body: { name: 'ci-bot', scope: 'read' } });
    expect(made.status).toBe(201);
    expect(made.headers.get('cache-control')).toBe('no-store');
    const { secret, createdBy } = (await made.json()) as { secret: string; createdBy: string };
    expect(createdBy).toBe('admin');
    expect((await s.call('GET', '/v1/plans', { token: secret })).status).toBe(200);
    const listed = await (await s.call('GET', '/v1/tokens', { token: admin })).text();
    expect(listed).toContain('ci-bot');
    expect(listed).not.toContain(secret);
    expect((await problemOf(await s.call('POST', '/v1/tokens', { token: admin, body: { name: 'ci-bot', scope: 'read' } }))).status).toBe(409);
    expect((await s.call('POST', '/v1/tokens/ci-bot/revoke', { token: admin, body: {} })).status).toBe(200);
    expect((await s.call('GET', '/v1/plans', { token: secret })).status).toBe(401);
    expect((await problemOf(await s.call('POST', '/v1/tokens/ci-bot/revoke', { token: admin, body: {} }))).status).toBe(404);
  });
});

describe('CORS', () => {
  const page = 'https://ops.example.com';
  let s: ApiUnderTest;
  let planId: string;
  beforeAll(async () => {
    s = await openApi({ rateLimit: 0, corsOrigins: [page] });
    planId = (await s.t.dotplan.create({ dot: 'digraph g { a [type=confirm status=pending question="Go?"] }' })).id;
  });
  afterAll(() => s?.close());

  it('answers a configured origin’s pre-flight and requests, with a token', async () => {
    const token = await s.token('operate');
    const preflight = await s.call('OPTIONS', `/v1/plans/${planId}/pause`, {
      headers: { origin: page, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(page);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    const paused = await s.call('POST', `/v1/plans/${planId}/pause`, { token, body: {}, headers: { origin: page } });
    expect(paused.status).toBe(200);
    expect(paused.headers.get('access-control-allow-origin')).toBe(page);
  });

  it('gives another origin no CORS header and refuses its commands', async () => {
    const token = await s.token('operate');
    const other = await s.call('OPTIONS', `/v1/plans/${planId}/resume`, {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const refused = await s.call('POST', `/v1/plans/${planId}/resume`, { token, body: {}, headers: { origin: 'https://evil.example' } });
    expect(refused.status).toBe(403);
  });
});
