import type { Attributes } from '../../model/types.js';

/**
 * A plan's columns as a claim carries them (parsed), known to the writer of a step as the step will
 * leave them: the plan's status and revision are the ones the step expects (its write is refused
 * otherwise) and the step does not move the plan. Nodes that such a write hands over take their plan's
 * columns from here instead of reading the plan row back (step-statement.ts).
 */
export interface KnownPlan {
  params: Record<string, string>;
  planAttributes: Attributes;
  status: string;
  mode: string;
  revision: number;
  root?: string | undefined;
  agent?: string | undefined;
}

/** Known plans by id. */
export type KnownPlans = ReadonlyMap<string, KnownPlan>;
