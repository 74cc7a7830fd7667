import type { ToolInputSchema } from '../tools/types.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { PlanGraph } from '../model/types.js';

/** What validation needs to know about the tool registry (a ToolCatalogue fits). */
export interface ToolLookup {
  has(code: string): boolean;
  list?(): { code: string }[];
  /** The tool, for its input schema: a literal `toolInput` is checked against it (TOOL_INPUT_INVALID). */
  get?(code: string): { inputSchema?: ToolInputSchema } | undefined;
  /** Why a code that is not here may still be a tool (its MCP server could not be listed): TOOL_UNKNOWN then says so. */
  unavailable?(code: string): string | undefined;
}

/** What validation needs to know about the agent registry (an AgentRegistry fits). */
export interface AgentLookupForValidation {
  has(code: string): boolean;
  get(code: string): { agents?: readonly string[] } | undefined;
  list(): ReadonlyArray<{ code: string }>;
}

export interface ValidateOptions {
  tools: ToolLookup;
  /** A name for the input (file path, "template foo", "LLM reply"), used in messages. */
  source?: string;
  /** Default true; false reports agent nodes as NODE_TYPE_NOT_SUPPORTED errors. */
  allowAgent?: boolean;
  /** The registered agents: agent nodes must name one (AGENT_UNKNOWN). Without it, agentCode is not checked. */
  agents?: AgentLookupForValidation;
  /** A child plan's agent: its agent nodes may name only the agents it may call (AGENT_NOT_ALLOWED). */
  planAgent?: string;
  /** Input caps for DOT text (see readDot). */
  maxBytes?: number;
  maxASTNodes?: number;
}

/** The validator's verdict on a plan: `valid` and every diagnostic. */
export interface ValidationResult {
  /** True when no diagnostic is an error (warnings allowed). */
  valid: boolean;
  /** Errors first, then warnings, each in source order. */
  diagnostics: Diagnostic[];
  /** The graph with statuses in canonical English (a missing status is `pending`); absent when the DOT could not be read. */
  graph?: PlanGraph;
}
