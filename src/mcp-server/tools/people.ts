import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ToolContext } from '../context.js';
import { inboxCalls, inboxText } from '../format.js';
import { guarded, ok } from '../results.js';

const PLAN_ID = z.string().min(1).describe('The plan id, `p_…`, as list_inbox, create_plan or list_plans gave it.');

/** People in the loop: what waits for a person, answering a question, deciding a review. */
export function registerPeopleTools(server: McpServer, context: ToolContext): void {
  const { dotplan, by } = context;

  server.registerTool(
    'list_inbox',
    {
      title: 'List what waits for a person',
      description:
        'Lists everything waiting for a person, oldest first: questions (a node waiting for an answer: its plan, node id, question ' +
        'and the options it accepts) and reviews (a plan waiting to be approved or rejected before it runs), each with the call that ' +
        'acts on it (answer_question, or approve_review / reject_review). Give `planId` for one plan (and its child plans) only. ' +
        'Example: {} or {"planId": "p_abc123"}.',
      inputSchema: z.object({ planId: PLAN_ID.optional() }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ planId }) =>
      guarded(context, 'list_inbox', async () => {
        const entries = await dotplan.inbox(planId !== undefined ? { planId } : {});
        const items = entries.map(({ command: _command, ...entry }) => ({ ...entry, calls: inboxCalls(entry) }));
        const text =
          entries.length === 0
            ? `nothing waits for a person${planId !== undefined ? ` in plan ${planId}` : ''}`
            : [`${entries.length} waiting, oldest first:`, ...entries.map(inboxText)].join('\n');
        return ok(text, { items });
      }),
  );

  server.registerTool(
    'answer_question',
    {
      title: 'Answer a question',
      description:
        "Answers a node that waits for a person's answer (a question from list_inbox); the plan goes on from there. When the node lists " +
        'options, the answer must be one of them (case does not matter; a node with `multiple` takes several, comma-separated). ' +
        'The same answer again is accepted; a different answer to an answered node is refused. Example: ' +
        '{"planId": "p_abc123", "nodeId": "approve", "answer": "yes"}.',
      inputSchema: z.object({
        planId: PLAN_ID,
        nodeId: z.string().min(1).describe('The id of the node that asks, as list_inbox gave it.'),
        answer: z.string().describe('The answer: one of the options when the question lists them, otherwise free text.'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ planId, nodeId, answer }) =>
      guarded(context, 'answer_question', async () => {
        const node = await dotplan.answer(planId, nodeId, answer, { by });
        const plan = await dotplan.plan(planId);
        const text = `answered node ${nodeId} of plan ${planId} with ${JSON.stringify(node.answer ?? answer)} as ${by}: the node is ${node.status}, the plan ${plan.status}. Follow it with show_plan.`;
        return ok(text, { planId, nodeId, answer: node.answer ?? answer, nodeStatus: node.status, planStatus: plan.status, by });
      }),
  );

  server.registerTool(
    'approve_review',
    {
      title: 'Approve a plan under review',
      description:
        'Approves a plan that waits for review (a review in list_inbox; a plan created with review required): it starts running. ' +
        'Only a plan in status awaiting_review can be approved. Example: {"planId": "p_abc123", "reason": "looks right"}.',
      inputSchema: z.object({
        planId: PLAN_ID,
        reason: z.string().optional().describe("Why, recorded with the approval in the plan's events (optional)."),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ planId, reason }) =>
      guarded(context, 'approve_review', async () => {
        const plan = await dotplan.approve(planId, { by, reason: reason ?? `approved by ${by} over MCP` });
        return ok(`approved plan ${planId} "${plan.title}" as ${by}: it is ${plan.status}. Follow it with show_plan.`, {
          planId,
          status: plan.status,
          by,
        });
      }),
  );

  server.registerTool(
    'reject_review',
    {
      title: 'Reject a plan under review',
      description:
        'Rejects a plan that waits for review, saying why: it ends rejected and nothing of it ever runs (this cannot be undone; ' +
        'create a new plan instead). Only a plan in status awaiting_review can be rejected. ' +
        'Example: {"planId": "p_abc123", "reason": "the budget step is missing"}.',
      inputSchema: z.object({
        planId: PLAN_ID,
        reason: z.string().min(1).describe("Why it is rejected, recorded in the plan's events (required)."),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ planId, reason }) =>
      guarded(context, 'reject_review', async () => {
        const plan = await dotplan.reject(planId, { by, reason });
        return ok(`rejected plan ${planId} "${plan.title}" as ${by}: it is ${plan.status}; nothing of it will run.`, { planId, status: plan.status, by });
      }),
  );
}
