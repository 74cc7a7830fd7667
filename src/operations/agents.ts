import { RemoteAgents } from '../agents/a2a/remote-agents.js';
import { childStarter } from '../agents/start-child.js';
import { AGENT_KINDS } from '../agents/types.js';
import { ReactDriver } from '../agents/react/driver.js';
import { llmReactModel } from '../agents/react/model.js';
import type { LlmClient } from '../llm/client.js';
import type { WorkerOptions } from '../worker/worker-events.js';
import type { Dotplan } from './dotplan.js';

/**
 * What a worker of this Dotplan needs to run agents: the child starter (agent nodes' child plans,
 * with the configured limits), with an LLM endpoint the ReAct driver, and with external agents (A2A)
 * their wrapper (src/agents/a2a/). Nothing when no agent is
 * registered: agent nodes are then refused where plans are made.
 */
export function agentWorkers(dotplan: Dotplan, client: LlmClient | undefined): Pick<WorkerOptions, 'children' | 'react' | 'remote'> {
  if (dotplan.agents.list().length === 0) return {};
  const { store, tools, config, agents } = dotplan;
  const children = childStarter({
    store,
    tools,
    agents,
    limits: { maxPlanDepth: config.limits.maxPlanDepth, maxChildPlans: config.limits.maxChildPlans },
    cwd: dotplan.cwd,
  });
  const remote = agents.list().some((a) => AGENT_KINDS[a.kind].remote) ? new RemoteAgents({ store, agents, retryDefaults: config.retry }) : undefined;
  return {
    children,
    ...(client ? { react: new ReactDriver({ store, tools, config, model: llmReactModel(client), agents }) } : {}),
    ...(remote ? { remote } : {}),
  };
}
