/**
 * dotplan as an MCP server over streamable HTTP, under `dotplan serve`: the same tools as
 * `dotplan mcp serve` over stdio, at {@link MCP_PATH}, behind the same tokens as the API.
 *
 * Stateless: every request gets a server of its own from {@link createMcpServer}, acting as the
 * request's principal (the token's name and scope). Nothing lives between requests (no session ids,
 * no replay buffer), so a client's next call reaches a restarted server, or another server on the
 * same database, as if nothing happened; the tools keep no state of their own anyway — the plans are
 * in the database. The SDK's `createMcpHandler` serves both the 2025 protocol (a stateless
 * streamable-HTTP transport per request) and the 2026-07-28 per-request one.
 *
 * What guards the API guards this path too, in the same order: CORS only for `serve.corsOrigins`; a
 * browser request from another origin is a 403 and a POST that is not JSON a 415
 * (`sameOriginCommands`); a bearer token (or, while none exists, the local user on a loopback Host,
 * else 421), 401 without one; the per-token rate limit. The body limit is the API's too (the SDK
 * answers 413 before parsing). A tool the token's scope does not allow is a tool result with
 * `isError`, naming the scope it needs (see `TOOL_SCOPES`).
 */
import { createMcpHandler, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Hono } from 'hono';
import { cors } from 'hono/cors';
import { authenticate, rateLimit, sameOriginCommands, type HttpEnv, type Principal } from '../http/auth.js';
import type { Dotplan } from '../operations/dotplan.js';
import { TOKEN_SCOPES, type TokenScope } from '../operations/tokens.js';
import type { Acting } from './context.js';
import { createMcpServer } from './server.js';

/** Where `dotplan serve` answers MCP. */
export const MCP_PATH = '/mcp';

/** What {@link mcpRoutes} takes from the API's options. */
export interface McpHttpOptions {
  /** Origins whose pages may call it (CORS). Default: the config's `serve.corsOrigins`. */
  corsOrigins?: readonly string[];
  /** Requests per minute per token (0: no limit). Default: the config's `serve.rateLimit`. */
  rateLimit?: number;
  /** The largest body, in bytes: the API's (`limits.maxDotBytes` and room for the JSON around it). */
  maxBodyBytes: number;
  /** Where the server's log lines go (a tool's internal error, a refused request). Default: stderr. */
  logError?: (error: unknown) => void;
}

/** Mounts MCP at {@link MCP_PATH} on the API's app; returns the SDK's handler. */
export function mcpRoutes(app: Hono<HttpEnv>, dotplan: Dotplan, options: McpHttpOptions): McpHttpHandler {
  const logError = options.logError ?? ((error: unknown) => process.stderr.write(`dotplan serve: ${String(error)}\n`));
  const log = (line: string) => logError(line);
  const handler = createMcpHandler(({ authInfo }) => createMcpServer(dotplan, { ...actingAs(authInfo), log }).server, {
    maxRequestBodySize: options.maxBodyBytes,
    // The tools never change, so there is nothing to listen for: no stream stays open, and a stop never waits for one.
    maxSubscriptions: 0,
    onerror: (error) => log(`mcp: ${error.message}`),
  });

  const corsOrigins = options.corsOrigins ?? dotplan.config.serve.corsOrigins;
  if (corsOrigins.length > 0) {
    app.use(
      MCP_PATH,
      cors({
        origin: [...corsOrigins],
        allowMethods: ['GET', 'POST', 'DELETE'],
        allowHeaders: ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name'],
        exposeHeaders: ['www-authenticate', 'retry-after'],
        maxAge: 600,
      }),
    );
  }
  app.use(MCP_PATH, sameOriginCommands(corsOrigins));
  app.use(MCP_PATH, authenticate(dotplan));
  app.use(MCP_PATH, rateLimit(options.rateLimit ?? dotplan.config.serve.rateLimit));
  app.on(['GET', 'POST', 'DELETE'], MCP_PATH, async (c) => {
    const response = await handler.fetch(c.req.raw, { authInfo: authInfoOf(c.get('principal')) });
    // A body refused unread leaves the rest of it on the connection: close it rather than let the client reuse it.
    if (response.status === 413) response.headers.set('connection', 'close');
    return response;
  });
  return handler;
}

/** The principal as the SDK carries it to the server factory (the secret itself stays with auth.ts). */
function authInfoOf(principal: Principal): AuthInfo {
  return { token: '', clientId: principal.name, scopes: [principal.scope], extra: { local: principal.local } };
}

/** Who a request's tools act as: the token's name (the actor of its commands, as over the API) and its scope. */
function actingAs(authInfo: AuthInfo | undefined): Acting {
  const scope = authInfo?.scopes[0];
  if (authInfo === undefined || !isScope(scope)) throw new Error('an MCP request reached the tools without an authenticated principal');
  return { by: authInfo.clientId, scope };
}

function isScope(value: string | undefined): value is TokenScope {
  return (TOKEN_SCOPES as readonly string[]).includes(value ?? '');
}
