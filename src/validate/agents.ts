import type { Diagnostic } from '../model/diagnostics.js';
import { atNode, q, type Check } from './context.js';
import { nearest } from './suggest.js';

/**
 * Agent nodes name registered agents (`agentCode`, like `toolCode`), and only agents the plan's own
 * agent may call (a child plan's agent's `agents`); `agentParams` is a JSON object; `detach` true or
 * false. Checked when the options carry the agents (a root plan: any registered agent).
 */
export const checkAgents: Check = (ctx) => {
  const agents = ctx.options.agents;
  const out: Diagnostic[] = [];
  for (const node of ctx.graph.nodes) {
    if (ctx.typeOf(node) !== 'agent') continue;
    const code = node.attributes['agentCode']?.trim();
    if (agents && code) {
      if (!agents.has(code)) {
        const known = agents.list().map((a) => a.code);
        const near = nearest(code, known, 3);
        out.push({
          code: 'AGENT_UNKNOWN',
          severity: 'error',
          message: `agent ${q(code)} of node ${q(node.id)} is not registered${known.length === 0 ? ' (no agents are configured)' : ''}`,
          ...atNode(node, 'agentCode'),
          fix:
            near.length > 0
              ? `use a registered agent such as "${near[0]}" (dotplan agent list)`
              : 'register it under "agents" in the config file (dotplan agent list)',
        });
      } else if (ctx.options.planAgent !== undefined && !(agents.get(ctx.options.planAgent)?.agents ?? []).includes(code)) {
        out.push({
          code: 'AGENT_NOT_ALLOWED',
          severity: 'error',
          message: `node ${q(node.id)} calls agent ${q(code)}, which agent ${q(ctx.options.planAgent)} (this plan's agent) may not call`,
          ...atNode(node, 'agentCode'),
          fix: `add "${code}" to the "agents" of agent ${ctx.options.planAgent}, or use one it may call`,
        });
      }
    }
    const params = node.attributes['agentParams'];
    if (params !== undefined && params.trim() !== '' && !isJsonObject(params)) {
      out.push({
        code: 'AGENT_PARAMS_INVALID',
        severity: 'error',
        message: `agentParams of node ${q(node.id)} is not a JSON object`,
        ...atNode(node, 'agentParams'),
        fix: 'write a JSON object: agentParams="{\\"topic\\": \\"...\\"}"',
      });
    }
    const detach = node.attributes['detach'];
    if (detach !== undefined && detach !== 'true' && detach !== 'false') {
      out.push({
        code: 'AGENT_PARAMS_INVALID',
        severity: 'error',
        message: `detach of node ${q(node.id)} is ${q(detach)}`,
        ...atNode(node, 'detach'),
        fix: 'write detach=true or detach=false',
      });
    }
  }
  return out;
};

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}
