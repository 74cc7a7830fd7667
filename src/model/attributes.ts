import { PLAN_MODES } from './plan-modes.js';
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { normaliseStatus } from './status.js';
import { NODE_STATUSES, NODE_TYPES, type Attributes, type NodeStatus, type NodeType } from './types.js';

/**
 * Typed node and graph attributes (SPEC §2). DOT gives every value as a string; these schemas read
 * them into typed values. The validator reports what they reject with a place and a fix; the worker
 * uses `readNodeAttributes` / `parseToolCalls` to run nodes.
 */

export const nodeTypeSchema = z.enum(NODE_TYPES);

/** A canonical status or one of the seed's Chinese aliases, read as the canonical name. */
export const nodeStatusSchema = z.string().transform((value, ctx): NodeStatus => {
  const status = normaliseStatus(value);
  if (status === undefined) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a status (allowed: ${NODE_STATUSES.join(', ')})` });
    return z.NEVER;
  }
  return status;
});

/** `retries`: a non-negative integer, as text. */
export const retriesSchema = z
  .string()
  .regex(/^\s*\d+\s*$/, 'must be a non-negative whole number, like 3')
  .transform((value) => Number(value));

/** `retryDelay`, `timeout`: a duration (`500ms`, `10s`, `5m`, `1h`, plain number = ms). */
export const durationSchema = z.string().transform((value, ctx): number => {
  const ms = parseDuration(value);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be a duration like 500ms, 10s, 5m or 1h (a plain number means milliseconds)' });
    return z.NEVER;
  }
  return ms;
});

/** One call of a multiFunction node. */
export const toolCallSchema = z.object(
  {
    toolCode: z.string({ error: 'has no "toolCode" string' }).min(1, 'has an empty "toolCode"'),
    toolInput: z.unknown().optional(),
  },
  { error: 'is not an object {"toolCode": ..., "toolInput": ...}' },
);
export type ToolCall = z.infer<typeof toolCallSchema>;

/** `toolCalls`: a JSON array of `{"toolCode": ..., "toolInput": ...}`, at least one. */
export const toolCallsSchema = z
  .string()
  .transform((text, ctx): unknown => {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `is not JSON (${(error as Error).message})` });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(toolCallSchema, { error: 'is not a JSON array like [{"toolCode": "echo", "toolInput": "hi"}]' })
      .min(1, 'is an empty array (list at least one call)'),
  );

/** Graph (plan-level) settings. */
export { PLAN_MODES };
export const ON_FAILURE = ['stop', 'continue'] as const;
export const REVIEW = ['required', 'none'] as const;
export const ON_REVIEW_TIMEOUT = ['reject', 'approve'] as const;
export const BOOLEAN = ['true', 'false'] as const;
/** How a function node's output is checked before it counts as done (node attribute, plan default as a graph attribute). */
export const VERIFY = ['none', 'nonEmpty', 'json', 'llm'] as const;
export const verifySchema = z.enum(VERIFY);
export const planModeSchema = z.enum(PLAN_MODES);
export const onFailureSchema = z.enum(ON_FAILURE);
export const reviewSchema = z.enum(REVIEW);

const optional = <T extends z.ZodType>(schema: T) => schema.optional();

/** Every attribute the engine understands, typed; unknown attributes (color, fontname...) pass through. */
export const nodeAttributesSchema = z.looseObject({
  label: z.string().optional(),
  shape: z.string().optional(),
  type: nodeTypeSchema,
  status: optional(nodeStatusSchema),
  toolCode: z.string().optional(),
  toolInput: z.string().optional(),
  toolOutput: z.string().optional(),
  toolCalls: optional(toolCallsSchema),
  question: z.string().optional(),
  /** The answers a person may give, comma-separated (`multiple=true`: several of them). */
  options: z.string().optional(),
  multiple: optional(z.enum(BOOLEAN, { error: 'must be true or false' })),
  /** Waiting for an answer: a reminder every this long; after answerTimeout the engine takes `default` (or fails the node). */
  remindEvery: optional(durationSchema),
  answerTimeout: optional(durationSchema),
  default: z.string().optional(),
  answer: z.string().optional(),
  component: z.string().optional(),
  payload: z.string().optional(),
  agentCode: z.string().optional(),
  task: z.string().optional(),
  retries: optional(retriesSchema),
  retryDelay: optional(durationSchema),
  timeout: optional(durationSchema),
  verify: optional(verifySchema),
  error: z.string().optional(),
});
export type NodeAttributes = z.output<typeof nodeAttributesSchema> & { type: NodeType; status?: NodeStatus };

export const graphAttributesSchema = z.looseObject({
  mode: optional(planModeSchema),
  goal: z.string().optional(),
  params: z.string().optional(),
  review: optional(reviewSchema),
  onFailure: optional(onFailureSchema),
  verify: optional(verifySchema),
  /** Waiting for review: a reminder every remindEvery; after reviewTimeout the engine applies onReviewTimeout (default reject). */
  remindEvery: optional(durationSchema),
  reviewTimeout: optional(durationSchema),
  onReviewTimeout: optional(z.enum(ON_REVIEW_TIMEOUT, { error: 'must be reject or approve' })),
  /** The configured notifiers (by name, comma-separated) this plan's notices go to; `none`: the console only. Default: all. */
  notify: z.string().optional(),
  retries: optional(retriesSchema),
  retryDelay: optional(durationSchema),
  timeout: optional(durationSchema),
});
export type GraphAttributes = z.output<typeof graphAttributesSchema>;

/** Typed view of a node's attributes; throws a zod error when they do not fit (validate first). */
export function readNodeAttributes(attributes: Attributes): NodeAttributes {
  return nodeAttributesSchema.parse(attributes);
}

export function readGraphAttributes(attributes: Attributes): GraphAttributes {
  return graphAttributesSchema.parse(attributes);
}

/** The calls of a multiFunction node, or the reason they cannot be read. */
export function parseToolCalls(text: string): { ok: true; calls: ToolCall[] } | { ok: false; reason: string } {
  const result = toolCallsSchema.safeParse(text);
  if (result.success) return { ok: true, calls: result.data };
  return { ok: false, reason: describeIssues(result.error) };
}

/** A zod error on toolCalls in words: `call 2 has no "toolCode" string`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const [index, ...rest] = issue.path;
      const where = typeof index === 'number' ? `call ${index + 1}${rest.length > 1 ? ` (${rest.join('.')})` : ''} ` : '';
      return `${where}${issue.message}`;
    })
    .join('; ');
}

/** A comma-separated list (`options="approve,reject,later"`, a plan's `notify="ops,audit"`, list settings): trimmed, empty items dropped. */
export function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
}
