import { createLlmClient, llmSettings, missingEndpoint, type LlmClient } from '../llm/client.js';
import { llmJudge } from '../llm/judge.js';
import { Planner } from '../llm/planner.js';
import type { Judge } from '../execute/verify.js';
import type { Dotplan } from './dotplan.js';

export interface LlmSide {
  client: LlmClient;
  planner: Planner;
  judge: Judge;
}

/**
 * The LLM's side of reflection plans, ReAct agents and verify="llm" (SPEC §6): undefined when no
 * endpoint is configured (no OPENAI_BASE_URL and no API key) — such a worker leaves that work to others.
 */
export function llmSide(dotplan: Dotplan, endpoint?: { baseURL: string; model?: string }): LlmSide | undefined {
  const settings = { ...llmSettings(dotplan.config), ...endpoint };
  if (missingEndpoint(settings) !== undefined) return undefined;
  const client = createLlmClient(settings);
  const limits = dotplan.config.reflection;
  return {
    client,
    planner: new Planner({ store: dotplan.store, tools: dotplan.tools, config: dotplan.config, client, limits, agents: dotplan.agents }),
    judge: llmJudge(client, dotplan.store.llm, limits.resultChars),
  };
}
