import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Dotplan } from '../../operations/dotplan.js';
import type { TokenScope } from '../../operations/tokens.js';
import type { HttpEnv } from '../auth.js';
import { actedBy, addEndpoint } from '../endpoint.js';
import { CommandBody, NodeParams, NodeSchema, PlanIdParams, PlanSchema } from '../schemas.js';
import { applyAnswer } from './apply-answer.js';

/**
 * Status changes are commands (POST), each one driver's move: a person answers, approves, rejects or
 * modifies (`answer` scope); an operator cancels, pauses, resumes, retries and skips (`operate`). The
 * token's name is the actor in the audit log; a move the state machine refuses is a 409 saying why.
 */
const PLAN_COMMANDS: ReadonlyArray<{ name: 'cancel' | 'pause' | 'resume' | 'approve'; scope: TokenScope; summary: string }> = [
  { name: 'cancel', scope: 'operate', summary: 'Cancel the plan (and its child plans)' },
  { name: 'pause', scope: 'operate', summary: 'Pause the plan: nothing new is claimed until it is resumed' },
  { name: 'resume', scope: 'operate', summary: 'Resume a paused plan' },
  { name: 'approve', scope: 'answer', summary: 'Approve a plan that waits for review: it starts' },
];

const NODE_COMMANDS: ReadonlyArray<{ name: 'retry' | 'skip'; summary: string }> = [
  { name: 'retry', summary: 'Run a failed node again (a fresh set of attempts)' },
  { name: 'skip', summary: 'Skip a node that has not finished; its dependants go on' },
];

export function commandRoutes(app: OpenAPIHono<HttpEnv>, dotplan: Dotplan): void {
  for (const command of PLAN_COMMANDS) {
    addEndpoint(
      app,
      {
        method: 'post',
        path: `/v1/plans/{planId}/${command.name}`,
        scope: command.scope,
        tag: 'commands',
        summary: command.summary,
        params: PlanIdParams,
        body: CommandBody,
        ok: { description: 'The plan after the move.', schema: PlanSchema },
        errors: [404, 409],
      },
      async ({ params, body, principal }) => dotplan[command.name](params.planId, actedBy(principal, body)),
    );
  }

  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/plans/{planId}/reject',
      scope: 'answer',
      tag: 'commands',
      summary: 'Reject a plan that waits for review (it ends, rejected)',
      params: PlanIdParams,
      body: z.object({ reason: z.string().min(1).max(2000) }).strict(),
      ok: { description: 'The plan, rejected.', schema: PlanSchema },
      errors: [404, 409],
    },
    async ({ params, body, principal }) => dotplan.reject(params.planId, { by: principal.name, reason: body.reason }),
  );

  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/plans/{planId}/modify',
      scope: 'answer',
      tag: 'commands',
      summary: 'Modify a plan under review: a new DOT text, or a suggestion for the LLM (reflection plans)',
      params: PlanIdParams,
      body: z.union([
        z.object({ dot: z.string().min(1), reason: z.string().max(2000).optional() }).strict(),
        z.object({ suggestion: z.string().min(1).max(20_000), reason: z.string().max(2000).optional() }).strict(),
      ]),
      ok: { description: 'An edit: the apply report; a suggestion: the plan.', schema: z.record(z.string(), z.unknown()) },
      errors: [404, 409],
    },
    async ({ params, body, principal, c }) => {
      const options = actedBy(principal, body);
      if ('dot' in body) return applyAnswer(c, await dotplan.modify(params.planId, { dot: body.dot, source: '<request>' }, options));
      return dotplan.modify(params.planId, { suggestion: body.suggestion }, options);
    },
  );

  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/plans/{planId}/nodes/{nodeId}/answer',
      scope: 'answer',
      tag: 'commands',
      summary: "Answer a confirm node's question (one of its options, or free text where allowed)",
      params: NodeParams,
      body: z.object({ text: z.string().min(1).max(100_000) }).strict(),
      ok: { description: 'The node after the answer.', schema: NodeSchema },
      errors: [404, 409],
    },
    async ({ params, body, principal }) => dotplan.answer(params.planId, params.nodeId, body.text, { by: principal.name }),
  );

  for (const command of NODE_COMMANDS) {
    addEndpoint(
      app,
      {
        method: 'post',
        path: `/v1/plans/{planId}/nodes/{nodeId}/${command.name}`,
        scope: 'operate',
        tag: 'commands',
        summary: command.summary,
        params: NodeParams,
        body: CommandBody,
        ok: { description: 'The node after the move.', schema: NodeSchema },
        errors: [404, 409],
      },
      async ({ params, body, principal }) => dotplan[command.name](params.planId, params.nodeId, actedBy(principal, body)),
    );
  }
}
