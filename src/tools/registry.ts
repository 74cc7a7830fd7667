import { DotplanError } from '../errors/errors.js';
import type { McpConnections } from '../mcp/connections.js';
import type { McpServerConfig } from '../mcp/servers.js';
import { mcpServerOf } from '../mcp/tool-codes.js';
import { builtinTools } from './builtin/index.js';
import type { HttpAccess } from './builtin/http-guard.js';
import { loadUserTools } from './load-user-tools.js';
import type { Tool, ToolCatalogue } from './types.js';

/** Where a tool came from, named when two tools claim one code. */
export const BUILTIN_SOURCE = 'built-in';

/** The tools known to validation and to the worker: built-ins first, then user modules. */
export class ToolRegistry implements ToolCatalogue {
  readonly #tools = new Map<string, { tool: Tool; source: string }>();
  /** The MCP servers' connections, when servers are configured. */
  mcp: McpConnections | undefined;
  /** Configured MCP servers whose tools are not known (never listed, and not reachable when this was made): why, by server. */
  readonly unlistedServers = new Map<string, string>();

  /** Adds a tool; a code that is already taken is an error naming both sources. */
  register(tool: Tool, source = 'registered in code'): this {
    const existing = this.#tools.get(tool.code);
    if (existing) {
      throw new DotplanError('CONFIG', `tool "${tool.code}" from ${source} has the same code as the tool from ${existing.source}; rename one of them`);
    }
    this.#tools.set(tool.code, { tool, source });
    return this;
  }

  has(code: string): boolean {
    return this.#tools.has(code);
  }

  get(code: string): Tool | undefined {
    return this.#tools.get(code)?.tool;
  }

  list(): Tool[] {
    return [...this.#tools.values()].map((entry) => entry.tool);
  }

  /** `built-in` or the module path a tool was loaded from. */
  sourceOf(code: string): string | undefined {
    return this.#tools.get(code)?.source;
  }

  /** Puts `tools` in place of every tool that came from `source` (an MCP server whose tools changed). */
  replaceSource(source: string, tools: readonly Tool[]): void {
    for (const [code, entry] of this.#tools) if (entry.source === source) this.#tools.delete(code);
    for (const tool of tools) this.register(tool, source);
  }

  unavailable(code: string): string | undefined {
    const server = mcpServerOf(code);
    return server === undefined ? undefined : this.unlistedServers.get(server);
  }

  hold(): () => Promise<void> {
    return this.mcp?.hold() ?? (() => Promise.resolve());
  }

  /** Ends what the tools hold open (every MCP server process). */
  async close(): Promise<void> {
    await this.mcp?.close();
  }
}

export interface RegistryOptions {
  /** User tool modules (paths relative to `cwd` or absolute), loaded in order. */
  userModules?: readonly string[];
  http?: HttpAccess;
  /** MCP servers whose tools are registered as `mcp:<server>/<tool>` (their list cached; see {@link McpCatalogue}). */
  mcp?: Readonly<Record<string, McpServerConfig>>;
  /** List these servers' tools again (`true`: every server's) instead of trusting the cache. */
  refreshMcp?: boolean | readonly string[];
  cwd?: string;
}

/** A registry with the built-in tools and those of the given user modules. */
export async function createRegistry(options: RegistryOptions = {}): Promise<ToolRegistry> {
  const registry = new ToolRegistry();
  for (const tool of builtinTools({ http: options.http })) registry.register(tool, BUILTIN_SOURCE);
  for (const module of await loadUserTools(options.userModules ?? [], options.cwd)) {
    for (const tool of module.tools) registry.register(tool, module.path);
  }
  const servers = options.mcp ?? {};
  // The MCP client is loaded only where servers are configured: a command that lists plans does not pay for it.
  if (Object.keys(servers).length > 0) await (await import('../mcp/register-tools.js')).registerMcpTools(registry, servers, options);
  return registry;
}
