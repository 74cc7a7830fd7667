import { ValidationError, formatDiagnostic } from '../model/diagnostics.js';
import type { ChildInput, ChildStart, ChildStarter } from '../kinds/agent-child.js';
import { childInputUnread } from '../kinds/agent.js';
import type { NewChild, Store, TreeLimits } from '../store/index.js';
import type { ChildToStart, ClaimedNode } from '../store/types.js';
import type { ToolCatalogue } from '../tools/types.js';
import { nearest } from '../validate/suggest.js';
import { defaultTemplateDirs } from '../templates/index.js';
import { CHILD_PLANS, PreparedTemplates, type ChildAgent } from './child-plans.js';

/** The agents a worker knows, by code (the agent registry). */
export interface AgentLookup {
  get(code: string): (ChildAgent & { agents?: readonly string[] }) | undefined;
  list(): ReadonlyArray<{ code: string }>;
}

export interface StarterDeps {
  store: Store;
  tools: ToolCatalogue;
  agents: AgentLookup;
  limits: TreeLimits;
  cwd: string;
}

/**
 * Starts agent nodes' child plans: finds the node's agent (and checks that the plan's own agent may
 * call it), has the agent's kind make the child's plan (child-plans.ts), and hands it to the store,
 * which creates it with the node's move to wait on it in one transaction. What goes wrong before
 * that fails the attempt, not retried, naming the agent and the fix.
 */
export function childStarter(deps: StarterDeps): ChildStarter {
  const templateDirs = defaultTemplateDirs(deps.cwd);
  const made = new PreparedTemplates();

  /** The child the node's agent makes of its input, or why there is none. */
  async function makeChild(claim: ClaimedNode, input: ChildInput): Promise<NewChild | Refused> {
    const agent = deps.agents.get(input.agentCode);
    if (!agent) {
      const known = deps.agents.list().map((a) => a.code);
      const near = nearest(input.agentCode, known, 3);
      return refuse(
        `AGENT_UNKNOWN: agent node "${claim.nodeId}" names agent "${input.agentCode}", which is not registered` +
          (near.length > 0 ? ` (did you mean ${near.map((c) => `"${c}"`).join(', ')}?)` : known.length === 0 ? ' (no agents are configured)' : ''),
      );
    }
    const notAllowed = callNotAllowed(deps.agents, claim, agent.code);
    if (notAllowed) return refuse(notAllowed);
    const make = CHILD_PLANS[agent.kind];
    if (!make) return refuse(`agent ${agent.code} has kind "${agent.kind}", which this worker cannot run (known: ${Object.keys(CHILD_PLANS).join(', ')})`);
    let prepared;
    try {
      prepared = await make(agent, input, { tools: deps.tools, cwd: deps.cwd, templateDirs, validation: { allowAgent: true }, prepared: made });
    } catch (error) {
      if (error instanceof ValidationError) {
        return refuse(
          `agent ${agent.code}'s plan is not valid: ${error.diagnostics
            .filter((d) => d.severity === 'error')
            .map((d) => formatDiagnostic(d))
            .join('; ')}`,
        );
      }
      return refuse(`agent ${agent.code} could not make its plan: ${error instanceof Error ? error.message : String(error)}`);
    }
    const { warnings: _warnings, ...plan } = prepared;
    return { ...plan, agentCode: agent.code, detach: input.detach };
  }

  return {
    async start(claim, input, _signal, handOff): Promise<ChildStart> {
      const child = await makeChild(claim, input);
      if ('kind' in child) return child;
      return deps.store.tree.startChild(claim, child, deps.limits, handOff);
    },
    // A child made here is started in the write that hands its node over; a detached one, or one that
    // needs upstream outputs read or is refused, is left to the worker (start, as the node runs).
    async prepare(claim): Promise<ChildToStart | undefined> {
      const input = await childInputUnread(claim);
      if (!input || input.detach) return undefined;
      const child = await makeChild(claim, input);
      return 'kind' in child ? undefined : { child, limits: deps.limits };
    },
  };
}

/**
 * In a child plan, an agent node may name only the agents its plan's agent may call (its `agents`):
 * why this one may not, or undefined.
 */
export function callNotAllowed(agents: Pick<AgentLookup, 'get'>, claim: Pick<ClaimedNode, 'planAgent'>, code: string): string | undefined {
  if (claim.planAgent === undefined) return undefined;
  if (agents.get(claim.planAgent)?.agents?.includes(code)) return undefined;
  return `AGENT_NOT_ALLOWED: agent ${claim.planAgent} may not call agent ${code}; add "${code}" to ${claim.planAgent}'s agents`;
}

type Refused = Extract<ChildStart, { kind: 'failed' }>;

function refuse(error: string): Refused {
  return { kind: 'failed', error, retryable: false };
}
