import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { PLAN_STATUSES } from '../../model/types.js';
import { planJson } from '../../plans/plan-view.js';
import { waitJson, type Wait } from '../../plans/waits-for.js';
import type { EdgeRecord, NodeRecord, PlanRecord } from '../../store/types.js';
import { toolCall, type ToolContext } from '../context.js';
import { shown } from '../format.js';
import { guarded, ok } from '../results.js';

const PLAN_ID = z.string().min(1).describe('The plan id, `p_…`, as create_plan or list_plans gave it.');

/** Reading plans: the list, and one plan with its nodes, outputs and result. */
export function registerPlanTools(server: McpServer, context: ToolContext): void {
  const { dotplan } = context;

  server.registerTool(
    'list_plans',
    {
      title: 'List plans',
      description:
        'Lists the stored plans, newest first: id, status, title, when each last changed. Use it to find a plan id for show_plan. ' +
        'Statuses: draft, awaiting_review, running, paused, completed, failed, cancelled, rejected. Example: {"status": "running", "limit": 10}.',
      inputSchema: z.object({
        status: z.enum(PLAN_STATUSES).optional().describe('Only plans in this status.'),
        limit: z.number().int().min(1).max(500).optional().describe('At most this many plans (default 50).'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ status, limit }) =>
      guarded(context, 'list_plans', async () => {
        const all = await dotplan.plans(status !== undefined ? { status } : {});
        const roots = all.filter((p) => p.parent === undefined).reverse();
        const plans = roots.slice(0, limit ?? 50).map((p) => ({
          id: p.id,
          status: p.status,
          title: p.title,
          mode: p.mode,
          ...(p.template !== undefined ? { template: p.template } : {}),
          ...(p.error !== undefined ? { error: p.error } : {}),
          createdAt: p.createdAt,
          updatedAt: p.updatedAt,
        }));
        const more = roots.length - plans.length;
        const lines = plans.map((p) => `- ${p.id} ${p.status} "${p.title}" (updated ${p.updatedAt.toISOString()})`);
        const text =
          plans.length === 0
            ? `no plans${status !== undefined ? ` in status ${status}` : ''}`
            : [`${plans.length} plan${plans.length === 1 ? '' : 's'}, newest first${more > 0 ? ` (${more} more: raise limit)` : ''}:`, ...lines].join('\n');
        return ok(text, { plans, more });
      }),
  );

  server.registerTool(
    'show_plan',
    {
      title: 'Show a plan',
      description:
        "Shows one plan as it stands: its status, what it waits for (a worker, an answer, a review…), each node's id, type and status " +
        'in graph order, the output or answer of each finished node and the error of each failed one, and its result: the final answer ' +
        'of a reflection plan, and the outputs of the end nodes (those nothing follows). Poll it to follow a running plan until its ' +
        'status is completed, failed, cancelled or rejected. `dot: true` adds the plan as DOT with its live state. Example: {"planId": "p_abc123"}.',
      inputSchema: z.object({
        planId: PLAN_ID,
        dot: z.boolean().optional().describe('true: also return the plan as DOT text, with live status, outputs and answers merged in.'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ planId, dot }) =>
      guarded(context, 'show_plan', async () => {
        const [plan, nodes, edges, waits] = await Promise.all([dotplan.plan(planId), dotplan.nodes(planId), dotplan.edges(planId), dotplan.waitingFor(planId)]);
        const text = dot ? await dotplan.show(planId) : undefined;
        const json = planJson(plan, nodes, edges, waits);
        const result = planResult(plan, nodes, edges);
        const waitingFor = waits.map((w) => ({ ...waitJson(w), ...mcpCall(planId, w) }));
        return ok(planText(plan, nodes, edges, waits, result) + (text !== undefined ? `\n\nDOT:\n${text}` : ''), {
          ...json,
          waitingFor,
          result,
          ...(text !== undefined ? { dot: text } : {}),
        });
      }),
  );
}

/** What a finished plan gives: a reflection plan's final answer, and each end node's output or answer once done. */
interface PlanResult {
  answer?: string;
  outputs: Array<{ node: string; output?: string; answer?: string }>;
}

function planResult(plan: PlanRecord, nodes: NodeRecord[], edges: EdgeRecord[]): PlanResult {
  const followed = new Set(edges.map((e) => e.from));
  const outputs = nodes
    .filter((n) => !followed.has(n.id) && n.status === 'done')
    .map((n) => ({ node: n.id, ...(n.output !== undefined ? { output: n.output } : {}), ...(n.answer !== undefined ? { answer: n.answer } : {}) }));
  return { ...(plan.result !== undefined ? { answer: plan.result } : {}), outputs };
}

/** The call that acts on a wait over MCP, where one does. */
function mcpCall(planId: string, wait: Wait): { call?: string } {
  if (wait.for === 'answer' && wait.node !== undefined) return { call: toolCall('answer_question', { planId, nodeId: wait.node, answer: '<answer>' }) };
  if (wait.for === 'review') return { call: `${toolCall('approve_review', { planId })} or reject_review` };
  return {};
}

function planText(plan: PlanRecord, nodes: NodeRecord[], edges: EdgeRecord[], waits: Wait[], result: PlanResult): string {
  const lines = [`plan ${plan.id} "${plan.title}": ${plan.status} (${plan.mode}, revision ${plan.revision})`];
  if (plan.attributes.goal !== undefined) lines.push(`goal: ${plan.attributes.goal}`);
  if (plan.error !== undefined) lines.push(`error: ${plan.error}`);
  for (const wait of waits) {
    const call = mcpCall(plan.id, wait).call;
    lines.push(`waiting for ${wait.text}${call ? ` (call ${call})` : ''}`);
  }
  const ordered = planJson(plan, nodes, edges, []).nodes;
  lines.push(`nodes (${nodes.length}, each after the nodes it waits for):`);
  for (const n of ordered) {
    const facts: string[] = [];
    if (n.status === 'awaiting_input' && typeof n.question === 'string') facts.push(`asks: ${shown(n.question, 300)}`);
    if (n.status === 'awaiting_input' && typeof n.options === 'string') facts.push(`options: ${n.options}`);
    if (typeof n.answer === 'string') facts.push(`answer: ${shown(n.answer)}`);
    if (typeof n.output === 'string') facts.push(`output: ${shown(n.output)}`);
    if (typeof n.error === 'string') facts.push(`error: ${shown(n.error)}`);
    lines.push(`- ${String(n.id)} [${String(n.type)}] ${String(n.status)}${facts.length > 0 ? ` — ${facts.join('; ')}` : ''}`);
  }
  if (result.answer !== undefined) lines.push(`final answer: ${shown(result.answer, 2000)}`);
  if (result.outputs.length > 0) {
    lines.push('result (end nodes):');
    for (const o of result.outputs) lines.push(`- ${o.node}: ${shown(o.output ?? o.answer ?? '', 1000)}`);
  }
  return lines.join('\n');
}
