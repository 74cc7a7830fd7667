import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import { a2aRoutes } from '../a2a-server/index.js';
import { mcpRoutes } from '../mcp-server/http.js';
import type { Dotplan } from '../operations/dotplan.js';
import { authenticate, rateLimit, sameOriginCommands, type HttpEnv } from './auth.js';
import { EventHub } from './event-hub.js';
import { problem, problemFor, sendProblem } from './problem.js';
import { loginRoute, sessionRoutes } from './session.js';
import { commandRoutes } from './routes/commands.js';
import { planRoutes } from './routes/plans.js';
import { readRoutes } from './routes/reads.js';
import { revisionRoutes } from './routes/revisions.js';
import { tokenRoutes } from './routes/tokens.js';
import { streamRoutes, type OpenStreams, type StreamOptions } from './routes/streams.js';
import { uiRoutes } from './ui.js';

/**
 * dotplan's HTTP API: one more caller of the use cases of {@link Dotplan}, with the same rights per
 * driver. Every route is under `/v1` and needs a token (see auth.ts), except `/healthz`,
 * `/openapi.json` and the A2A agent card (`/.well-known/agent-card.json`, public as A2A expects); MCP
 * is served at `/mcp` behind the same tokens (src/mcp-server/http.ts), A2A's JSON-RPC at `/v1/a2a`. `dotplan serve` listens with it; a service mounts `app` in its own Hono app.
 */
export interface HttpOptions extends StreamOptions {
  /** Origins whose pages may call the API (CORS), e.g. `https://ops.example.com`. Default: the config's `serve.corsOrigins` (none: CORS off). */
  corsOrigins?: readonly string[];
  /** Requests per minute per token (0: no limit). Default: the config's `serve.rateLimit`. */
  rateLimit?: number;
  /** Say what a request that failed inside the server was (its stack), where the operator reads it. Default: stderr. */
  logError?: (error: unknown) => void;
  /** Serve the web UI (dist/ui) at `/` and `/assets/*`. Default: true. */
  ui?: boolean;
}

/** The API a {@link Dotplan} serves (`dotplan.http()`): the Hono app, its shared event feed and open streams, and how to close them. */
export interface HttpApi {
  /** The Hono app: `app.fetch` for a server, `app.request` in-process. */
  app: OpenAPIHono<HttpEnv>;
  /** The one live feed the streams share. */
  hub: EventHub;
  streams: OpenStreams;
  /** Ends the open streams and the shared feed (the store stays open). */
  close(): Promise<void>;
}

/** Everything from this server, nothing inline, no plugins, no framing. */
const CSP = "default-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/** Slack above the largest DOT text for the JSON around it. */
const BODY_SLACK_BYTES = 1 << 20;

export function createHttpApi(dotplan: Dotplan, options: HttpOptions = {}): HttpApi {
  const logError =
    options.logError ??
    ((error: unknown) => process.stderr.write(`dotplan serve: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`));
  const app = new OpenAPIHono<HttpEnv>({
    defaultHook: (result, c) => {
      if (result.success) return undefined;
      const issue = result.error.issues[0];
      const argument = issue?.path.join('.') ?? '';
      const detail = `${result.target === 'json' ? 'body' : result.target}${argument ? `.${argument}` : ''}: ${issue?.message ?? 'is not valid'}`;
      return sendProblem(c, problem(422, 'INVALID_INPUT', detail, { argument }));
    },
  });
  app.use('*', secureHeaders());
  // The UI's policy, unless a route set its own (the HTML report, a self-contained page with inline styles).
  app.use('*', async (c, next) => {
    await next();
    if (!c.res.headers.has('content-security-policy')) c.res.headers.set('content-security-policy', CSP);
  });
  app.onError((error, c) => {
    const body = problemFor(error);
    if (body.status >= 500) logError(error);
    return sendProblem(c, body);
  });
  app.notFound((c) => sendProblem(c, problem(404, 'NOT_FOUND', `No route ${c.req.method} ${c.req.path}; the routes are listed at /openapi.json.`)));

  app.get('/healthz', async (c) => {
    await dotplan.events.lastId();
    return c.json({ ok: true, backend: dotplan.backend });
  });

  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: dotplan.config.limits.maxDotBytes + BODY_SLACK_BYTES,
      onError: (c) =>
        sendProblem(
          c,
          problem(413, 'INVALID_INPUT', `The body is larger than ${dotplan.config.limits.maxDotBytes + BODY_SLACK_BYTES} bytes (limits.maxDotBytes).`),
        ),
    }),
  );
  const corsOrigins = options.corsOrigins ?? dotplan.config.serve.corsOrigins;
  if (corsOrigins.length > 0) {
    // Pages on these origins may call the API with a bearer token (the session cookie is SameSite=Strict: never sent from them).
    app.use(
      '/v1/*',
      cors({
        origin: [...corsOrigins],
        allowMethods: ['GET', 'POST'],
        allowHeaders: ['authorization', 'content-type', 'idempotency-key', 'last-event-id'],
        exposeHeaders: ['etag', 'retry-after', 'idempotent-replayed', 'x-dotplan-revision'],
        maxAge: 600,
      }),
    );
  }
  app.use('/v1/*', sameOriginCommands(corsOrigins));
  loginRoute(app, dotplan);
  app.use('/v1/*', authenticate(dotplan));
  app.use('/v1/*', rateLimit(options.rateLimit ?? dotplan.config.serve.rateLimit));

  sessionRoutes(app, dotplan);
  planRoutes(app, dotplan);
  tokenRoutes(app, dotplan);
  commandRoutes(app, dotplan);
  revisionRoutes(app, dotplan);
  readRoutes(app, dotplan);
  mcpRoutes(app, dotplan, { ...options, logError, maxBodyBytes: dotplan.config.limits.maxDotBytes + BODY_SLACK_BYTES });
  const hub = new EventHub(dotplan);
  const streams = streamRoutes(app, dotplan, hub, options);
  a2aRoutes(app, dotplan, hub, { logError });
  if (options.ui !== false) uiRoutes(app, {});

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', description: 'A token from `dotplan token create`.' });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'dotplan',
      version: '1',
      description: 'Plans written as Graphviz DOT: create, watch, answer, review, edit. Errors are application/problem+json.',
    },
  });

  return {
    app,
    hub,
    streams,
    close: async () => {
      streams.closeAll();
      await hub.close();
    },
  };
}
