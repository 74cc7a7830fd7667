/**
 * The browser's login: a token exchanged for an HttpOnly, SameSite=Strict session cookie; a command
 * sent with the cookie but without the session's CSRF value is refused; revoking the token or logging
 * out ends the session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApi, problemOf, type ApiUnderTest } from './client.js';

const ASK = 'digraph g { ask [type=confirm status=pending question="Go?"] }';

let s: ApiUnderTest;
let planId: string;
beforeAll(async () => {
  s = await openApi({ rateLimit: 0 });
  planId = (await s.t.dotplan.create({ dot: ASK })).id;
});
afterAll(() => s?.close());

async function login(token: string): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const response = await s.call('POST', '/v1/session', { body: { token } });
  expect(response.status).toBe(200);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const { csrf } = (await response.json()) as { csrf: string };
  return { cookie: setCookie.split(';')[0]!, csrf, setCookie };
}

describe('browser sessions', () => {
  it('refuses a login with a token it does not know', async () => {
    await s.token('read');
    expect((await problemOf(await s.call('POST', '/v1/session', { body: { token: 'dp_nope' } }))).status).toBe(401);
  });

  it('sets an HttpOnly, SameSite=Strict cookie that reads as the token, never holding the token', async () => {
    const token = await s.token('operate');
    const { cookie, csrf, setCookie } = await login(token);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).not.toContain(token);
    const me = (await (await s.call('GET', '/v1/session', { headers: { cookie } })).json()) as { name: string; scope: string; csrf: string };
    expect(me).toEqual({ name: 'operate', scope: 'operate', local: false, csrf });
    expect((await s.call('GET', `/v1/plans/${planId}`, { headers: { cookie } })).status).toBe(200);
  });

  it('refuses a command sent with the cookie but without its CSRF value, and takes it with the value', async () => {
    const { cookie, csrf } = await login(await s.token('operate'));
    const without = await problemOf(await s.call('POST', `/v1/plans/${planId}/pause`, { body: {}, headers: { cookie } }));
    expect(without.status).toBe(403);
    expect(without.detail).toContain('x-csrf-token');
    const wrong = await s.call('POST', `/v1/plans/${planId}/pause`, { body: {}, headers: { cookie, 'x-csrf-token': 'guess' } });
    expect(wrong.status).toBe(403);
    expect((await s.t.dotplan.plan(planId)).status).toBe('running');
    const right = await s.call('POST', `/v1/plans/${planId}/pause`, { body: {}, headers: { cookie, 'x-csrf-token': csrf } });
    expect(right.status).toBe(200);
    expect((await s.t.dotplan.plan(planId)).status).toBe('paused');
  });

  it('ends the session when its token is revoked, and on logout', async () => {
    const made = await s.t.dotplan.tokens.create({ name: 'brief', scope: 'read', by: 'test' });
    const first = await login(made.secret);
    await s.t.dotplan.tokens.revoke('brief');
    expect((await s.call('GET', '/v1/plans', { headers: { cookie: first.cookie } })).status).toBe(401);
    const second = await login(await s.token('read'));
    const out = await s.call('POST', '/v1/session/logout', { body: {}, headers: { cookie: second.cookie, 'x-csrf-token': second.csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/dotplan_session=;/);
    expect((await s.call('GET', '/v1/plans', { headers: { cookie: second.cookie } })).status).toBe(401);
  });
});
