import type { AttemptResult, NodeState, OutEdge, PlanState } from '../engine/index.js';
import type { RetryDefaults } from '../engine/retry-policy.js';
import type { Attributes, NodeStatus, NodeType } from '../model/types.js';
import type { NewChild, TreeLimits } from './tree/tree-store.js';

/**
 * The work queue's types (src/store/work-queue.ts): what a claim hands a worker, what a worker reports
 * back, and what the queue says of the work left. Re-exported by ./types.ts.
 */

/**
 * What a claim saw: the plan, the node and its dependents, each with its row id (read with the claim on
 * PostgreSQL, beside it on SQLite). A finish computed from it is written without reading first (one
 * statement on PostgreSQL, one write transaction on SQLite), guarded by every value it relied on; when
 * one no longer holds, nothing is written and the finish takes the locking path.
 */
export interface ClaimBasis {
  plan: PlanState;
  /**
   * The plan's revision when the claim read the dependents: a revision since (an edge added from the
   * node, say) makes a finish from this basis fall back to the locking path.
   */
  revision: number;
  rowId: number;
  node: NodeState;
  dependents: Array<{ rowId: number; edge: OutEdge; node: NodeState }>;
}

/** A node a worker has claimed: everything it needs to run it without further reads. */
export interface ClaimedNode {
  planId: string;
  nodeId: string;
  type: NodeType;
  label?: string;
  attributes: Attributes;
  /** Attempts including this one. */
  attempts: number;
  /** The lease token: give it back with renew and finish. */
  token: string;
  leaseExpiresAt: Date;
  /** The plan's template parameter values. */
  params: Record<string, string>;
  /** The plan's graph attributes (mode, retry defaults, onFailure, ...). */
  planAttributes: Attributes;
  /** A child plan's agent: the agents it may call are that agent's `agents`. */
  planAgent?: string;
  /** A child plan's tree root: finishing it takes the tree's lock first. */
  rootPlanId?: string;
  basis?: ClaimBasis;
  /**
   * A node handed over with the start of its child plan, to the worker that started it: how many nodes
   * the child was started with (its revision 1). A finish that ends the child with all of them knows
   * its nodes from what it reads of its own (tree/read-ahead.ts) and does not read them again.
   */
  startedWith?: number;
}

export interface ClaimOptions {
  /** Worker id, recorded as the lease owner. */
  owner: string;
  limit: number;
  /** Lease length in ms (from the database clock). */
  leaseMs: number;
}

/** An attempt's end as a worker reports it. */
export interface AttemptReport {
  claim: ClaimedNode;
  result: AttemptResult;
  /** In [0, 1): the random part of a retry's backoff. */
  jitter: number;
}

/** What a write may claim for its worker: the nodes its steps hand over, and other ready work. */
export interface HandOffOptions extends ClaimOptions {
  /**
   * Also claim, up to the free slots, ready work that these steps did not make ready (default
   * true). A worker that found no more ready work than it had slots at its last claim passes false:
   * new work from elsewhere reaches it with a wake-up, and a chain step then costs no extra scan.
   */
  claimOthers?: boolean;
}

export interface FinishOptions extends HandOffOptions {
  retryDefaults: RetryDefaults;
  /** Plans in which the caller still runs other nodes: they cannot be over yet. */
  holding?: ReadonlySet<string>;
  /**
   * The children of the agent nodes the write hands to the caller: started in that write (the claim
   * and its child in one transaction), their first nodes handed over in place of the agent node.
   */
  children?: ChildPreparer;
}

/** An agent node's child plan, made without reading the database, and the tree's limits. */
export interface ChildToStart {
  child: NewChild;
  limits: TreeLimits;
}

export interface ChildPreparer {
  /**
   * The child that this claimed agent node starts; undefined leaves the node to its worker, which
   * starts the child as it runs the node (where the child needs upstream outputs read, or the node
   * is refused and its attempt fails with the reason).
   */
  prepare(claim: ClaimedNode): Promise<ChildToStart | undefined>;
}

export interface FinishOutcome {
  /** Per report: the node's status now, or the error that refused it (a lost lease: ConflictError). */
  results: Array<{ status: NodeStatus } | Error>;
  /** Work claimed for the same worker in the same write, up to `limit`: start these. */
  claimed: ClaimedNode[];
}

/** What keeps workers busy, over plans that are `running`. */
export interface Outlook {
  /** Ready and due now. */
  ready: number;
  running: number;
  /** Ready but due later (retry backoff). */
  retryPending: number;
  /** Waiting for a person: does not keep `--until-idle` alive. */
  awaitingInput: number;
  /** Reflection plans waiting for the LLM (a rewrite or the final answer), leased or not. */
  llmWork: number;
  /** Of that work, what no worker holds and is not backing off: claimable now. */
  llmFree: number;
  /** When the next node becomes due, or the next lease runs out: a worker wakes then. */
  nextWakeAt?: Date;
}

export interface WorkQueue {
  claim(options: ClaimOptions): Promise<ClaimedNode[]>;
  /** Extends the leases still held; returns the tokens renewed (a missing one was lost). */
  renew(owner: string, tokens: readonly string[], leaseMs: number): Promise<string[]>;
  /** Records attempts' ends; a stale token refuses only its own report. */
  finish(reports: readonly AttemptReport[], options: FinishOptions): Promise<FinishOutcome>;
  /** Takes over running nodes whose lease ran out (back to ready, or failed when attempts are used up). */
  expire(options: { retryDefaults: RetryDefaults }): Promise<number>;
  outlook(): Promise<Outlook>;
}
