import type { z } from 'zod';

/** What a tool gets besides its input. */
export interface ToolContext {
  /** The plan the node belongs to. */
  planId: string;
  /** The node that calls the tool. */
  nodeId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Aborts on timeout, plan cancellation or worker shutdown. */
  signal: AbortSignal;
  /**
   * A line for the people who follow the plan: to the worker's `log` option
   * (`dotplan.worker({ log })`) when it has one, else a `log` event of the node in the plan's audit log.
   */
  log: (message: string) => void;
}

/** What a tool's `inputSchema` may be besides a zod schema: anything with zod's `safeParse`. */
export interface ToolInputSchema {
  /** Checks the node's resolved input: `success`, and the value to run with (`data`) or why not (`error`, zod's issues or any value). */
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: unknown };
  /** The input as a JSON schema, shown to the LLM (an MCP tool's own schema); zod schemas are converted without it. */
  toJSONSchema?(): Record<string, unknown>;
}

/**
 * A registered TypeScript function a function node calls by `toolCode`. User modules (`--tools`)
 * default-export an array of these; `openDotplan({ tools })` takes them too.
 *
 * @typeParam I - the input it runs with (after `inputSchema`)
 * @typeParam O - what it returns: a string is stored as it is, anything else as JSON
 */
export interface Tool<I = unknown, O = unknown> {
  /** The name function nodes call it by (`toolCode`): letters, digits, `_ . : -`, starting with a letter or `_`. */
  code: string;
  /** One line for people and for the LLM's catalogue of tools. */
  description?: string;
  /** Checks (and may transform) the input before `run`; a refused input fails the attempt without retries. */
  inputSchema?: z.ZodType<I> | ToolInputSchema;
  /** Runs one attempt; a thrown error fails it (retried unless it says `retryable = false`). */
  run(input: I, ctx: ToolContext): Promise<O> | O;
}

/** The catalogue of tools known to validation and to the worker. */
export interface ToolCatalogue {
  /** Whether a tool has this code. */
  has(code: string): boolean;
  /** The tool with this code. */
  get(code: string): Tool | undefined;
  /** Every tool, built-in ones first. */
  list(): Tool[];
  /**
   * Keeps what the tools hold open (the MCP servers' connections) while a worker runs; the returned
   * function lets go, and the last to let go closes them.
   */
  hold?(): () => Promise<void>;
  /** Ends what the tools hold open, whoever holds it: `dotplan.close()` calls it. */
  close?(): Promise<void>;
  /**
   * Why a tool of this code is not known though it may exist (its MCP server could not be listed),
   * or undefined: validation and the worker name the reason instead of "not registered".
   */
  unavailable?(code: string): string | undefined;
}
