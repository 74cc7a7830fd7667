import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { McpServer } from '@modelcontextprotocol/server';

/** A server connected over stdio: `closed` settles when the client goes (stdin ends) or `close()` is called. */
export interface StdioConnection {
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves `server` over this process's stdin and stdout (the MCP stdio binding): one JSON-RPC message a
 * line on stdout, so nothing else may write there. `onError` gets transport errors (a line that is not
 * JSON-RPC, a broken pipe) for the log; the connection goes on where it can.
 */
export async function serveStdio(server: McpServer, onError: (error: Error) => void): Promise<StdioConnection> {
  const transport = new StdioServerTransport();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  server.server.onclose = () => resolveClosed();
  server.server.onerror = onError;
  await server.connect(transport);
  return {
    closed,
    async close() {
      await server.close();
      resolveClosed();
    },
  };
}
