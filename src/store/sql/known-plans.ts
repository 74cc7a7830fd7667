import type { Attributes } from '../../model/types.js';

/**
 * A plan's columns as a claim carries them (parsed), known to the writer of a step as the step will
 * leave them: on PostgreSQL the plan's status and revision are the ones the step expects (its write is
 * refused otherwise) and the step does not move the plan; on SQLite they were read in the write's own
 * transaction, which no other writer interleaves. Nodes that such a write hands over take their plan's
 * columns from here instead of reading the plan row back (step-statement.ts, persist-sqlite.ts).
 */
export interface KnownPlan {
  params: Record<string, string>;
  planAttributes: Attributes;
  status: string;
  mode: string;
  /** The revision the claim's basis describes (its dependents as read then); undefined: no basis. */
  revision?: number;
  root?: string | undefined;
  agent?: string | undefined;
}

/** Known plans by id. */
export type KnownPlans = ReadonlyMap<string, KnownPlan>;
