import type { ChildHandOff } from '../store/index.js';
import type { ChildPreparer, ClaimedNode } from '../store/types.js';

/** What an agent node passes to its child plan, references resolved — nothing else leaks in. */
export interface ChildInput {
  /** The registered agent that does the node's work. */
  agentCode: string;
  /** The node's `task`: the child's goal. */
  task: string;
  /** `agentParams`: a workflow agent's template parameters. */
  agentParams: Record<string, string>;
  /** `inherit`: the named values copied in (`nodes.fetch.output` → its text), as the child's params. */
  inherited: Record<string, string>;
  /** `detach=true`: the node is done once the child exists; the child runs on its own. */
  detach: boolean;
}

/** How starting a child went: the node now waits on it (or is done, detached), or its attempt failed. */
export type ChildStart =
  /** `claimed`: the child's first ready nodes, handed to the worker that started it (its lease). */
  { kind: 'started'; childPlanId: string; instance: string; claimed: ClaimedNode[] } | { kind: 'failed'; error: string; retryable: boolean };

/** The worker starting a child: it takes up to `limit` of the child's first ready nodes. */
export type { ChildHandOff } from '../store/index.js';

/**
 * Starts an agent node's child plan: builds the plan its agent's kind makes of the input and, in one
 * transaction, creates it (exactly once per attempt) and moves the node to wait on it (src/agents/children.ts).
 */
export interface ChildStarter extends ChildPreparer {
  start(claim: ClaimedNode, input: ChildInput, signal: AbortSignal, handOff?: ChildHandOff): Promise<ChildStart>;
}
