/**
 * An agent (seeds 002, 004): a registered worker of the plan stack. An agent node names one by
 * `agentCode`; its `kind` says what its child plan is and what drives it:
 * - `reflection`: a reflection plan with the node's task as its goal; the LLM writes and rewrites it;
 * - `react`: a ReAct loop on the model's native tool calling with the agent's `tools`, each turn that
 *   asks for tools one multiFunction node;
 * - `workflow`: the agent's `template`, instantiated with the node's `agentParams`.
 * One more kind (an external agent over A2A, say) adds one entry to AGENT_KINDS, its child plan
 * (src/agents/child-plans.ts) and its driver; the engine does not change.
 */
export interface AgentDefinition {
  /** How agent nodes name it (`agentCode`): letters, digits, `_ . : -`. */
  code: string;
  description: string;
  kind: AgentKind;
  /** The tools it may use (react: offered to the model; reflection: the tools its plans may call). */
  tools?: string[];
  /** The agents it may call: agent nodes in its own plans name only these. */
  agents?: string[];
  /** Its system prompt (react); default: one that names the agent and its work. */
  systemPrompt?: string;
  /** workflow: the template its child plans are made from. */
  template?: string;
  /** The model it calls (react); default the configured `openai.model`. */
  model?: string;
  limits?: { maxTurns?: number };
}

/** What kind of child plan an agent runs: `reflection`, `react` or `workflow` (see {@link AgentDefinition}). */
export type AgentKind = 'reflection' | 'react' | 'workflow';

/** The kinds of agent, and what each requires. */
export const AGENT_KINDS: Readonly<Record<AgentKind, { needsTemplate: boolean; llm: boolean }>> = {
  reflection: { needsTemplate: false, llm: true },
  react: { needsTemplate: false, llm: true },
  workflow: { needsTemplate: true, llm: false },
};
