/**
 * The one module that speaks to the MCP client SDK (`@modelcontextprotocol/client` 2.x): connect to a
 * configured server, list its tools, call one. The SDK moves fast; everything else in dotplan sees
 * only {@link McpSession}. test/mcp/contract.test.ts holds the SDK to what this module relies on.
 */
import { resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Transport } from '@modelcontextprotocol/client';
import { packageVersion } from '../config/package-version.js';
import { DotplanError } from '../errors/errors.js';
import { ProcessGroupTransport } from './process-transport.js';
import { isStdioServer, resolveEnvValues, type McpServerConfig } from './servers.js';

/** A tool as its server lists it. */
export interface McpToolInfo {
  name: string;
  description?: string;
  /** A JSON schema of its arguments (an object). */
  inputSchema: Record<string, unknown>;
}

/** A progress notification of a running call. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** An open connection to one server. */
export interface McpSession {
  readonly server: string;
  /** True once the connection is gone: its process died or was closed, its HTTP session ended. */
  readonly closed: boolean;
  listTools(): Promise<McpToolInfo[]>;
  /**
   * Calls a tool. No time limit of its own (the node's timeout aborts `signal`); progress
   * notifications reach `onProgress`. Rejects when the connection breaks during the call.
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; onProgress?: (progress: McpProgress) => void },
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** The SDK wants a number: the longest a timer may wait (24.8 days), i.e. none — the node's timeout is the limit. */
const NO_TIMEOUT_MS = 2_147_483_647;
/** How long connecting (start and initialize) may take. */
const CONNECT_TIMEOUT_MS = 30_000;

/** Opens a connection to a server; `onToolsChanged` hears the server's own list-changed notifications. */
export async function connectMcp(
  server: string,
  config: McpServerConfig,
  options: { cwd: string; onToolsChanged?: (tools: McpToolInfo[]) => void },
): Promise<McpSession> {
  const where = `MCP server "${server}"`;
  const transport = makeTransport(server, config, options.cwd);
  const client = new Client(
    { name: 'dotplan', version: packageVersion() },
    {
      ...(options.onToolsChanged
        ? { listChanged: { tools: { onChanged: (error, tools) => !error && tools && options.onToolsChanged?.(tools.map(toolInfo)) } } }
        : {}),
    },
  );
  let closed = false;
  client.onclose = () => {
    closed = true;
  };
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new DotplanError('CONFIG', `${where} could not be started or reached: ${describe(error)}${stderrOf(transport)}`, { cause: error });
  }
  return {
    server,
    get closed() {
      return closed;
    },
    async listTools() {
      try {
        const { tools } = await client.listTools();
        return tools.map(toolInfo);
      } catch (error) {
        throw new DotplanError('CONFIG', `${where} did not list its tools: ${describe(error)}${closed ? stderrOf(transport) : ''}`, { cause: error });
      }
    },
    async callTool(name, args, { signal, onProgress }) {
      try {
        return await client.callTool(
          { name, arguments: args },
          {
            signal,
            timeout: NO_TIMEOUT_MS,
            resetTimeoutOnProgress: true,
            ...(onProgress ? { onprogress: (p: McpProgress) => onProgress(p) } : {}),
          },
        );
      } catch (error) {
        if (signal.aborted) throw error;
        throw new Error(`${where}: ${describe(error)}${closed ? stderrOf(transport) : ''}`, { cause: error });
      }
    },
    async close() {
      closed = true;
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
    },
  };
}

/**
 * How deep MCP servers started by dotplan may nest: a server that is dotplan (`dotplan mcp serve`)
 * with a config naming itself would otherwise start itself without end.
 */
const MAX_NESTED_SERVERS = 3;
const DEPTH_VARIABLE = 'DOTPLAN_MCP_DEPTH';

function makeTransport(server: string, config: McpServerConfig, cwd: string): Transport {
  const where = `mcp.${server}`;
  if (isStdioServer(config)) {
    const depth = Number(process.env[DEPTH_VARIABLE] ?? 0) || 0;
    if (depth >= MAX_NESTED_SERVERS) {
      throw new DotplanError(
        'CONFIG',
        `MCP server "${server}" is not started: MCP servers started by dotplan are nested ${depth} deep here; a server's command probably runs dotplan with a config that names that server again`,
      );
    }
    return new ProcessGroupTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...resolveEnvValues(config.env, `${where}.env`), [DEPTH_VARIABLE]: String(depth + 1) },
      cwd: resolve(cwd, config.cwd ?? '.'),
    });
  }
  return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: resolveEnvValues(config.headers, `${where}.headers`) } });
}

function toolInfo(tool: { name: string; description?: string | undefined; inputSchema: unknown }): McpToolInfo {
  const schema = tool.inputSchema !== null && typeof tool.inputSchema === 'object' ? (tool.inputSchema as Record<string, unknown>) : { type: 'object' };
  return { name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: schema };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function stderrOf(transport: Transport): string {
  const text = transport instanceof ProcessGroupTransport ? transport.stderr : '';
  return text ? ` (its stderr: ${text.slice(-500)})` : '';
}
