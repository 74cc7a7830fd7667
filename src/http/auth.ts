import type { MiddlewareHandler } from 'hono';
import type { Dotplan } from '../operations/dotplan.js';
import { scopeAllows, type TokenScope } from '../operations/tokens.js';
import { problem, sendProblem } from './problem.js';
import { CSRF_HEADER, sessionOf } from './session-cookie.js';

/**
 * Who a request is: a token's name and scope, or — while no token exists at all — the local user on
 * a loopback address, with `operate` scope (what the CLI on the same machine may do). The token's
 * name is the actor of the events its commands make.
 */
export interface Principal {
  name: string;
  scope: TokenScope;
  /** True for the local user of a server that has no tokens yet. */
  local: boolean;
  /** A browser session's CSRF value (the request came with the session cookie). */
  csrf?: string;
}

/** What a request carries through the middleware: its {@link Principal}. */
export type HttpEnv = { Variables: { principal: Principal } };

/** The local user's name in events, while no token exists. */
export const LOCAL_USER = 'local';

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/i;

/** Whether a Host header names this machine's loopback interface (a DNS-rebinding page sends its own name). */
export function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && LOOPBACK_HOST.test(host);
}

/**
 * Authenticates every request under /v1: `Authorization: Bearer <token>`, else a browser session's
 * cookie (whose commands must carry its CSRF value). Without either, a server with no tokens serves
 * the local user when the request's Host is a loopback name; otherwise 401.
 * A token is never read from the URL.
 */
export function authenticate(dotplan: Dotplan): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      const token = match?.[1] !== undefined ? await dotplan.tokens.verify(match[1]) : undefined;
      if (!token) return unauthorized(c, 'The bearer token is not one this server knows (revoked, mistyped, or from another database).');
      c.set('principal', { name: token.name, scope: token.scope, local: false });
      return next();
    }
    const session = await sessionOf(c, dotplan);
    if (session === undefined) return unauthorized(c, 'The session has ended (logged out, expired, or its token revoked); log in again.');
    if (session !== null) {
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.header(CSRF_HEADER) !== session.csrf) {
        return sendProblem(
          c,
          problem(403, 'FORBIDDEN', `A command sent with the session cookie needs its CSRF value in the ${CSRF_HEADER} header (from GET /v1/session).`),
        );
      }
      c.set('principal', { name: session.name, scope: session.scope, local: false, csrf: session.csrf });
      return next();
    }
    if (await dotplan.tokens.exists())
      return unauthorized(c, 'Send `Authorization: Bearer <token>`; make one with `dotplan token create --name <you> --scope read`.');
    if (!isLoopbackHost(c.req.header('host'))) {
      return sendProblem(
        c,
        problem(
          421,
          'USAGE',
          'Without tokens this server answers only requests addressed to localhost or 127.0.0.1; create a token to reach it by another name.',
        ),
      );
    }
    c.set('principal', { name: LOCAL_USER, scope: 'operate', local: true });
    return next();
  };
}

function unauthorized(c: Parameters<MiddlewareHandler>[0], detail: string): Response {
  return sendProblem(c, problem(401, 'UNAUTHORIZED', detail), { 'www-authenticate': 'Bearer realm="dotplan"' });
}

/** Refuses a request whose principal's scope is below `needed` (403, naming both). */
export function requireScope(needed: TokenScope): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const principal = c.get('principal');
    if (!scopeAllows(principal.scope, needed)) {
      return sendProblem(c, problem(403, 'FORBIDDEN', `This needs the '${needed}' scope; the token '${principal.name}' has '${principal.scope}'.`));
    }
    return next();
  };
}

/**
 * Refuses what a browser on another site could send: a command whose body is not JSON (a plain form
 * post needs no CORS pre-flight) and a request whose `Origin` is neither this server's own nor one
 * CORS was configured for (`serve.corsOrigins`).
 */
export function sameOriginCommands(allowed: readonly string[] = []): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && allowed.includes(origin)) {
      // an origin CORS was configured for: its requests carry a bearer token (checked next)
    } else if (origin !== undefined && origin !== 'null') {
      let host: string | undefined;
      try {
        host = new URL(origin).host;
      } catch {
        host = undefined;
      }
      if (host !== c.req.header('host')) return sendProblem(c, problem(403, 'FORBIDDEN', `Requests from ${origin} are not allowed (CORS is off).`));
    } else if (origin === 'null') {
      return sendProblem(c, problem(403, 'FORBIDDEN', 'Requests from an opaque origin are not allowed.'));
    }
    if (c.req.method === 'POST' || c.req.method === 'PUT' || c.req.method === 'PATCH' || c.req.method === 'DELETE') {
      const type = c.req.header('content-type');
      const hasBody = c.req.raw.body !== null || type !== undefined;
      if (hasBody && !/^application\/json\b/i.test(type ?? '')) {
        return sendProblem(c, problem(415, 'USAGE', `Send the body as application/json (got ${type ?? 'no content type'}).`));
      }
    }
    return next();
  };
}

/** A fixed-window limit per principal: `perMinute` requests, then 429 with Retry-After until the window turns. */
export function rateLimit(perMinute: number): MiddlewareHandler<HttpEnv> {
  const windows = new Map<string, { start: number; count: number }>();
  return async (c, next) => {
    if (perMinute <= 0) return next();
    const key = c.get('principal').name;
    const now = Date.now();
    const window = windows.get(key);
    if (!window || now - window.start >= 60_000) {
      if (windows.size > 10_000) windows.clear();
      windows.set(key, { start: now, count: 1 });
      return next();
    }
    window.count += 1;
    if (window.count > perMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000));
      return sendProblem(c, problem(429, 'RATE_LIMITED', `More than ${perMinute} requests in a minute; try again in ${retryAfter} s.`), {
        'retry-after': String(retryAfter),
      });
    }
    return next();
  };
}
