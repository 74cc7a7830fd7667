import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { TokenScope } from '../operations/tokens.js';
import { requireScope, type HttpEnv, type Principal } from './auth.js';
import { ProblemSchema } from './schemas.js';

/**
 * One place where an endpoint is declared: its method and path, the scope it needs, its parameters
 * and body (zod: checked, and written into the OpenAPI document), its answer, the errors it may
 * give. The handler gets what was checked and returns data (sent as JSON with `ok.status`) or a
 * `Response` of its own (DOT, SVG, a report, a 409 with a report).
 */
export interface Endpoint<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: 'get' | 'post';
  path: string;
  scope: TokenScope;
  tag: string;
  summary: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  headers?: z.ZodObject;
  ok: { status?: 200 | 201; description: string; schema?: z.ZodType; mediaType?: string };
  /** Statuses it may answer with besides 401/403/429/422, each as application/problem+json. */
  errors?: readonly number[];
}

export interface Input<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  c: Context<HttpEnv>;
}

const COMMON_ERRORS = [401, 403, 422, 429] as const;
const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'The request is malformed.',
  401: 'No token, or one the server does not know.',
  403: "The token's scope is too small, or the request comes from another origin.",
  404: 'The plan, node, revision or template does not exist.',
  409: 'A move its driver may not make, or a clash with what happened since.',
  413: 'The body is larger than the limit.',
  422: 'The input cannot be used: `diagnostics` or `argument` says where.',
  429: 'Too many requests for this token, or too many open streams.',
};

export function addEndpoint<P extends z.ZodType = z.ZodObject, Q extends z.ZodType = z.ZodObject, B extends z.ZodType = z.ZodObject>(
  app: OpenAPIHono<HttpEnv>,
  endpoint: Endpoint<P, Q, B>,
  handler: (input: Input<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<unknown>,
): void {
  const { ok } = endpoint;
  const errors = [...new Set([...COMMON_ERRORS, ...(endpoint.body ? [413] : []), ...(endpoint.errors ?? [])])].sort();
  const route = createRoute({
    method: endpoint.method,
    path: endpoint.path,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    ...(endpoint.description !== undefined ? { description: endpoint.description } : {}),
    security: [{ bearer: [] }],
    middleware: [requireScope(endpoint.scope)] as const,
    request: {
      ...(endpoint.params ? { params: endpoint.params as unknown as z.ZodObject } : {}),
      ...(endpoint.query ? { query: endpoint.query as unknown as z.ZodObject } : {}),
      ...(endpoint.headers ? { headers: endpoint.headers } : {}),
      ...(endpoint.body ? { body: { required: true, content: { 'application/json': { schema: endpoint.body } } } } : {}),
    },
    responses: {
      [ok.status ?? 200]: {
        description: ok.description,
        ...(ok.schema || ok.mediaType ? { content: { [ok.mediaType ?? 'application/json']: { schema: ok.schema ?? z.string() } } } : {}),
      },
      ...Object.fromEntries(
        errors.map((status) => [
          status,
          { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/problem+json': { schema: ProblemSchema } } },
        ]),
      ),
    },
  });
  // The answers are typed by `ok.schema` for the document only: handlers return data or a Response.
  const register = app.openapi.bind(app) as unknown as (route: unknown, handler: (c: Context<HttpEnv>) => Promise<Response>) => void;
  register(route, async (c: Context<HttpEnv>) => {
    const valid = c.req.valid.bind(c.req) as unknown as (target: string) => unknown;
    const input = {
      params: (endpoint.params ? valid('param') : {}) as z.infer<P>,
      query: (endpoint.query ? valid('query') : {}) as z.infer<Q>,
      body: (endpoint.body ? valid('json') : {}) as z.infer<B>,
      principal: c.get('principal'),
      c,
    };
    const result = await handler(input);
    if (result instanceof Response) return result;
    return c.json(result as object, ok.status ?? 200);
  });
}

/**
 * A command's options as the use cases take them: the token's name as who did it, and the body's
 * `reason` and `dryRun` where it gave them.
 */
export function actedBy(
  principal: Principal,
  body: { reason?: string | undefined; dryRun?: boolean | undefined } = {},
): { by: string; reason?: string; dryRun?: boolean } {
  return {
    by: principal.name,
    ...(body.reason !== undefined ? { reason: body.reason } : {}),
    ...(body.dryRun !== undefined ? { dryRun: body.dryRun } : {}),
  };
}
