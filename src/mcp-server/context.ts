import type { McpServer } from '@modelcontextprotocol/server';
import type { Dotplan } from '../operations/dotplan.js';
import type { TokenScope } from '../operations/tokens.js';

/**
 * The scope each tool needs, as the HTTP API's route for the same use case needs it: reading
 * (templates, validation, plans, the inbox) is `read`; a person's moves (answer, approve, reject) are
 * `answer`; creating a plan is an operator's move, `operate`. Over stdio the server acts with every
 * right of the user who started it; over HTTP with the scope of the request's token.
 */
export const TOOL_SCOPES = {
  list_templates: 'read',
  validate_plan: 'read',
  list_plans: 'read',
  show_plan: 'read',
  list_inbox: 'read',
  answer_question: 'answer',
  approve_review: 'answer',
  reject_review: 'answer',
  create_plan: 'operate',
} as const satisfies Record<string, TokenScope>;

/** The name of one of the server's tools. */
export type ToolName = keyof typeof TOOL_SCOPES;

/** Who the tools act for: recorded as the actor of their commands, and the scope that bounds them. */
export interface Acting {
  /** Recorded as the actor of the commands made over MCP (answers, reviews, created plans). */
  readonly by: string;
  /** What the caller may do (see {@link TOOL_SCOPES}); a tool that needs more is refused, naming the scope. */
  readonly scope: TokenScope;
}

/** What every tool of the MCP server is given: the use cases, who acts, where log lines go. */
export interface ToolContext extends Acting {
  readonly dotplan: Dotplan;
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
