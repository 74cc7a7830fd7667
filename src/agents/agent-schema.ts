import { z } from 'zod';
import { parseDuration } from '../model/duration.js';
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
    url: z.url({ protocol: /^https?$/, error: 'must be the agent\'s http(s) base URL, e.g. "https://agents.example.com/research"' }).optional(),
    auth: z.strictObject({ bearer: z.string().min(1, 'must be the token or env:NAME') }).optional(),
    redact: z.array(z.string().min(1).refine(isRegExp, { error: 'must be a regular expression (JavaScript syntax)' })).optional(),
    allowSkills: z.array(z.string().min(1)).optional(),
    skill: z.string().min(1).optional(),
    maxPayload: z.int().min(1).optional(),
    allowHosts: z.array(z.string().min(1)).optional(),
    mode: z.enum(['stream', 'detached'], { error: (issue) => `must be "stream" or "detached" (got ${JSON.stringify(issue.input)})` }).optional(),
    pollEvery: z
      .string()
      .refine((text) => (parseDuration(text) ?? 0) >= 1000, { error: 'must be a duration of at least 1s, such as "30s" or "5m"' })
      .optional(),
  })
  .superRefine((agent, ctx) => {
    const remote = AGENT_KINDS[agent.kind].remote;
    if (remote && agent.url === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: `is required for an ${agent.kind} agent (its base URL; the card is read from /.well-known/agent-card.json under it)`,
      });
    for (const field of REMOTE_FIELDS) {
      if (!remote && agent[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `is only for a2a agents (a ${agent.kind} agent runs here)` });
    }
    for (const field of LOCAL_FIELDS) {
      if (remote && agent[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `is not for an ${agent.kind} agent (it runs at its url, with its own tools and model)` });
    }
    if (agent.pollEvery !== undefined && agent.mode !== 'detached')
      ctx.addIssue({ code: 'custom', path: ['pollEvery'], message: 'is only for mode "detached" (a streamed task is followed as it goes)' });
    if (agent.skill !== undefined && agent.allowSkills !== undefined && !agent.allowSkills.includes(agent.skill))
      ctx.addIssue({ code: 'custom', path: ['skill'], message: `"${agent.skill}" is not among allowSkills (${agent.allowSkills.join(', ')})` });
    const needs = AGENT_KINDS[agent.kind].needsTemplate;
    if (needs && agent.template === undefined)
      ctx.addIssue({ code: 'custom', path: ['template'], message: `is required for a ${agent.kind} agent (the template its child plans are made from)` });
    if (!needs && agent.template !== undefined)
      ctx.addIssue({ code: 'custom', path: ['template'], message: `is only for workflow agents (a ${agent.kind} agent plans with the LLM)` });
  });

const REMOTE_FIELDS = ['url', 'auth', 'redact', 'allowSkills', 'skill', 'maxPayload', 'allowHosts', 'mode', 'pollEvery'] as const;
const LOCAL_FIELDS = ['tools', 'agents', 'systemPrompt', 'model', 'limits'] as const;

function isRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, 'g');
    return true;
  } catch {
    return false;
  }
}

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
