import { McpServer } from '@modelcontextprotocol/server';
import { packageVersion } from '../config/package-version.js';
import type { Dotplan } from '../operations/dotplan.js';
import { defaultActor } from '../operations/actor.js';
import type { TokenScope } from '../operations/tokens.js';
import { InFlight, type ToolContext } from './context.js';
import { registerAuthoringTools } from './tools/authoring.js';
import { registerPeopleTools } from './tools/people.js';
import { registerPlanTools } from './tools/plans.js';

/** What {@link createMcpServer} takes besides the use cases. */
export interface McpServerSettings {
  /** Recorded as the actor of the commands made over MCP; default: the OS user, as the CLI's. Over HTTP: the token's name. */
  by?: string;
  /**
   * What the caller may do; a tool that needs more (see `TOOL_SCOPES`) is refused, naming the scope.
   * Default `admin`: over stdio the server acts with every right of the user who started it. Over HTTP: the token's scope.
   */
  scope?: TokenScope;
  /** Where the server's log lines go; default stderr (stdout carries the protocol over stdio). */
  log?: (line: string) => void;
}

/** Told to the model when it connects: what the server is for and the usual order of calls. */
const INSTRUCTIONS = [
  'dotplan runs execution plans written as Graphviz DOT digraphs: each node is a step (a tool call, a question for a person, an agent),',
  'each edge `a -> b` means b waits for a. This server authors and steers plans; a dotplan worker on the same database runs their nodes.',
  'Typical flow: list_templates (or write DOT and check it with validate_plan) → create_plan → show_plan to follow it →',
  'list_inbox for questions and reviews → answer_question / approve_review / reject_review → show_plan until the plan is completed,',
  'then read its result there. A refused call (isError) says what was wrong and how to fix it.',
].join(' ');

/** The MCP server over a Dotplan, and a way to wait for the calls it is serving. */
export interface DotplanMcpServer {
  /** The SDK's server, its tools registered; connect it to a transport (`serveStdio` for stdio). */
  readonly server: McpServer;
  /** Resolves once every tool call started so far has settled (before the store is closed). */
  settled(): Promise<void>;
}

/**
 * dotplan as an MCP server: the tools a model uses to author, run and steer plans, on the given
 * use cases (the plans of one database), acting as `settings.by` with `settings.scope`. The transport is
 * the caller's: `serveStdio` for one host over stdio, or one server per request under `dotplan serve`
 * (see http.ts).
 */
export function createMcpServer(dotplan: Dotplan, settings: McpServerSettings = {}): DotplanMcpServer {
  const server = new McpServer({ name: 'dotplan', title: 'dotplan', version: packageVersion() }, { instructions: INSTRUCTIONS });
  const calls = new InFlight();
  const context: ToolContext = {
    dotplan,
    by: settings.by ?? defaultActor(),
    scope: settings.scope ?? 'admin',
    log: settings.log ?? ((line) => void process.stderr.write(`${line}\n`)),
    calls,
  };
  registerAuthoringTools(server, context);
  registerPlanTools(server, context);
  registerPeopleTools(server, context);
  return { server, settled: () => calls.settled() };
}
