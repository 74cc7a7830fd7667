import type { McpServer } from '@modelcontextprotocol/server';
import type { Dotplan } from '../operations/dotplan.js';

/** What every tool of the MCP server is given: the use cases, who acts, where log lines go. */
export interface ToolContext {
  readonly dotplan: Dotplan;
  /** Recorded as the actor of the commands made over MCP (answers, reviews, created plans). */
  readonly by: string;
  /** A line for the server's log (stderr: stdout is the protocol's). */
  readonly log: (line: string) => void;
  /** The calls being served, so that the store is closed only once they are over. */
  readonly calls: InFlight;
}

/** The tool calls being served: a server that stops waits for them before its store is closed. */
export class InFlight {
  readonly #running = new Set<Promise<unknown>>();

  /** Runs `body`, counted until it settles. */
  track<T>(body: Promise<T>): Promise<T> {
    this.#running.add(body);
    void body.finally(() => this.#running.delete(body)).catch(() => undefined);
    return body;
  }

  /** Resolves once every call started so far has settled. */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}

/** Registers a group of tools on the server. */
export type RegisterTools = (server: McpServer, context: ToolContext) => void;

/** How a waiting question or review is acted on over MCP: the tool and its arguments, as a model writes the call. */
export function toolCall(tool: string, args: Record<string, string>): string {
  return `${tool} ${JSON.stringify(args)}`;
}
