import type { CallToolResult } from '@modelcontextprotocol/server';
import { isUserError } from '../errors/errors.js';
import { ValidationError } from '../model/diagnostics.js';
import { scopeAllows } from '../operations/tokens.js';
import { TOOL_SCOPES, type ToolContext, type ToolName } from './context.js';
import { diagnosticLine } from './format.js';

/**
 * What a tool of `dotplan mcp serve` returns: text a person (or a model) reads, and the same facts as
 * JSON in `structuredContent` where they have a natural structure. A refusal is a result too
 * (`isError: true`, its message naming the fix), never a protocol error or a stack trace: the model
 * reads why and tries again, and the server goes on serving.
 */

/** A successful result: the text, and the JSON (dates as ISO strings) when there is one. */
export function ok(text: string, structured?: object): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structured !== undefined ? { structuredContent: asJson(structured) } : {}) };
}

/** A refused call: the message (and the fix) as text, `{ error: { code, message, diagnostics? } }` as JSON. */
export function refused(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return {
    content: [{ type: 'text', text: message }],
    structuredContent: asJson({ error: { code, message, ...extra } }),
    isError: true,
  };
}

/**
 * What a thrown error becomes: a plan that does not validate lists every diagnostic (line, node,
 * attribute, fix); any other dotplan refusal its message and code; anything else (a bug) a short
 * message, its stack written to the server's log (stderr), never to the client.
 */
export function errorResult(error: unknown, log: (line: string) => void): CallToolResult {
  if (error instanceof ValidationError) {
    const errors = error.diagnostics.filter((d) => d.severity === 'error');
    const lines = error.diagnostics.map((d) => `- ${diagnosticLine(d, error.source)}`);
    const head = `the plan is not valid (${errors.length} error${errors.length === 1 ? '' : 's'}); nothing was stored. Fix each problem below and call again:`;
    return refused(error.code, [head, ...lines].join('\n'), { diagnostics: error.diagnostics });
  }
  if (isUserError(error)) {
    const hint = error.code === 'NOT_FOUND' ? ' (over MCP: list_plans lists the plans, list_inbox what waits for a person, list_templates the templates)' : '';
    return refused(error.code, `${error.message}${hint} [${error.code}]`);
  }
  const message = error instanceof Error ? error.message : String(error);
  log(`mcp: internal error: ${error instanceof Error && error.stack ? error.stack : message}`);
  return refused('INTERNAL', `internal error: ${message} (a bug in dotplan, not in the call; the details are in the server's log)`);
}

/**
 * Runs a tool's body, counted while it runs, once the caller's scope allows the tool ({@link TOOL_SCOPES}:
 * otherwise a `FORBIDDEN` refusal naming the scope needed, as the HTTP API's 403); whatever the body
 * throws becomes a result (see {@link errorResult}).
 */
export function guarded(
  context: Pick<ToolContext, 'log' | 'calls' | 'by' | 'scope'>,
  tool: ToolName,
  body: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const needed = TOOL_SCOPES[tool];
  if (!scopeAllows(context.scope, needed)) {
    const message = `${tool} needs the '${needed}' scope; the token '${context.by}' has '${context.scope}'. Call it with a token made with \`dotplan token create --name <name> --scope ${needed}\`.`;
    return Promise.resolve(refused('FORBIDDEN', message, { scope: needed }));
  }
  return context.calls.track(body().catch((error: unknown) => errorResult(error, context.log)));
}

/** Plain JSON: dates as ISO strings, undefined fields left out. */
export function asJson(value: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
