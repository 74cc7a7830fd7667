import type { Attributes, Driver, NodeStatus, NodeType, PlanStatus } from '../model/types.js';

/**
 * What a step rule sees of a plan: the plan's settings and the part of its live state the step
 * touches — the nodes it moves, their outgoing edges and the nodes those edges lead to. The store
 * loads it (locked, in the transaction that will persist the step) or a worker carries it from its
 * claim (then every value it relied on is checked when the step is written).
 *
 * Readiness is kept incrementally: each node counts its incoming edges whose source has not
 * finished yet (`waiting`) and those that were taken (`taken`). A finishing node changes only its
 * dependents' counters, so a join of K parents costs O(1) per parent, never a re-read of the K.
 */
export interface PlanState {
  id: string;
  status: PlanStatus;
  /** `workflow`: the engine makes nodes ready; `reflection`: the LLM does. */
  mode: string;
  /** Graph attributes of the latest revision (onFailure, retry defaults, ...). */
  attributes: Attributes;
  /** A child plan: the agent node it runs for — its end finishes that node, in the same write. */
  parent?: { planId: string; nodeId: string };
  /** A child plan: its tree's root, locked first by every write that may touch two plans of the tree. */
  root?: string;
}

export interface NodeState {
  id: string;
  type: NodeType;
  status: NodeStatus;
  /** Attempts started so far (the current one included while running). */
  attempts: number;
  /** Incoming edges whose source has not finished (done, failed, skipped or cancelled). */
  waiting: number;
  /** Incoming edges that were taken (their source finished and passed, their `when` matched). */
  taken: number;
  /**
   * For a skipped node: who skipped it. `engine`: no taken edge reached it (the skip cascades, and is
   * undone when a source runs again); an operator or the LLM: a decision (dependants go on past it);
   * none: the skip was authored in the plan's text.
   */
  skippedBy?: Driver;
  output?: string;
  answer?: string;
  error?: string;
  /** The node's DOT attributes; loaded for the nodes a step moves, not for their dependents. */
  attributes?: Attributes;
  /** True for a node without incoming edges; loaded only where readiness is decided afresh (start, resume). */
  root?: boolean;
}

/** An edge `from -> to` seen from its source. */
export interface OutEdge {
  to: string;
  when?: string;
}

export interface Snapshot {
  plan: PlanState;
  /** The nodes loaded, by id. */
  nodes: ReadonlyMap<string, NodeState>;
  /** Outgoing edges of the nodes whose dependents are loaded too (absent: not loaded). */
  edges: ReadonlyMap<string, readonly OutEdge[]>;
}

/** Signals that a rule needs the dependents of these nodes, which the snapshot does not hold. */
export class NeedsMore extends Error {
  constructor(readonly nodes: readonly string[]) {
    super(`the step needs the dependents of ${nodes.join(', ')}`);
    this.name = 'NeedsMore';
  }
}

/** A snapshot built from plain lists (tests, plan creation). */
export function snapshotOf(plan: PlanState, nodes: readonly NodeState[], edges?: ReadonlyMap<string, readonly OutEdge[]>): Snapshot {
  return { plan, nodes: new Map(nodes.map((n) => [n.id, n])), edges: edges ?? new Map() };
}

/** The union of two snapshots of one plan (a rule asked for more). */
export function mergeSnapshots(a: Snapshot, b: Pick<Snapshot, 'nodes' | 'edges'>): Snapshot {
  return { plan: a.plan, nodes: new Map([...a.nodes, ...b.nodes]), edges: new Map([...a.edges, ...b.edges]) };
}
