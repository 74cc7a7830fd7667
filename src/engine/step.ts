import { modeRules } from '../model/plan-modes.js';
import { TERMINAL_NODE_STATUSES } from '../model/status.js';
import type { Attributes, Driver, EventKind, NodeStatus, PlanStatus } from '../model/types.js';
import { assertNodeMove } from '../state/node-moves.js';
import { assertPlanMove } from '../state/plan-moves.js';
import { NeedsMore, type NodeState, type OutEdge, type PlanState, type Snapshot } from './snapshot.js';

/**
 * A step: everything one rule decided, before anything is written. The store persists it in one
 * transaction (or one statement), writing each node change only if the row still holds the state
 * the change was computed from (`expect`).
 */
export interface NodeChange {
  node: string;
  /** The row's state when the step was computed; the write is refused if it no longer holds. */
  expect: { status: NodeStatus; waiting: number; taken: number };
  status: NodeStatus;
  waiting: number;
  taken: number;
  /** Live fields the step changes (`null` clears one); absent fields stay as they are. */
  set: {
    output?: string | null;
    answer?: string | null;
    error?: string | null;
    attempts?: number;
    /** 0: due at once; > 0: due that many ms from now (database clock). */
    runAfterDelayMs?: number;
    skippedBy?: Driver | null;
    attributes?: Attributes;
  };
  /** Moved to `running` for the step's owner: the store gives it a new lease. */
  claim?: boolean;
}

export interface PlanChange {
  from: PlanStatus;
  to: PlanStatus;
  /** The plan's error text (`null` clears it). */
  error?: string | null;
}

/** An event to record (what `events.append` takes; the store adds its id and time). */
export interface EventInput {
  planId: string;
  node?: string;
  kind: EventKind;
  driver: Driver;
  /** Who exactly: a worker id, a person's name. */
  actor?: string;
  from?: string;
  to?: string;
  reason?: string;
  detail?: Record<string, unknown>;
}

export interface Step {
  planId: string;
  /** One change per node, in the order the nodes were first changed. */
  changes: NodeChange[];
  planChange?: PlanChange;
  events: EventInput[];
  /** A node finished and none became ready or running: whether the plan is over is checked after commit. */
  settle: boolean;
  /** Nodes moved to `ready` and left for any worker (not claimed in this step). */
  readyLeft: boolean;
  /** A reflection plan's node finished, failed, was skipped or answered (not by the LLM): the LLM is asked for a refreshed plan. */
  askLlm?: boolean;
}

/** Who makes the moves of a step. */
export interface Actor {
  driver: Driver;
  /** A worker id, a person's name; recorded with every event. */
  name?: string;
}

/** In reflection mode a node reaching one of these (by anyone but the LLM itself) asks the LLM to refresh the plan (SPEC §6). */
const ASK_LLM_AFTER: ReadonlySet<NodeStatus> = new Set(['done', 'failed', 'skipped', 'cancelled']);

/**
 * Builds a step over a snapshot: every node move is checked against the state machine for its
 * driver as it is made (so a refused move throws before anything could be written), and recorded
 * with its event; later moves of the same node fold into one change.
 */
export class StepBuilder {
  readonly #snapshot: Snapshot;
  #plan: PlanState;
  readonly #nodes = new Map<string, NodeState>();
  readonly #changes = new Map<string, NodeChange>();
  readonly #events: EventInput[] = [];
  #planChange: PlanChange | undefined;
  #finished = false;
  #advanced = false;
  #askLlm = false;

  constructor(snapshot: Snapshot) {
    this.#snapshot = snapshot;
    this.#plan = snapshot.plan;
  }

  get plan(): PlanState {
    return this.#plan;
  }

  /** Workflow readiness applies: the plan runs and the engine, not the LLM, makes nodes ready. */
  get readinessActive(): boolean {
    return this.#plan.status === 'running' && modeRules(this.#plan.mode).engineReadiness;
  }

  has(id: string): boolean {
    return this.#nodes.has(id) || this.#snapshot.nodes.has(id);
  }

  /** The node as this step has left it so far. */
  node(id: string): NodeState {
    const node = this.#nodes.get(id) ?? this.#snapshot.nodes.get(id);
    if (!node) throw new NeedsMore([id]);
    return node;
  }

  /** The node's outgoing edges; throws NeedsMore when the snapshot does not hold its dependents. */
  edges(id: string): readonly OutEdge[] {
    const edges = this.#snapshot.edges.get(id);
    if (!edges) throw new NeedsMore([id]);
    return edges;
  }

  /** All loaded nodes, as this step has left them. */
  *nodes(): IterableIterator<NodeState> {
    for (const id of this.#snapshot.nodes.keys()) yield this.node(id);
  }

  /** A status move by `actor`, checked against the state machine; `set` changes live fields too. */
  move(id: string, to: NodeStatus, actor: Actor, reason: string | undefined, set: NodeChange['set'] = {}, detail?: Record<string, unknown>): NodeState {
    const before = this.node(id);
    assertNodeMove({ node: id, from: before.status, to, driver: actor.driver });
    const after = this.#update(before, to, set);
    this.#event({ node: id, kind: 'status', driver: actor.driver, actor: actor.name, from: before.status, to, reason, detail });
    if (to === 'ready' || to === 'running') this.#advanced = true;
    if (TERMINAL_NODE_STATUSES.has(to) || to === 'awaiting_input') this.#finished = true;
    if (modeRules(this.#plan.mode).servedByLlm && actor.driver !== 'llm' && ASK_LLM_AFTER.has(to) && before.status !== to) this.#askLlm = true;
    return after;
  }

  /** `ready → running` for the step's owner, with a new lease. */
  claim(id: string, owner: string): void {
    this.move(id, 'running', { driver: 'engine', name: owner }, `claimed by ${owner}`, { attempts: this.node(id).attempts + 1 });
    this.#changes.get(id)!.claim = true;
  }

  /** A node's (non-live) attributes, as a revision sets them (no status move; the revision's events say why). */
  attributes(id: string, attributes: Attributes): void {
    const before = this.node(id);
    this.#update(before, before.status, { attributes });
  }

  /** Readiness counters of a node (no status move, no event). */
  counters(id: string, waiting: number, taken: number): void {
    const before = this.node(id);
    if (before.waiting === waiting && before.taken === taken) return;
    this.#update(before, before.status, {}, { waiting, taken });
  }

  /** A plan move by `actor`, checked against the plan state machine. */
  movePlan(to: PlanStatus, actor: Actor, reason: string, error?: string | null): void {
    const from = this.#plan.status;
    assertPlanMove(this.#plan.id, from, to, actor.driver);
    this.#planChange = { from: this.#planChange?.from ?? from, to, ...(error !== undefined ? { error } : {}) };
    this.#plan = { ...this.#plan, status: to };
    this.#event({ kind: 'status', driver: actor.driver, actor: actor.name, from, to, reason });
  }

  /** An event that is not a status move (an answer, a notice). */
  note(event: Omit<EventInput, 'planId'>): void {
    this.#event(event);
  }

  /** Nodes this step moved from `pending` to `ready` and nobody claimed yet, in order. */
  newlyReady(): string[] {
    return [...this.#changes.values()].filter((c) => c.expect.status === 'pending' && c.status === 'ready').map((c) => c.node);
  }

  build(): Step {
    const step: Step = {
      planId: this.#plan.id,
      changes: [...this.#changes.values()],
      events: this.#events,
      settle: this.#finished && !this.#advanced,
      readyLeft: [...this.#changes.values()].some((c) => c.status === 'ready' && c.expect.status !== 'ready'),
    };
    if (this.#askLlm && ['running', 'awaiting_review'].includes(this.#planChange?.to ?? this.#plan.status)) step.askLlm = true;
    if (this.#planChange && this.#planChange.from !== this.#planChange.to) step.planChange = this.#planChange;
    return step;
  }

  #update(before: NodeState, status: NodeStatus, set: NodeChange['set'], counters?: { waiting: number; taken: number }): NodeState {
    const after: NodeState = { ...before, status, ...counters };
    if (set.output !== undefined) after.output = set.output ?? undefined;
    if (set.answer !== undefined) after.answer = set.answer ?? undefined;
    if (set.error !== undefined) after.error = set.error ?? undefined;
    if (set.attempts !== undefined) after.attempts = set.attempts;
    if (set.skippedBy !== undefined) after.skippedBy = set.skippedBy ?? undefined;
    if (set.attributes !== undefined) after.attributes = set.attributes;
    this.#nodes.set(before.id, after);
    const change = this.#changes.get(before.id);
    if (change) {
      Object.assign(change, { status, waiting: after.waiting, taken: after.taken });
      Object.assign(change.set, set);
    } else {
      const original = this.#snapshot.nodes.get(before.id)!;
      this.#changes.set(before.id, {
        node: before.id,
        expect: { status: original.status, waiting: original.waiting, taken: original.taken },
        status,
        waiting: after.waiting,
        taken: after.taken,
        set: { ...set },
      });
    }
    return after;
  }

  #event(event: Omit<EventInput, 'planId'>): void {
    const out: EventInput = { planId: this.#plan.id, kind: event.kind, driver: event.driver };
    for (const key of ['node', 'actor', 'from', 'to', 'reason', 'detail'] as const) {
      if (event[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = event[key];
    }
    this.#events.push(out);
  }
}
