/**
 * What a plan's `mode` means to the engine, in one table (SPEC §6; issue 15 adds `react`):
 * - `workflow`: the engine makes nodes ready as their sources finish, and the plan ends by itself
 *   when nothing is left to run;
 * - `reflection`: the LLM rewrites the plan and marks what runs; it ends by the LLM's final answer;
 * - `react`: a ReAct agent's child plan — each model turn that asks for tools appends a multiFunction
 *   node the engine runs at once (workflow readiness); the plan ends by the model's answer.
 */
export interface PlanModeRules {
  /** The engine makes nodes ready as their sources finish. */
  engineReadiness: boolean;
  /** The plan ends by itself (completed/failed) once nothing is left to run. */
  settles: boolean;
  /** The LLM is asked when the plan starts and after a node ends (not by the LLM). */
  servedByLlm: boolean;
}

export const PLAN_MODE_RULES = {
  workflow: { engineReadiness: true, settles: true, servedByLlm: false },
  reflection: { engineReadiness: false, settles: false, servedByLlm: true },
  react: { engineReadiness: true, settles: false, servedByLlm: true },
} as const satisfies Record<string, PlanModeRules>;

export type PlanMode = keyof typeof PLAN_MODE_RULES;
export const PLAN_MODES = Object.keys(PLAN_MODE_RULES) as PlanMode[];

/** The rules of a mode; an unknown mode (never stored: the validator refuses it) as workflow. */
export function modeRules(mode: string): PlanModeRules {
  return (PLAN_MODE_RULES as Record<string, PlanModeRules>)[mode] ?? PLAN_MODE_RULES.workflow;
}

/** The modes whose plans the LLM queue serves, as SQL's IN list. */
export const LLM_MODES_SQL = `(${PLAN_MODES.filter((m) => PLAN_MODE_RULES[m].servedByLlm)
  .map((m) => `'${m}'`)
  .join(', ')})`;
