import type { AttemptResult } from '../engine/attempts.js';
import type { RetryDefaults } from '../engine/retry-policy.js';
import type { AttemptAbort } from '../execute/attempt-abort.js';
import type { Judge } from '../execute/verify.js';
import type { NodeType } from '../model/types.js';
import type { ClaimedNode, PlanStore } from '../store/types.js';
import type { ToolCatalogue } from '../tools/types.js';
import type { ToolLog } from '../worker/tool-logs.js';
import type { RemoteAgents } from '../agents/a2a/remote-agents.js';
import type { ChildHandOff, ChildStarter } from './agent-child.js';

/** What a node kind may use while it runs a claimed node. */
export interface KindDeps {
  plans: PlanStore;
  tools: ToolCatalogue;
  retryDefaults: RetryDefaults;
  /** A tool's `ctx.log` line. */
  log: (entry: ToolLog) => void;
  /** Judges outputs of nodes with verify="llm"; without it such nodes fail their verification. */
  judge?: Judge;
  /** Agent nodes: starts their child plan (absent: agent nodes fail, naming why). */
  children?: ChildStarter;
  /** The worker running the node: a child's first ready nodes are handed to it. */
  handOff?: ChildHandOff;
  /** Agent nodes of external agents (A2A): their remote tasks (absent: such nodes fail, naming why). */
  remote?: RemoteAgents;
}

/**
 * What a claimed node of one `type` does (SPEC §2): run a tool, run several, ask a person, start a
 * child plan. The worker looks the kind up by the node's type (registry.ts) and reports how the
 * attempt ended; what that does to the node is the engine's to decide.
 */
export interface NodeKind {
  readonly type: NodeType;
  /** `abort`: the attempt's (plan cancelled, lease lost, worker stopping); its `signal` is made when read. */
  run(claim: ClaimedNode, abort: AttemptAbort, deps: KindDeps): Promise<AttemptResult>;
}
