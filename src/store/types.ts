import type { AttentionQueue } from './attention-queue.js';
import type { LlmQueue } from './llm-queue.js';
import type { TokenStore } from './sql/tokens.js';
import type { RequestKeys } from './request-keys.js';
import type { RemoteTasks } from './remote-tasks.js';
import type { Sessions } from './sessions.js';
import type { TreeStore } from './tree/tree-store.js';
import type { WorkQueue } from './queue-types.js';
import type { DatabaseTarget } from './connect.js';
import type { ReadBack } from './read-back.js';
import type { Revised } from '../engine/revise.js';
import type { NodeState, Snapshot, Step } from '../engine/index.js';
import type { Attributes, Driver, EventKind, NodeStatus, NodeType, PlanGraph, PlanStatus, RevisionAuthor } from '../model/types.js';
import type { EventInput } from '../engine/step.js';

/** The database the plans are stored in. */
export type Backend = 'sqlite' | 'postgres';

// --- records: what the store gives back ----------------------------------------------------------

/** A stored plan: what it is, where it stands, its latest revision's graph attributes. */
export interface PlanRecord {
  /** `p_…`, made when the plan is created. */
  id: string;
  /** The title given, or the graph's label. */
  title: string;
  status: PlanStatus;
  /** `workflow` (engine drives readiness) or `reflection` (LLM rewrites). */
  mode: string;
  /** The template it was made from, if any. */
  template?: string;
  /** Its template parameters' values (given or default). */
  params: Record<string, string>;
  /** Graph attributes of the latest revision. */
  attributes: Attributes;
  /** The latest revision's number (1 for a plan never changed). */
  revision: number;
  /** Why it failed, when it did. */
  error?: string;
  createdAt: Date;
  /** When the plan last changed. */
  updatedAt: Date;
  /** Reflection plans: the final answer, once written. */
  result?: string;
  /** Reflection plans: tokens spent on the plan's LLM calls. */
  tokensUsed?: number;
  /** The plan this one runs again (`dotplan plan rerun`). */
  rerunOf?: string;
  /** A child plan (the plan stack): the agent node that runs it, and that node's attempt. */
  parent?: ParentNode;
  /** A child plan: the root of its tree. */
  rootPlanId?: string;
  /** A child plan: how far below its root (1 for a root's child); absent for a root. */
  depth?: number;
  /** A child plan: the agent it runs as, and its instance (`<agentCode>_<NNN>`, numbered per root). */
  agentCode?: string;
  instance?: string;
}

/** The agent node a child plan runs for: its plan, its id, and the attempt that started the child. */
export interface ParentNode {
  planId: string;
  nodeId: string;
  attempt: number;
}

/** A node of a stored plan, with its live state (status, attempts, output, answer, error, lease). */
export interface NodeRecord {
  planId: string;
  /** The node's id in the DOT text. */
  id: string;
  type: NodeType;
  status: NodeStatus;
  /** Its `label` attribute, if any. */
  label?: string;
  /** The node's DOT attributes from the latest revision (status/output/answer/error are the live fields below). */
  attributes: Attributes;
  /** The `subgraph cluster_*` it is in, if any. */
  cluster?: string;
  /** Attempts so far (a retry by the operator starts them afresh). */
  attempts: number;
  /** What its tool returned (text, or JSON for other values), once done. */
  output?: string;
  /** A confirm node's answer, once given. */
  answer?: string;
  /** Why its last attempt failed. */
  error?: string;
  /** For a skipped node: who skipped it by hand (absent for an untaken branch). */
  skippedBy?: Driver;
  /** Incoming edges whose source has not finished. */
  waiting: number;
  /** Incoming edges that were taken. */
  taken: number;
  /** Earliest time a ready node may run again (retry backoff). */
  runAfter?: Date;
  /** The worker that holds the running node's lease. */
  leaseOwner?: string;
  /** An agent node: the child plan of its current (or last) attempt; running with no lease while it waits on it. */
  childPlanId?: string;
  /** When that lease runs out unless renewed. */
  leaseExpiresAt?: Date;
  /** When its current or last attempt started. */
  startedAt?: Date;
  /** When it finished (done, failed, skipped, cancelled). */
  finishedAt?: Date;
  updatedAt: Date;
}

/** An edge of a plan's latest revision: `to` depends on `from`; taken only when `when` matches, if given. */
export interface EdgeRecord {
  /** The node it starts from. */
  from: string;
  /** The node that depends on `from`. */
  to: string;
  /** The condition on `from`'s output or answer (`yes|y`, `!no`, ...), if any. */
  when?: string;
}

/** One revision of a plan's DOT text, as it was written, with who wrote it (`author`) and its parent revision. */
export interface RevisionRecord {
  planId: string;
  /** 1, 2, ... in the order they were made. */
  number: number;
  /** The DOT text as written. */
  dot: string;
  author: RevisionAuthor;
  /** What changed and why, in the author's words. */
  updateLog?: string;
  /** The revision it was made from (absent for the first). */
  parent?: number;
  createdAt: Date;
}

/** One entry of the audit log: a status move (`from` → `to`), an answer, a revision, a review, a notice or a tool's log line, with who and why. */
export interface EventRecord {
  /** Grows in the order events are committed, across plans: `after` in queries. */
  id: number;
  planId: string;
  /** Absent for plan-level events. */
  nodeId?: string;
  kind: EventKind;
  driver: Driver;
  /** Who exactly: a worker id, a person's name. */
  actor?: string;
  /** Status moves: the status before; other kinds: empty. */
  from: string;
  /** Status moves: the status after; other kinds: empty. */
  to: string;
  /** Why, in words (a tool's log line for a `log` event). */
  reason?: string;
  /** The kind's details: an answer's text, a revision's number and changes, a notice's channel... */
  detail?: Record<string, unknown>;
  /** When it was committed (the database's clock). */
  at: Date;
}

export interface CreatePlanInput {
  title: string;
  graph: PlanGraph;
  /** The DOT text as authored (kept as revision 1). */
  dot: string;
  author: RevisionAuthor;
  /** Who created it (recorded with the creation events). */
  actor?: string;
  updateLog?: string;
  template?: string;
  params?: Record<string, string>;
  /** `plan rerun`: the plan this one runs again, and the node it runs again from (recorded with the creation). */
  rerunOf?: { planId: string; from?: string };
  /** A child plan: where it sits in its tree (src/store/tree/). */
  child?: ChildLink;
  /** More events recorded with the creation, after its own (`plan rerun`: each result carried over). */
  events?: ReadonlyArray<Omit<EventInput, 'planId'>>;
}

/** A child plan's place: the agent node running it, its tree's root and depth, its agent and instance. */
export interface ChildLink {
  parent: ParentNode;
  rootPlanId: string;
  depth: number;
  agentCode: string;
  instance: string;
}

// --- plans and revisions ------------------------------------------------------------------------

/** What a command on one plan loads besides the plan (locked): see PlanStore.change. */
export interface ChangeScope {
  /** These nodes, their outgoing edges and the nodes those lead to. */
  nodes?: readonly string[];
  /** The pending nodes whose sources have all finished, and pending roots (for start and resume). */
  candidates?: boolean;
  /** Every node and edge of the plan (cancel). */
  all?: boolean;
}

/** A command's decision: a step, or undefined for no change. May run more than once: keep it pure. */
export type Decide = (snapshot: Snapshot, candidates: readonly string[]) => Step | undefined;

export interface PlanStore {
  /** Stores a new plan (revision 1, its nodes and edges) and starts it, in one transaction. */
  create(input: CreatePlanInput): Promise<PlanRecord>;
  /**
   * One command on one plan in one transaction: load (locked) what `scope` names, `decide`, persist the step;
   * with `read`, what it reads in that transaction after the write (what the command left: read-back.ts).
   */
  change(planId: string, scope: ChangeScope, decide: Decide): Promise<void>;
  change<T>(planId: string, scope: ChangeScope, decide: Decide, read: ReadBack<T>): Promise<T>;
  get(id: string): Promise<PlanRecord>;
  list(options?: { status?: PlanStatus }): Promise<PlanRecord[]>;
  /** How many of the plan's nodes are in each status. */
  statusCounts(planId: string): Promise<Partial<Record<NodeStatus, number>>>;
  /** The plan's ready and running nodes: id, status, run_after, lease owner. */
  activeNodes(planId: string): Promise<Array<Pick<NodeRecord, 'id' | 'status' | 'runAfter' | 'leaseOwner'>>>;
  /** A page of plans, newest first, before a plan id (the HTTP API's list): only roots, or one tree. */
  page(options: { status?: PlanStatus; roots?: boolean; root?: string; before?: string; limit: number }): Promise<PlanRecord[]>;
  nodes(planId: string): Promise<NodeRecord[]>;
  node(planId: string, nodeId: string): Promise<NodeRecord>;
  edges(planId: string): Promise<EdgeRecord[]>;
  revisions(planId: string): Promise<RevisionRecord[]>;
  /** The given revision, the latest when no number is given. */
  revision(planId: string, number?: number): Promise<RevisionRecord>;
  /**
   * A new revision in one transaction: the plan locked with every node and edge, `decide` given the
   * snapshot and the latest revision, and what it returns written (revision row, node and edge rows,
   * the step's moves and events); `undefined` from `decide` writes nothing.
   */
  revise(planId: string, decide: DecideRevision): Promise<{ revision: number } | undefined>;
  /** The plan as an operator edits it, read at one instant: the latest revision, every node's live state, the last event they reflect. */
  editable(planId: string): Promise<EditableState>;
  /**
   * What waits for a person — questions and reviews — across plans (or in one; with `tree`, in the
   * whole tree of the root plan `planId`), oldest first.
   */
  waiting(planId?: string, options?: { tree?: boolean }): Promise<WaitingItem[]>;
}

export interface WaitingItem {
  kind: 'question' | 'review';
  planId: string;
  planTitle: string;
  /** Questions: the node and its attributes (question, options...). */
  nodeId?: string;
  attributes?: Attributes;
  /** When it started waiting. */
  since: Date;
}

export interface EditableState {
  revision: { number: number; dot: string };
  nodes: NodeState[];
  /** The plan's last event when it was read (0 when it has none). */
  asOfEvent: number;
}

export interface RevisionWrite {
  revised: Revised;
  next: PlanGraph;
  dot: string;
  author: RevisionAuthor;
  updateLog?: string;
  /** An agent instance's messages written with the revision (a ReAct turn: the model's message with the node that runs its calls). */
  messages?: readonly unknown[];
}
export type DecideRevision = (current: { snapshot: Snapshot; revision: { number: number; dot: string } }) => RevisionWrite | undefined;

// --- the work queue: ./queue-types.ts -----------------------------------------------------------

export type * from './queue-types.js';

// --- the event feed -----------------------------------------------------------------------------

/** A wake-up: something committed that a worker or a follower may want to act on at once. */
export interface WakeEvent {
  /** `ready`: new ready work; `finished`: nodes finished; `plan`: a plan changed; `llm`: a reflection plan wants the LLM; `external`: another process wrote (SQLite). */
  reason: 'ready' | 'finished' | 'plan' | 'llm' | 'external';
  planId?: string;
}

/** A feed started by `events.follow`. */
export interface Following {
  /** Resolves with the event that ended the feed, or undefined once stopped. */
  ended: Promise<EventRecord | undefined>;
  /** Stops after reading what was committed before the call. */
  stop(): Promise<EventRecord | undefined>;
}

export interface EventFeed {
  /** The plan's events after `after`, up to `upTo`, of one kind if given, oldest first. */
  list(planId: string, options?: { nodeId?: string; after?: number; upTo?: number; kind?: EventKind; limit?: number }): Promise<EventRecord[]>;
  /** Every plan's events after an id (of one kind if given), oldest first, at most `limit` (default 1000). */
  listAll(options?: { after?: number; limit?: number; kind?: EventKind }): Promise<EventRecord[]>;
  /** The newest event id, 0 when there is none. */
  lastId(): Promise<number>;
  /** Records events that are not moves (notices). */
  append(events: readonly EventInput[]): Promise<void>;
  /**
   * Calls `onEvent` for each event committed after `after` (one plan's or all), in order; returning true ends it.
   * It rides out an unreachable database: it reads again, from where it was, until the database is back.
   */
  /** A tree's events: its root's and every child plan's (those made later too), in commit order. */
  listTree(rootPlanId: string, options?: { after?: number; kind?: EventKind; limit?: number }): Promise<EventRecord[]>;
  follow(
    options: { planId?: string; rootPlanId?: string; after?: number },
    onEvent: (event: EventRecord) => Promise<boolean | void> | boolean | void,
  ): Following;
  /** Calls the listener after commits that make work ready, finish nodes or change plans (other processes too). */
  onWake(listener: (event: WakeEvent) => void): () => void;
  /** Resolves once wake-ups from other processes are received. */
  readonly listening: Promise<void>;
}

/** Storage: plans and revisions, the work queue, the event feed — on SQLite or PostgreSQL. */
export interface Store {
  readonly backend: Backend;
  /** Where the data lives, for another connection to the same database (a worker's lease thread). */
  readonly target?: DatabaseTarget;
  /**
   * SQLite file: another connection (a worker's lease thread) checkpoints the write-ahead log from now
   * on, and the store's connection no longer does at its commits, until the returned release is called.
   */
  handOffCheckpoints?(): Promise<() => Promise<void>>;
  readonly plans: PlanStore;
  readonly queue: WorkQueue;
  readonly events: EventFeed;
  /** The LLM's work on reflection plans, and the calls made to the model. */
  readonly llm: LlmQueue;
  /** Questions and reviews due for a notice. */
  readonly attention: AttentionQueue;
  /** The plan stack: agent nodes' child plans, commands that cascade down a tree. */
  readonly tree: TreeStore;
  /** The API tokens of `dotplan serve`. */
  readonly tokens: TokenStore;
  /** The Idempotency-Keys of plan-creating HTTP requests. */
  readonly requestKeys: RequestKeys;
  /** Browser sessions of the HTTP API (a login with a token). */
  readonly sessions: Sessions;
  /** Agent nodes' tasks at external agents (A2A), and the cancels owed to them. */
  readonly remote: RemoteTasks;
  close(): Promise<void>;
}
