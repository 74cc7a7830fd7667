import type { z } from 'zod';

/** What a tool gets besides its input. */
export interface ToolContext {
  planId: string;
  nodeId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Aborts on timeout, plan cancellation or worker shutdown. */
  signal: AbortSignal;
  log: (message: string) => void;
}

/**
 * A registered TypeScript function a function node calls by `toolCode`. User modules (`--tools`)
 * default-export an array of these; `inputSchema` is optional (a zod schema or any object with
 * `safeParse`).
 */
export interface Tool<I = unknown, O = unknown> {
  code: string;
  description?: string;
  inputSchema?: z.ZodType<I> | { safeParse(value: unknown): { success: boolean; data?: unknown; error?: unknown } };
  run(input: I, ctx: ToolContext): Promise<O> | O;
}

/** The catalogue of tools known to validation and to the worker. */
export interface ToolCatalogue {
  has(code: string): boolean;
  get(code: string): Tool | undefined;
  list(): Tool[];
}
