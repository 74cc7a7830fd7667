import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, AgentCard } from '@a2a-js/sdk';
import { A2AError, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { HttpEnv } from '../http/auth.js';
import type { EventHub } from '../http/event-hub.js';
import { problem, sendProblem } from '../http/problem.js';
import { ProblemSchema } from '../http/schemas.js';
import type { Dotplan } from '../operations/dotplan.js';
import { scopeAllows, type TokenScope } from '../operations/tokens.js';
import { A2A_PATH, agentCard } from './card.js';
import { DotplanA2aHandler, PrincipalUser } from './handler.js';

/** What {@link a2aRoutes} takes besides the app, the use cases and the shared event feed. */
export interface A2aOptions {
  /** How long a blocking SendMessage waits for the plan to ask something or end (ms); then it answers with the task as it stands. Default 30 s. */
  waitMs?: number;
  /** Says what a request that failed inside the server was (its stack). Default: stderr. */
  logError?: (error: unknown) => void;
}

const WAIT_MS = 30_000;
const CARD_PATH = '/.well-known/agent-card.json';

/** The A2A 1.0 JSON-RPC methods, and the scope each needs (SendMessage: `answer` for a reply in a task, `operate` for a new task). */
const METHODS: Readonly<Record<string, TokenScope>> = {
  SendMessage: 'operate',
  SendStreamingMessage: 'operate',
  GetTask: 'read',
  ListTasks: 'read',
  CancelTask: 'operate',
  SubscribeToTask: 'read',
  CreateTaskPushNotificationConfig: 'operate',
  GetTaskPushNotificationConfig: 'read',
  ListTaskPushNotificationConfigs: 'read',
  DeleteTaskPushNotificationConfig: 'operate',
  GetExtendedAgentCard: 'read',
};

/**
 * dotplan as an A2A agent on `dotplan serve`: the agent card at `/.well-known/agent-card.json` (public,
 * as A2A expects) and the JSON-RPC endpoint at `/v1/a2a`, behind the API's own middleware — the same
 * tokens, session, origin check, body limit and rate limit — with each method needing the scope of
 * the driver whose move it is. The SDK's `JsonRpcTransportHandler` reads and writes the wire; the
 * methods are {@link DotplanA2aHandler}'s. Mounted after the `/v1` middleware, before the UI's routes.
 */
export function a2aRoutes(app: OpenAPIHono<HttpEnv>, dotplan: Dotplan, hub: EventHub, options: A2aOptions = {}): void {
  const logError =
    options.logError ??
    ((error: unknown) => process.stderr.write(`dotplan serve: a2a: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`));
  const base = (c: Context<HttpEnv>) => dotplan.config.serve.publicUrl ?? new URL(c.req.url).origin;

  app.get(CARD_PATH, (c) =>
    c.body(JSON.stringify(AgentCard.toJSON(agentCard(dotplan, base(c)))), 200, {
      'content-type': 'application/json',
      'cache-control': 'no-cache',
      'access-control-allow-origin': '*',
    }),
  );

  registerDocument(app);
  app.post(A2A_PATH, async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(
        failure(null, -32700, 'the body is not JSON: send one JSON-RPC 2.0 request, {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {...}}'),
      );
    }
    const request = isRecord(body) ? body : {};
    const id = typeof request.id === 'string' || typeof request.id === 'number' ? request.id : null;
    const method = typeof request.method === 'string' ? request.method : '';
    const principal = c.get('principal');
    const needed = METHODS[method];
    // A read token reads: anything but a reading method is refused to it before it is looked at, as every other command is.
    if (needed === undefined && !scopeAllows(principal.scope, 'answer')) {
      const got = method === '' ? 'no method' : `method ${JSON.stringify(method)}`;
      return sendProblem(
        c,
        problem(
          403,
          'FORBIDDEN',
          `A token with the 'read' scope may only call GetTask here (got ${got}); the token '${principal.name}' has '${principal.scope}'.`,
        ),
      );
    }
    if (needed === undefined) {
      const known = 'SendMessage, GetTask, CancelTask';
      return c.json(
        failure(id, -32601, `no method ${JSON.stringify(method)}: this agent answers ${known} (A2A ${A2A_PROTOCOL_VERSION} JSON-RPC method names)`),
      );
    }
    const params = isRecord(request.params) ? request.params : {};
    const scope = (method === 'SendMessage' || method === 'SendStreamingMessage') && replies(params) ? 'answer' : needed;
    if (!scopeAllows(principal.scope, scope)) {
      const what = scope === 'answer' ? 'A reply in a task' : scope === 'operate' && method.startsWith('Send') ? 'A new task' : method;
      return sendProblem(c, problem(403, 'FORBIDDEN', `${what} needs the '${scope}' scope; the token '${principal.name}' has '${principal.scope}'.`));
    }
    if (!isRecord(request.params)) {
      return c.json(failure(id, -32602, `"params" must be an object: {"message": {...}} for SendMessage, {"id": "<task id>"} for GetTask and CancelTask`));
    }
    const version = c.req.header(A2A_VERSION_HEADER) ?? '0.3';
    if (version !== A2A_PROTOCOL_VERSION) {
      const error = new VersionNotSupportedError(
        `this agent speaks A2A ${A2A_PROTOCOL_VERSION}: send the header ${A2A_VERSION_HEADER}: ${A2A_PROTOCOL_VERSION} (got ${c.req.header(A2A_VERSION_HEADER) === undefined ? 'no header, which means 0.3' : version})`,
      );
      return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
    const handler = new DotplanA2aHandler(dotplan, hub, () => agentCard(dotplan, base(c)), { waitMs: options.waitMs ?? WAIT_MS, logError });
    const context = new ServerCallContext({ user: new PrincipalUser(principal), requestedVersion: version });
    const answer = await new JsonRpcTransportHandler(handler).handle(request, context);
    if (!(Symbol.asyncIterator in answer)) return c.json(answer);
    // Nothing here streams (the card says so): a streaming method's stream fails at once, and its error is the answer.
    try {
      await answer.next();
      return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(new A2AError('internal error: a stream began')) });
    } catch (error) {
      return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
  });
}

/** Whether a SendMessage is a reply in a task (it names the task), not a new task. */
function replies(params: Record<string, unknown>): boolean {
  const message = params.message;
  return (
    isRecord(message) && ((typeof message.taskId === 'string' && message.taskId !== '') || (typeof message.task_id === 'string' && message.task_id !== ''))
  );
}

function failure(id: string | number | null, code: number, message: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The endpoint in /openapi.json, like every /v1 route. */
function registerDocument(app: OpenAPIHono<HttpEnv>): void {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: A2A_PATH,
    tags: ['a2a'],
    summary: 'A2A 1.0 JSON-RPC: SendMessage, GetTask, CancelTask',
    description:
      'dotplan as an A2A agent (its card: /.well-known/agent-card.json). A new task makes a plan from a skill (a template, or `goal`); ' +
      'a reply in a task answers its question or decides its review. The task id is the plan id. SendMessage needs `operate` for a new task ' +
      'and `answer` for a reply, CancelTask `operate`, GetTask `read`. A2A errors are JSON-RPC errors (HTTP 200).',
    security: [{ bearer: [] }],
    request: {
      headers: z.object({
        'a2a-version': z
          .string()
          .optional()
          .openapi({ description: `${A2A_PROTOCOL_VERSION}` }),
      }),
      body: {
        content: {
          'application/json': {
            schema: z.object({
              jsonrpc: z.literal('2.0'),
              id: z.union([z.string(), z.number(), z.null()]),
              method: z.string(),
              params: z.record(z.string(), z.unknown()),
            }),
          },
        },
      },
    },
    responses: {
      200: { description: 'A JSON-RPC response: the result, or an A2A error.', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
      ...Object.fromEntries(
        [401, 403, 413, 415, 429].map((s) => [s, { description: 'Error', content: { 'application/problem+json': { schema: ProblemSchema } } }]),
      ),
    },
  });
}
