import type { LlmDriver } from './llm-slot.js';
import type { RemoteAgents } from '../agents/a2a/remote-agents.js';
import type { ChildStarter } from '../kinds/agent-child.js';
import type { AttemptResult } from '../engine/attempts.js';
import type { RetryDefaults } from '../engine/retry-policy.js';
import type { Judge } from '../execute/verify.js';
import type { Planner } from '../llm/planner.js';
import type { ClaimedNode, Store } from '../store/types.js';
import type { ToolCatalogue } from '../tools/types.js';
import type { Notice } from './attention.js';
import type { ToolLog } from './tool-logs.js';

/** What a worker is given (`WorkerOptions`) and what it tells its host (`WorkerEventMap`): its interface, apart from how it works (worker.ts). */

export interface WorkerOptions {
  store: Store;
  tools: ToolCatalogue;
  /** node-cron schedule of the safety-net poll. */
  poll: string;
  concurrency: number;
  /** Lease length in ms; renewed every third of it while a node runs. */
  leaseMs: number;
  retryDefaults: RetryDefaults;
  /** Stop by itself once nothing is ready, running or due for retry (questions do not count). */
  untilIdle?: boolean;
  /** Lease owner name; default host:pid:random. */
  owner?: string;
  /** Serves reflection plans' LLM work (rewrites, final answers); without it the worker leaves that work to others. */
  planner?: Planner;
  /** Serves ReAct agents' child plans (`mode=react`): one model turn per claim. */
  react?: LlmDriver;
  /** Reflection plans whose LLM work it serves at once. Default 1. */
  llmSlots?: number;
  /** Judges the outputs of nodes with verify="llm". */
  judge?: Judge;
  /** Starts agent nodes' child plans (`dotplan.worker()` passes the application's agents); without it agent nodes fail. */
  children?: ChildStarter;
  /** External agents (A2A): their nodes' remote tasks, and the cancels owed to them. */
  remote?: RemoteAgents;
  /** Notices of questions and reviews (first, then every interval): emitted as `notice` events. Default interval 1 h. */
  remindEveryMs?: number;
  /** Where the tools' `ctx.log` lines go; default: `log` events in the audit log. */
  log?: (entry: ToolLog) => void;
}

/** A node that now waits for a person's answer. */
export interface QuestionAsked {
  /** The plan the question is in. */
  planId: string;
  /** The confirm node that asks it. */
  nodeId: string;
  /** Its question, references resolved. */
  question: string;
  /** The node's `component` attribute: how a UI should ask (e.g. a form's name). */
  component?: string;
  /** The node's `payload` attribute: data for that component. */
  payload?: string;
}

/** Events a worker emits for its host (CLI progress, notices, tests). */
export interface WorkerEventMap {
  /** Something went wrong around the work (a write that failed, a tool log not recorded); the worker goes on. */
  'worker:error': [error: unknown];
  /**
   * The database cannot be reached (stopped, restarting, network cut): emitted once when the worker
   * first finds it so. The worker goes on: it tries again with backoff, keeps the results that
   * finish meanwhile and writes them when the database is back.
   */
  'database:lost': [error: unknown];
  /** The database answers again after `database:lost`; `downMs`: since the worker found it gone. */
  'database:back': [downMs: number];
  /** Nothing was ready, running or due for retry at its last look. */
  'worker:idle': [];
  /** A confirm node of this worker's now waits for a person's answer. */
  'question:asked': [question: QuestionAsked];
  /**
   * A question or a review is due a notice (the first one, or a reminder); this worker won it. Send
   * it with an {@link Announcer}. A worker with no `notice` listener claims no notices: they stay due
   * for a worker that sends them (answer and review timeouts still apply, at its polls).
   */
  notice: [notice: Notice];
}

/** How often lease expiry is looked for at most, whatever the lease length. */

/** A question a node of this worker now asks, as the `question:asked` event carries it. */
export function asked(claim: ClaimedNode, result: Extract<AttemptResult, { kind: 'asked' }>): QuestionAsked {
  const out: QuestionAsked = {
    planId: claim.planId,
    nodeId: claim.nodeId,
    question: result.question ?? claim.attributes.question ?? `node ${claim.nodeId} is waiting for an answer`,
  };
  if (claim.attributes.component !== undefined) out.component = claim.attributes.component;
  if (claim.attributes.payload !== undefined) out.payload = claim.attributes.payload;
  return out;
}
