/**
 * The HTTP API in-process (`app.request`, no socket) over a Dotplan on a database of its own, and a
 * small client that sends JSON with a token the way a program would.
 */
import type { Dotplan } from '../../src/operations/dotplan.js';
import type { HttpApi, HttpOptions } from '../../src/http/app.js';
import type { TokenScope } from '../../src/operations/tokens.js';
import { openTestDotplan, type TestDotplan } from '../api/open.js';

export interface ApiUnderTest {
  t: TestDotplan;
  api: HttpApi;
  /** A request as a program sends it: `Host: localhost`, JSON bodies, a bearer token if given. */
  call(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** A token with this scope (its name is the scope). */
  token(scope: TokenScope): Promise<string>;
  close(): Promise<void>;
}

export async function openApi(options: HttpOptions = {}): Promise<ApiUnderTest> {
  const t = await openTestDotplan();
  const api = await t.dotplan.http(options);
  const tokens = new Map<TokenScope, string>();
  return {
    t,
    api,
    call(method, path, { token, body, headers = {} } = {}) {
      return Promise.resolve(
        api.app.request(path, {
          method,
          headers: {
            host: 'localhost',
            ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
        }),
      );
    },
    async token(scope) {
      let secret = tokens.get(scope);
      if (secret === undefined) {
        secret = (await t.dotplan.tokens.create({ name: scope, scope, by: 'test' })).secret;
        tokens.set(scope, secret);
      }
      return secret;
    },
    async close() {
      await api.close();
      await t.cleanup();
    },
  };
}

/** A problem document, checked to be one. */
export async function problemOf(
  response: Response,
): Promise<{ status: number; code: string; detail: string; diagnostics?: Array<Record<string, unknown>>; argument?: string }> {
  if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) {
    throw new Error(`expected application/problem+json, got ${response.status} ${response.headers.get('content-type')}: ${await response.text()}`);
  }
  return (await response.json()) as never;
}

/** Runs a worker until nothing is left to run (confirm nodes then wait for their answer). */
export async function runUntilIdle(dotplan: Dotplan): Promise<void> {
  const worker = dotplan.worker({ untilIdle: true });
  worker.start();
  await worker.idle;
  await worker.stop();
}
