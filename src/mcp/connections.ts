import { connectMcp, type McpSession, type McpToolInfo } from './connect.js';
import type { McpServerConfig } from './servers.js';

/**
 * One connection per configured server, opened on first use and opened again on the next use after
 * it broke (a crashed process, an ended session): a call in flight when it breaks fails that attempt
 * only. Workers `hold()` the connections while they run; when the last lets go, every server process
 * is ended with its process group.
 */
export class McpConnections {
  readonly #sessions = new Map<string, Promise<McpSession>>();
  #holders = 0;

  constructor(
    private readonly servers: Readonly<Record<string, McpServerConfig>>,
    private readonly cwd: string,
    private readonly onToolsChanged?: (server: string, tools: McpToolInfo[]) => void,
  ) {}

  /** The open connection to a server, connecting if there is none (or it broke). */
  async session(server: string): Promise<McpSession> {
    const current = this.#sessions.get(server);
    if (current) {
      const session = await current.catch(() => undefined);
      if (session && !session.closed) return session;
      // Only the first caller to see it broken replaces it; the others wait for that one.
      if (this.#sessions.get(server) !== current) return this.session(server);
    }
    const config = this.servers[server];
    if (!config) throw new Error(`no MCP server "${server}" is configured`);
    const opening = connectMcp(server, config, { cwd: this.cwd, onToolsChanged: (tools) => this.onToolsChanged?.(server, tools) });
    this.#sessions.set(server, opening);
    opening.catch(() => this.#sessions.get(server) === opening && this.#sessions.delete(server));
    return opening;
  }

  /** Keeps the connections open until the returned function is called; the last to let go closes them. */
  hold(): () => Promise<void> {
    this.#holders += 1;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.#holders -= 1;
      if (this.#holders === 0) await this.close();
    };
  }

  /** Ends every connection (and every server process). */
  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map(async (opening) => (await opening.catch(() => undefined))?.close()));
  }
}
