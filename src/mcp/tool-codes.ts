/**
 * How plans name an MCP server's tools, `mcp:<server>/<tool>`: made and read here only (this module
 * loads nothing, so the registry and the validator read codes without loading the MCP client).
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
