import { z } from '@hono/zod-openapi';
import { NODE_STATUSES, PLAN_STATUSES } from '../model/types.js';

/** The request and answer shapes of the HTTP API: checked on the way in, and the OpenAPI document's components. */

export const DiagnosticSchema = z
  .object({
    code: z.string().openapi({ example: 'CYCLE' }),
    severity: z.enum(['error', 'warning']),
    message: z.string(),
    node: z.string().optional(),
    edge: z.object({ from: z.string(), to: z.string() }).optional(),
    attribute: z.string().optional(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
    fix: z.string().optional(),
  })
  .openapi('Diagnostic');

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().openapi({ description: "dotplan's error code (NOT_FOUND, ILLEGAL_TRANSITION, MERGE_CONFLICT, VALIDATION_FAILED …)" }),
    diagnostics: z.array(DiagnosticSchema).optional(),
    argument: z.string().optional(),
    conflicts: z.array(z.unknown()).optional(),
  })
  .openapi('Problem');

const Attributes = z.record(z.string(), z.string());
const Timestamp = z.string().openapi({ format: 'date-time' });

export const PlanSchema = z
  .object({
    id: z.string().openapi({ example: 'p_01jd8x' }),
    title: z.string(),
    status: z.enum(PLAN_STATUSES),
    mode: z.string(),
    template: z.string().optional(),
    params: z.record(z.string(), z.string()),
    attributes: Attributes,
    revision: z.number().int(),
    error: z.string().optional(),
    result: z.string().optional(),
    tokensUsed: z.number().int().optional(),
    rerunOf: z.string().optional(),
    parent: z.object({ planId: z.string(), nodeId: z.string(), attempt: z.number().int() }).optional(),
    rootPlanId: z.string().optional(),
    depth: z.number().int().optional(),
    agentCode: z.string().optional(),
    instance: z.string().optional(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Plan');

export const NodeSchema = z
  .object({
    planId: z.string(),
    id: z.string(),
    type: z.string(),
    status: z.enum(NODE_STATUSES),
    label: z.string().optional(),
    attributes: Attributes,
    cluster: z.string().optional(),
    attempts: z.number().int(),
    output: z.string().optional(),
    answer: z.string().optional(),
    error: z.string().optional(),
    skippedBy: z.string().optional(),
    waiting: z.number().int(),
    taken: z.number().int(),
    runAfter: Timestamp.optional(),
    leaseOwner: z.string().optional(),
    childPlanId: z.string().optional(),
    leaseExpiresAt: Timestamp.optional(),
    startedAt: Timestamp.optional(),
    finishedAt: Timestamp.optional(),
    updatedAt: Timestamp,
  })
  .openapi('Node');

export const EventSchema = z
  .object({
    id: z.number().int(),
    planId: z.string(),
    nodeId: z.string().optional(),
    kind: z.string(),
    driver: z.string(),
    actor: z.string().optional(),
    from: z.string(),
    to: z.string(),
    reason: z.string().optional(),
    detail: z.record(z.string(), z.unknown()).optional(),
    at: Timestamp,
  })
  .openapi('Event');

export const ChangeSchema = z.record(z.string(), z.unknown()).openapi('Change', { description: 'A node, edge, attribute or status change (see `plan diff`).' });

export const ApplyReportSchema = z
  .object({
    applied: z.boolean(),
    revision: z.number().int().nullable(),
    base: z.object({ revision: z.number().int(), asOfEvent: z.number().int().optional() }).nullable(),
    changes: z.array(ChangeSchema),
    conflicts: z.array(z.record(z.string(), z.unknown())),
    diagnostics: z.array(DiagnosticSchema),
  })
  .openapi('ApplyReport');

export const PlanIdParams = z.object({
  planId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'planId', in: 'path' }, example: 'p_01jd8x' }),
});
export const NodeParams = PlanIdParams.extend({
  nodeId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'nodeId', in: 'path' }, example: 'fetch' }),
});

/** Who does a command and why: `reason` is recorded in the audit log; the actor is the token's name. */
export const CommandBody = z
  .object({ reason: z.string().max(2000).optional() })
  .strict()
  .openapi('Command');

export const AfterQuery = z.object({
  after: z.coerce.number().int().min(0).optional().openapi({ description: 'Only events with a larger id.' }),
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ description: 'At most this many (default 500).' }),
});
