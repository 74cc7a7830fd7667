/**
 * `dotplan mcp serve` over stdio, and `/mcp` of `dotplan serve` over streamable HTTP: dotplan itself as
 * an MCP server (Model Context Protocol), so that an MCP host — a desktop assistant, an IDE — authors,
 * runs and steers plans through tools: list_templates, validate_plan, create_plan, list_plans,
 * show_plan, list_inbox, answer_question, approve_review, reject_review. Built on
 * `@modelcontextprotocol/server`; each tool calls the library's use cases.
 */
export { createMcpServer, type DotplanMcpServer, type McpServerSettings } from './server.js';
export { serveStdio, type StdioConnection } from './stdio.js';
export { mcpRoutes, MCP_PATH, type McpHttpOptions } from './http.js';
export { TOOL_SCOPES, type ToolName } from './context.js';
export { errorResult } from './results.js';
