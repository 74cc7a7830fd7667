import type { Command } from 'commander';
import type { GetContext } from './index.js';
import { registerMcpToolsCommand } from './mcp-tools.js';

/**
 * `dotplan mcp …`: dotplan and the Model Context Protocol. `mcp serve` is dotplan itself as an MCP
 * server over stdio, for an MCP host (a desktop assistant, an IDE) to author, run and steer plans;
 * `mcp tools` lists the tools of the MCP servers plans call.
 */
export function registerMcpCommands(program: Command, getContext: GetContext): void {
  const mcp = program.command('mcp').description('dotplan and the Model Context Protocol (MCP)');

  mcp
    .command('serve')
    .description(
      'serve dotplan as an MCP server over stdio (stdin/stdout carry the protocol; logs go to stderr) until stdin closes or SIGINT/SIGTERM: ' +
        'tools to list templates, validate and create plans, show plans, list the inbox, answer questions and decide reviews',
    )
    .option('--by <name>', 'who the commands made over MCP are recorded as: answers, reviews, created plans (default: the OS user)')
    .action(async (opts: { by?: string }, command: Command) => {
      // stdout is the protocol's: whatever else would print there (a user module's console.log) goes to stderr.
      const { log, info, debug } = console;
      console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
      try {
        await serve(opts, command);
      } finally {
        Object.assign(console, { log, info, debug });
      }
    });

  registerMcpToolsCommand(mcp, getContext);

  /** `mcp serve`: the server on stdio until the client goes or a stop signal; then the calls in flight settle. */
  async function serve(opts: { by?: string }, command: Command): Promise<void> {
    const ctx = await getContext(command);
    const dotplan = await ctx.dotplan({ create: true });
    const { createMcpServer, serveStdio } = await import('../../mcp-server/index.js');
    const mcpServer = createMcpServer(dotplan, { ...(opts.by !== undefined ? { by: opts.by } : {}), log: (line) => ctx.io.err(line) });
    const connection = await serveStdio(mcpServer.server, (error) => ctx.io.err(`mcp: ${error.message}`));
    ctx.io.err(`dotplan mcp serve on stdio (${dotplan.backend}); stops when stdin closes or on SIGINT/SIGTERM`);
    const unsubscribe = ctx.io.onStop((signal) => {
      ctx.io.err(`${signal}: stopping`);
      void connection.close();
    });
    try {
      await connection.closed;
    } finally {
      unsubscribe();
    }
    // A call still writing (a plan being created) finishes first; the command line's own cleanup
    // (main) then closes the store, once this action returns.
    await mcpServer.settled();
  }
}
