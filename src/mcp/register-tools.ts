import type { RegistryOptions, ToolRegistry } from '../tools/registry.js';
import { McpCatalogue } from './catalogue.js';
import type { McpToolInfo } from './connect.js';
import { McpConnections } from './connections.js';
import { mcpSource, mcpTool } from './mcp-tools.js';
import type { McpServerConfig } from './servers.js';

/** Each configured server's tools, from the cache (listed first where it has none), on shared connections that keep the cache current. */
export async function registerMcpTools(registry: ToolRegistry, servers: Readonly<Record<string, McpServerConfig>>, options: RegistryOptions): Promise<void> {
  const cwd = options.cwd ?? process.cwd();
  const catalogue = await McpCatalogue.load(servers, { cwd, ...(options.refreshMcp !== undefined ? { refresh: options.refreshMcp } : {}) });
  const toolsOf = (server: string, listed: readonly McpToolInfo[]) => listed.map((info) => mcpTool(server, info, connections));
  const connections = new McpConnections(servers, cwd, (server, listed) => {
    // The server says its tools changed: the registry and the cache follow.
    registry.replaceSource(mcpSource(server), toolsOf(server, listed));
    void catalogue.update(server, servers[server]!, listed).catch(() => undefined);
  });
  registry.mcp = connections;
  // A server that could not be listed and has no tools cached: its tools are missing, and say why (ToolRegistry.unavailable).
  for (const [server, why] of catalogue.failed) if (catalogue.server(server) === undefined) registry.unlistedServers.set(server, why);
  for (const server of Object.keys(servers)) {
    for (const tool of toolsOf(server, catalogue.server(server)?.tools ?? [])) registry.register(tool, mcpSource(server));
  }
}
