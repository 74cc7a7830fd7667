/**
 * An agent (seeds 002, 004): a registered worker of the plan stack. An agent node names one by
 * `agentCode`; its `kind` says what its child plan is and what drives it:
 * - `reflection`: a reflection plan with the node's task as its goal; the LLM writes and rewrites it;
 * - `react`: a ReAct loop on the model's native tool calling with the agent's `tools`, each turn that
 *   asks for tools one multiFunction node;
 * - `workflow`: the agent's `template`, instantiated with the node's `agentParams`;
 * - `a2a`: an external agent reached over A2A at `url`: no child plan; the node stands for the remote
 *   task (src/agents/a2a/), through the wrapper that redacts, checks the policy and audits.
 * One more kind adds one entry to AGENT_KINDS and its driver (a child plan in src/agents/child-plans.ts,
 * or a remote task like a2a); the engine does not change.
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
  /** a2a: the agent's base URL (its card is at `/.well-known/agent-card.json` under it). */
  url?: string;
  /** a2a: credentials sent with each request; `env:NAME` reads (and redacts) a variable. */
  auth?: { bearer: string };
  /** a2a: more patterns (regular expressions) redacted from what is sent and received, besides the built-in ones. */
  redact?: string[];
  /** a2a: the skills (of its card) a node may ask for; absent: any skill of the card. */
  allowSkills?: string[];
  /** a2a: the skill asked for when the node's agentParams name none. */
  skill?: string;
  /** a2a: the largest message sent, in bytes (default 65536): a larger one is refused before it leaves. */
  maxPayload?: number;
  /** a2a: hosts other than the url's that the card's interface URLs may point at (default: none). */
  allowHosts?: string[];
  /**
   * a2a: `stream` (default): the node's attempt follows its task, holding a worker slot; `detached`:
   * for tasks that run for hours or days — the node holds no slot and no lease, and a worker reads the
   * task every `pollEvery`.
   */
  mode?: 'stream' | 'detached';
  /** a2a, detached: how often the task is read (a duration such as "30s", "5m"; default "1m", at least "1s"). */
  pollEvery?: string;
}

/** What kind of child plan an agent runs: `reflection`, `react` or `workflow` (see {@link AgentDefinition}). */
export type AgentKind = 'reflection' | 'react' | 'workflow' | 'a2a';

/** The kinds of agent, and what each requires: a template, the LLM, or a remote agent's url (no child plan). */
export const AGENT_KINDS: Readonly<Record<AgentKind, { needsTemplate: boolean; llm: boolean; remote: boolean }>> = {
  reflection: { needsTemplate: false, llm: true, remote: false },
  react: { needsTemplate: false, llm: true, remote: false },
  workflow: { needsTemplate: true, llm: false, remote: false },
  a2a: { needsTemplate: false, llm: false, remote: true },
};
