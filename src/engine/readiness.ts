import { TERMINAL_NODE_STATUSES } from '../model/status.js';
import type { NodeStatus } from '../model/types.js';
import { matchesWhen, parseWhen, whenSubject, type WhenCondition } from '../model/when.js';
import type { NodeState } from './snapshot.js';

/**
 * Workflow readiness (SPEC §2), the one definition: a pending node becomes `ready` once every
 * incoming edge's source has finished and at least one of those edges was *taken* (or it has no
 * incoming edge); when every source has finished and none was taken, it is `skipped` (and its
 * dependents count it as an untaken source in turn). An edge is taken when its source passed — it
 * is `done`, or an operator (or the LLM) skipped it: the plan goes on as if it had finished with no
 * output — and the edge's `when`, if any, matches the source's answer or output (a skipped node's
 * is empty: `when="yes"` is not taken, `when="!yes"` is). Edges from failed, cancelled or
 * engine-skipped sources are not taken.
 *
 * A skip by the engine is a conclusion drawn from finished sources, not a decision: when its
 * counters stop saying "skipped" (a source is retried, or skipped by an operator), the node is
 * reopened (propagate.ts). An operator's or the LLM's skip stays.
 *
 * The engine keeps this incrementally in two counters per node (see snapshot.ts), so that each
 * finishing source costs O(1) per outgoing edge.
 */
export type Readiness = 'ready' | 'skipped' | 'wait';

/** Whether a node no longer holds its dependents back. */
export function isFinished(node: Pick<NodeState, 'status'>): boolean {
  return TERMINAL_NODE_STATUSES.has(node.status);
}

/**
 * Statuses in which a node has started: it may run (`ready`) or asks its question (`awaiting_input`).
 * Edges hold for every driver (SPEC §9): a node enters one of them from `pending` only once every
 * parent has finished, whoever asks — the engine by its counters; the LLM, a person or an operator
 * (a revision, `node retry`) is refused, naming the parents it waits for (`unfinishedParents`).
 */
export const STARTED: ReadonlySet<NodeStatus> = new Set(['ready', 'awaiting_input']);

/** The parents that hold a node back: those that have not finished. Empty when it may start. */
export function unfinishedParents<T extends Pick<NodeState, 'status'>>(parents: Iterable<T>): T[] {
  return [...parents].filter((parent) => !isFinished(parent));
}

/** A node the engine skipped (no taken edge reached it): its skip cascades, and is undone when that changes. */
export function skippedByEngine(node: Pick<NodeState, 'status' | 'skippedBy'>): boolean {
  return node.status === 'skipped' && node.skippedBy === 'engine';
}

/**
 * A node an operator (or the LLM) decided to skip: it passes, as if it had finished with no output.
 * A skip written into a plan as authored (no driver recorded) neither passes nor is ever undone.
 */
export function skippedByDecision(node: Pick<NodeState, 'status' | 'skippedBy'>): boolean {
  return node.status === 'skipped' && node.skippedBy !== undefined && node.skippedBy !== 'engine';
}

/** Whether the edge `source -> x [when]` is taken, given the source's state. */
export function isTaken(source: Pick<NodeState, 'status' | 'skippedBy' | 'output' | 'answer'>, when?: string): boolean {
  const passed = source.status === 'done' || skippedByDecision(source);
  if (!passed) return false;
  if (when === undefined || when === '') return true;
  const condition = parsed(when);
  return condition !== undefined && matchesWhen(condition, whenSubject(source));
}

/** What a pending node's counters say; a node without incoming edges (`root`) is reached at once. */
export function readinessOf(node: Pick<NodeState, 'waiting' | 'taken' | 'root'>): Readiness {
  if (node.waiting > 0) return 'wait';
  return node.taken > 0 || node.root === true ? 'ready' : 'skipped';
}

const conditions = new Map<string, WhenCondition | undefined>();

/** Parsed conditions, cached (the validator refuses unreadable ones before they are stored). */
function parsed(when: string): WhenCondition | undefined {
  if (!conditions.has(when)) {
    if (conditions.size >= 1000) conditions.clear();
    const result = parseWhen(when);
    conditions.set(when, result.ok ? result.condition : undefined);
  }
  return conditions.get(when);
}
