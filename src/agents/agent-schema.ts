import { z } from 'zod';
import { TOOL_CODE, toolCodeRule } from '../tools/tool-schema.js';
import { AGENT_KINDS, type AgentDefinition } from './types.js';

const kinds = Object.keys(AGENT_KINDS) as Array<keyof typeof AGENT_KINDS>;
const code = z.string().regex(TOOL_CODE, { error: (issue) => toolCodeRule(issue.input) });
const names = z.array(code);

/** An agent's definition as the config file and `openDotplan({ agents })` give it; each problem worded for its field. */
export const agentSchema = z
  .strictObject({
    code,
    description: z.string({ error: 'must say what the agent does (a string)' }).min(1, 'must say what the agent does'),
    kind: z.enum(kinds, { error: (issue) => `must be one of ${kinds.join(', ')} (got ${JSON.stringify(issue.input)})` }),
    tools: names.optional(),
    agents: names.optional(),
    systemPrompt: z.string().min(1).optional(),
    template: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    limits: z.strictObject({ maxTurns: z.int().min(1).optional() }).optional(),
  })
  .superRefine((agent, ctx) => {
    const needs = AGENT_KINDS[agent.kind].needsTemplate;
    if (needs && agent.template === undefined)
      ctx.addIssue({ code: 'custom', path: ['template'], message: `is required for a ${agent.kind} agent (the template its child plans are made from)` });
    if (!needs && agent.template !== undefined)
      ctx.addIssue({ code: 'custom', path: ['template'], message: `is only for workflow agents (a ${agent.kind} agent plans with the LLM)` });
  });

/** Checks a list of definitions; the message names the entry (`agents[1] (searcher)`), the field and the fix. */
export function parseAgents(value: unknown, where: string): { ok: true; value: AgentDefinition[] } | { ok: false; reason: string } {
  if (!Array.isArray(value))
    return { ok: false, reason: `${where} must be a list of agents such as [{"code": "searcher", "kind": "react", "description": "...", "tools": ["http"]}]` };
  const out: AgentDefinition[] = [];
  for (const [index, entry] of value.entries()) {
    const parsed = agentSchema.safeParse(entry);
    const name = (entry as { code?: unknown } | null)?.code;
    const at = `${where}[${index}]${typeof name === 'string' ? ` (${name})` : ''}`;
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
      return { ok: false, reason: `${at}${field} ${issue.code === 'unrecognized_keys' ? `has unknown field(s) ${issue.keys.join(', ')}` : issue.message}` };
    }
    out.push(parsed.data);
  }
  return { ok: true, value: out };
}
