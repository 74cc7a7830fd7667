import { fromJsonSchema, type CallToolResult } from '@modelcontextprotocol/client';
import type { Tool, ToolContext, ToolInputSchema } from '../tools/types.js';
import type { McpProgress, McpToolInfo } from './connect.js';
import type { McpConnections } from './connections.js';
import { mcpToolCode } from './tool-codes.js';

/** Where the registry says an MCP server's tools come from. */
export function mcpSource(server: string): string {
  return `MCP server "${server}"`;
}

/** A progress line goes to the node's log at most this often (the first one at once). */
const PROGRESS_LOG_EVERY_MS = 5_000;

/**
 * A server's tool as a dotplan tool: its input checked against the tool's JSON schema before the
 * call (and by `validate`, for a literal `toolInput`); the call made on the server's shared
 * connection. A result with `isError` fails the attempt with its text (retried per the node's
 * policy); structured content is the output as JSON, else the text of its content.
 */
export function mcpTool(server: string, info: McpToolInfo, connections: McpConnections): Tool<Record<string, unknown>> {
  const code = mcpToolCode(server, info.name);
  return {
    code,
    description: info.description ?? `the tool "${info.name}" of the MCP server "${server}"`,
    inputSchema: jsonSchemaInput(info.inputSchema),
    async run(input, ctx) {
      const session = await connections.session(server);
      const result = await session.callTool(info.name, input, { signal: ctx.signal, onProgress: progressLog(ctx) });
      if (result.isError) throw new Error(`${code} reported an error: ${contentText(result) || '(no text)'}`);
      if (result.structuredContent !== undefined) return result.structuredContent;
      const blocks = result.content;
      return blocks.every((b) => b.type === 'text') ? contentText(result) : blocks;
    },
  };
}

/**
 * A JSON schema as a tool's `inputSchema`: `safeParse` checks a value (a missing input is `{}`, as
 * MCP's arguments are an object), `toJSONSchema` gives the schema itself for the LLM.
 */
export function jsonSchemaInput(schema: Record<string, unknown>): ToolInputSchema & { toJSONSchema(): Record<string, unknown> } {
  // Compiled on first use: opening dotplan registers every server's tools, and most are never called.
  let check: ReturnType<typeof fromJsonSchema> | undefined;
  return {
    safeParse(value) {
      const input = value === undefined || value === '' ? {} : value;
      check ??= fromJsonSchema(schema as Parameters<typeof fromJsonSchema>[0]);
      const result = check['~standard'].validate(input);
      if (result instanceof Promise) return { success: true, data: input };
      if (!result.issues) return { success: true, data: input };
      return { success: false, error: { issues: result.issues.map((issue) => ({ message: fieldWording(issue.message) })) } };
    },
    toJSONSchema: () => schema,
  };
}

/** Ajv's `data/city must be string, data must have required property 'units'` as `city: must be string; (the input) must have …`. */
function fieldWording(message: string): string {
  return message
    .split(/, (?=data[/ ])/)
    .map((part) => part.replace(/^data(\S*) /, (_, path: string) => (path ? `${path.slice(1).replaceAll('/', '.')}: ` : '(the input) ')))
    .join('; ');
}

function contentText(result: CallToolResult): string {
  return result.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** Progress of the call as lines of the node's log: the first at once, then at most one per {@link PROGRESS_LOG_EVERY_MS}. */
function progressLog(ctx: ToolContext): (progress: McpProgress) => void {
  let last = 0;
  return ({ progress, total, message }) => {
    const now = Date.now();
    if (now - last < PROGRESS_LOG_EVERY_MS) return;
    last = now;
    ctx.log(`progress ${progress}${total !== undefined ? `/${total}` : ''}${message ? `: ${message}` : ''}`);
  };
}
