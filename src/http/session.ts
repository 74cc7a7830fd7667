import { randomBytes } from 'node:crypto';
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { SESSION_COOKIE, SESSION_TTL_MS, sha256 } from './session-cookie.js';
import type { Dotplan } from '../operations/dotplan.js';
import type { HttpEnv } from './auth.js';
import { addEndpoint } from './endpoint.js';
import { problem, sendProblem } from './problem.js';
import { ProblemSchema } from './schemas.js';

/**
 * The browser's way in: `EventSource` cannot send a bearer header, so a login exchanges a token for a
 * session — a random id in an HttpOnly, SameSite=Strict cookie, only its SHA-256 stored, valid while
 * its token is live and for 12 hours at most. A command sent with the cookie must carry the session's
 * CSRF value in `X-CSRF-Token` (auth.ts checks it).
 */
const SessionSchema = z
  .object({
    name: z.string(),
    scope: z.string(),
    local: z.boolean(),
    csrf: z.string().openapi({ description: 'Send it as X-CSRF-Token with every command made with the cookie.' }),
  })
  .openapi('Session');

/** `POST /v1/session` (login, before authentication), registered ahead of the auth middleware. */
export function loginRoute(app: OpenAPIHono<HttpEnv>, dotplan: Dotplan): void {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/v1/session',
    tags: ['session'],
    summary: 'Log a browser in: exchange a token for a session cookie (HttpOnly, SameSite=Strict)',
    security: [],
    request: { body: { required: true, content: { 'application/json': { schema: z.object({ token: z.string() }) } } } },
    responses: {
      200: { description: 'Logged in; the cookie is set.', content: { 'application/json': { schema: SessionSchema } } },
      401: { description: 'Not a live token.', content: { 'application/problem+json': { schema: ProblemSchema } } },
    },
  });
  app.post('/v1/session', async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as { token?: unknown } | undefined;
    const secret = typeof body?.token === 'string' ? body.token : '';
    const token = secret ? await dotplan.tokens.verify(secret) : undefined;
    if (!token) return sendProblem(c, problem(401, 'UNAUTHORIZED', 'That is not a live token of this server; make one with `dotplan token create`.'));
    const id = randomBytes(32).toString('base64url');
    const csrf = randomBytes(24).toString('base64url');
    const opened = await dotplan.store.sessions.open({ idSha256: sha256(id), secretSha256: sha256(secret), csrf, ttlMs: SESSION_TTL_MS });
    if (!opened) return sendProblem(c, problem(401, 'UNAUTHORIZED', 'The token was revoked meanwhile.'));
    setCookie(c, SESSION_COOKIE, id, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: SESSION_TTL_MS / 1000,
      secure: new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https',
    });
    return c.json({ name: token.name, scope: token.scope, local: false, csrf });
  });
}

/** `GET /v1/session` (who am I, and the CSRF value) and `POST /v1/session/logout`. */
export function sessionRoutes(app: OpenAPIHono<HttpEnv>, dotplan: Dotplan): void {
  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/session',
      scope: 'read',
      tag: 'session',
      summary: 'Who the request is, and the CSRF value of its session',
      ok: { description: 'The session.', schema: SessionSchema },
    },
    async ({ principal }) => ({ name: principal.name, scope: principal.scope, local: principal.local, csrf: principal.csrf ?? '' }),
  );
  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/session/logout',
      scope: 'read',
      tag: 'session',
      summary: 'End the browser session (the cookie is cleared)',
      ok: { description: 'Logged out.', schema: z.object({ ok: z.boolean() }) },
    },
    async ({ c }) => {
      const id = getCookie(c, SESSION_COOKIE);
      if (id !== undefined) await dotplan.store.sessions.close(sha256(id));
      deleteCookie(c, SESSION_COOKIE, { path: '/' });
      return { ok: true };
    },
  );
}
