/**
 * How plans name an MCP server's tools, `mcp:<server>/<tool>`, made and read here only, and what to do
 * when a server's tools are not known (this module loads nothing, so the registry, the validator and the
 * commands use it without loading the MCP client).
 */

/** The code a node calls a server's tool by. */
export function mcpToolCode(server: string, tool: string): string {
  return `mcp:${server}/${tool}`;
}

/** The server a tool code names, or undefined for a code that is not an MCP server's. */
export function mcpServerOf(code: string): string | undefined {
  if (!code.startsWith('mcp:')) return undefined;
  const slash = code.indexOf('/', 4);
  return slash > 4 ? code.slice(4, slash) : undefined;
}

/** The fix for a server whose tools could not be listed, then what to run again (`then …`). */
export function unlistedServerFix(server: string, then: string): string {
  return `start MCP server "${server}" (or fix its settings under "mcp" in the config file), then ${then}`;
}
