import type { Driver, NodeStatus, NodeType, PlanGraph, PlanStatus, RevisionAuthor, Attributes } from '../model/types.js';

export type Backend = 'sqlite' | 'postgres';

export interface PlanRecord {
  id: string;
  title: string;
  status: PlanStatus;
  /** `workflow` (engine drives readiness) or `reflection` (LLM rewrites). */
  mode: string;
  template?: string;
  params: Record<string, string>;
  /** Graph attributes of the latest revision. */
  attributes: Attributes;
  revision: number;
  error?: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface NodeRecord {
  planId: string;
  id: string;
  type: NodeType;
  status: NodeStatus;
  label?: string;
  /** The node's DOT attributes from the latest revision (status/output/answer/error are the live fields below). */
  attributes: Attributes;
  cluster?: string;
  attempts: number;
  output?: string;
  answer?: string;
  error?: string;
  /** Earliest time a ready node may run again (retry backoff). */
  runAfter?: Date;
  leaseOwner?: string;
  leaseExpiresAt?: Date;
  startedAt?: Date;
  finishedAt?: Date;
  updatedAt: Date;
}

export interface EdgeRecord {
  from: string;
  to: string;
  when?: string;
}

export interface RevisionRecord {
  planId: string;
  number: number;
  dot: string;
  author: RevisionAuthor;
  updateLog?: string;
  parent?: number;
  createdAt: Date;
}

export interface EventRecord {
  id: number;
  planId: string;
  /** Absent for plan-level events. */
  nodeId?: string;
  driver: Driver;
  from: string;
  to: string;
  reason?: string;
  at: Date;
}

export interface CreatePlanInput {
  title: string;
  graph: PlanGraph;
  /** The DOT text as authored (kept as revision 1). */
  dot: string;
  author: RevisionAuthor;
  updateLog?: string;
  template?: string;
  params?: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// The Store: one interface, two backends (SQLite, PostgreSQL). Reads go through the generated
// Prisma clients; transactional writes and the worker's hot path are raw SQL in src/store/sql/.
// ---------------------------------------------------------------------------------------------

/** A status move asked for by a driver (operator command, LLM rewrite, person). */
export interface NodeMoveRequest {
  node: string;
  to: NodeStatus;
  answer?: string;
  output?: string;
  error?: string;
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
  /** The lease token: pass it to finishAttempt / renewLeases. */
  token: string;
  leaseExpiresAt: Date;
  /** The plan's template parameter values. */
  params: Record<string, string>;
  /** The plan's graph attributes (mode, retry defaults, onFailure, ...). */
  planAttributes: Attributes;
}

export type AttemptOutcome =
  | { status: 'done'; output?: string }
  /** `retryAt` set: back to ready, due at that time; unset: the node fails for good. */
  | { status: 'failed'; error: string; retryAt?: Date }
  /** Shutdown: back to ready at once, the attempt is not counted. */
  | { status: 'released' }
  /** The node asks a person (confirm nodes); `question` replaces the node's question attribute. */
  | { status: 'awaiting_input'; question?: string };

export interface FinishRequest {
  token: string;
  outcome: AttemptOutcome;
}

/**
 * A worker handing the slots of finished nodes on: when outcomes make new work ready, finishAttempts
 * claims it in the same transaction (the usual lease, events and order), which spares a chain step
 * a wake-up, a claim and a commit.
 */
export interface HandOff {
  owner: string;
  leaseMs: number;
  /** How many nodes may be claimed now; called at most once per finishAttempts, only when there is new ready work. */
  reserve(): number;
  /** Called once after commit when `reserve` was called (also after a failure, with none): start these. */
  launch(claims: ClaimedNode[]): void;
}

export interface ClaimOptions {
  /** Worker id, recorded as the lease owner. */
  owner: string;
  /** Most nodes to claim at once. */
  limit: number;
  /** Lease length in milliseconds (from the database clock). */
  leaseMs: number;
}

export interface ExpireOptions {
  /** Retries for nodes whose node and plan set no `retries` attribute; default 2 (a crashed worker is not the node's fault). */
  defaultRetries?: number;
}

/** What keeps a worker busy, over plans that are `running`. */
export interface ActiveCounts {
  /** Ready and due now. */
  ready: number;
  running: number;
  /** Ready but due later (retry backoff). */
  retryPending: number;
  /** Waiting for a person: does not keep `--until-idle` alive. */
  awaitingInput: number;
  /** When the earliest retry-pending node becomes due. */
  nextDueAt?: Date;
}

/** A wake-up: something committed that a worker may want to act on at once. */
export interface WakeEvent {
  /** `ready`: new ready work; `finished`: nodes finished; `plan`: a plan changed status. */
  reason: 'ready' | 'finished' | 'plan';
  planId?: string;
}

export interface ListPlansOptions {
  status?: PlanStatus;
}

export interface ListEventsOptions {
  /** Only events with an id greater than this. */
  after?: number;
}

export interface Store {
  readonly backend: Backend;

  createPlan(input: CreatePlanInput & { status?: PlanStatus }): Promise<PlanRecord>;
  getPlan(id: string): Promise<PlanRecord>;
  listPlans(options?: ListPlansOptions): Promise<PlanRecord[]>;
  getNodes(planId: string): Promise<NodeRecord[]>;
  getNode(planId: string, nodeId: string): Promise<NodeRecord>;
  getEdges(planId: string): Promise<EdgeRecord[]>;
  listRevisions(planId: string): Promise<RevisionRecord[]>;
  /** The given revision, the latest when no number is given. */
  getRevision(planId: string, number?: number): Promise<RevisionRecord>;
  listEvents(planId: string, options?: ListEventsOptions): Promise<EventRecord[]>;
  /** Events of every plan after an id, oldest first, at most `limit` (default 1000). */
  listAllEvents(options?: { after?: number; limit?: number }): Promise<EventRecord[]>;
  /** The newest event id, 0 when there is none. */
  lastEventId(): Promise<number>;

  /** All moves in one transaction; any refused move throws IllegalTransitionError and changes nothing. */
  applyNodeMoves(planId: string, moves: NodeMoveRequest[], driver: Driver, reason?: string): Promise<NodeRecord[]>;
  setPlanStatus(planId: string, to: PlanStatus, driver: Driver, reason?: string, error?: string): Promise<PlanRecord>;
  /** draft → running (awaiting_review when review=required); in workflow mode nodes whose deps are met become ready. */
  startPlan(planId: string, driver?: Driver): Promise<PlanRecord>;
  /** Cancels the plan and every non-terminal node. */
  cancelPlan(planId: string, driver: Driver, reason?: string): Promise<PlanRecord>;

  claimReady(options: ClaimOptions): Promise<ClaimedNode[]>;
  /** Extends the leases still held; returns the tokens that were renewed (a missing one was lost). */
  renewLeases(owner: string, tokens: string[], leaseMs: number): Promise<string[]>;
  /** Running nodes past their lease → ready (or failed when their attempts are used up). */
  expireLeases(options?: ExpireOptions): Promise<number>;
  /** Records an attempt's outcome; a stale token throws ConflictError('lease lost') and writes nothing. */
  finishAttempt(token: string, outcome: AttemptOutcome): Promise<NodeRecord>;
  /** Several outcomes in one transaction; a stale token only fails its own entry (returned as an Error). */
  finishAttempts(requests: FinishRequest[], handOff?: HandOff): Promise<Array<NodeRecord | Error>>;
  /** awaiting_input → done with the answer, then readiness propagates. */
  answerNode(planId: string, nodeId: string, answer: string, driver: Driver): Promise<NodeRecord>;
  countActive(): Promise<ActiveCounts>;

  /** Calls the listener after commits that create ready work or finish nodes (other processes too on PostgreSQL). */
  onWake(listener: (event: WakeEvent) => void): () => void;
  close(): Promise<void>;
}
