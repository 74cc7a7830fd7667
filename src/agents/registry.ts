import { InvalidInputError } from '../errors/errors.js';
import type { ToolCatalogue } from '../tools/types.js';
import { nearest } from '../validate/suggest.js';
import type { AgentDefinition } from './types.js';

/**
 * The registered agents, by code (like the tool registry): the config file's `agents` and
 * `openDotplan({ agents })`. Registering checks what a definition names: its tools are registered
 * tools, the agents it may call are registered agents (checked once all are in: `check`).
 */
export class AgentRegistry {
  readonly #agents = new Map<string, { agent: AgentDefinition; where: string }>();

  register(agent: AgentDefinition, where: string): void {
    const known = this.#agents.get(agent.code);
    if (known) throw new InvalidInputError(`agent "${agent.code}" of ${where} is already registered by ${known.where}; give one of them another code`);
    this.#agents.set(agent.code, { agent, where });
  }

  get(code: string): AgentDefinition | undefined {
    return this.#agents.get(code)?.agent;
  }

  has(code: string): boolean {
    return this.#agents.has(code);
  }

  list(): AgentDefinition[] {
    return [...this.#agents.values()].map((a) => a.agent).sort((a, b) => a.code.localeCompare(b.code));
  }

  /** Every tool and agent a definition names exists; the error names the agent, the name, the nearest known names. */
  check(tools: ToolCatalogue): void {
    const toolCodes = tools.list().map((t) => t.code);
    for (const { agent, where } of this.#agents.values()) {
      for (const tool of agent.tools ?? []) {
        // A tool of an MCP server that could not be listed is not refused here: what runs or validates it says why it is missing.
        if (!tools.has(tool) && tools.unavailable?.(tool) === undefined)
          throw new InvalidInputError(`agent "${agent.code}" (${where}) names tool "${tool}", which is not registered${hint(tool, toolCodes)}`);
      }
      for (const other of agent.agents ?? []) {
        if (!this.has(other))
          throw new InvalidInputError(
            `agent "${agent.code}" (${where}) may call agent "${other}", which is not registered${hint(other, [...this.#agents.keys()])}`,
          );
      }
    }
  }
}

function hint(name: string, known: readonly string[]): string {
  const near = nearest(name, [...known], 3);
  return near.length > 0 ? ` (did you mean ${near.map((n) => `"${n}"`).join(', ')}?)` : '';
}

/** The registry of the config's agents and the application's own (`openDotplan({ agents })`), checked against the tools. */
export function buildAgentRegistry(configured: readonly AgentDefinition[], tools: ToolCatalogue, extra: readonly AgentDefinition[] = []): AgentRegistry {
  const registry = new AgentRegistry();
  for (const agent of configured) registry.register(agent, "the config file's agents");
  for (const [index, agent] of extra.entries()) registry.register(agent, `openDotplan's agents[${index}]`);
  registry.check(tools);
  return registry;
}

/** Validation options for plans with agent nodes: allowed once agents are registered, each checked against them. */
export function agentValidation(agents: AgentRegistry | undefined, planAgent?: string): { allowAgent: boolean; agents?: AgentRegistry; planAgent?: string } {
  if (!agents || agents.list().length === 0) return { allowAgent: false };
  return { allowAgent: true, agents, ...(planAgent !== undefined ? { planAgent } : {}) };
}
