import type { Driver } from '../model/types.js';
import { isFinished, isTaken, readinessOf, skippedByEngine } from './readiness.js';
import type { NodeState } from './snapshot.js';
import type { Actor, StepBuilder } from './step.js';

const ENGINE: Actor = { driver: 'engine' };
const WHO: Readonly<Record<Driver, string>> = { engine: 'the engine', llm: 'the LLM', person: 'a person', operator: 'an operator' };

/** A node whose state a step changed, with its state before. */
export interface Changed {
  id: string;
  before: NodeState;
}

/**
 * After nodes finished (or, retried, stopped being finished), their dependents' counters follow;
 * then each dependent and each of the given `candidates` is decided again:
 * - first, a node the engine skipped whose counters no longer say "skipped" — a source it waited for
 *   runs again, or now lets it through — is reopened (`skipped → pending`, whatever the plan's
 *   status: an engine skip is a conclusion drawn from finished sources, not a decision), and its own
 *   dependents follow in turn; every reopening is done before anything is decided, so that no node
 *   is made ready while a source of it is about to be reopened. An operator's or the LLM's skip is a
 *   decision and stays; likewise a `ready` node whose source stops being finished goes back to
 *   `pending` (held back) until that source has finished again — and so does a candidate that is
 *   `ready` while a source of it has not finished: a node whose attempt ended without finishing it
 *   (a retry, a release, a lease expiry) after a parent of it was retried under that attempt;
 * - then, while workflow readiness applies, a pending node whose sources have all finished becomes
 *   `ready` or `skipped` (readiness.ts), and the skips cascade.
 * Throws NeedsMore when a cascade reaches nodes whose dependents the snapshot does not hold.
 */
export function propagate(b: StepBuilder, changed: readonly Changed[], candidates: Iterable<string> = []): void {
  const queue = [...changed];
  /** Node → the source whose change put it up for a decision (none for the given candidates). */
  const check = new Map<string, string | undefined>([...candidates].map((id) => [id, undefined]));
  for (;;) {
    for (let item = queue.shift(); item; item = queue.shift()) {
      for (const dependent of updateDependents(b, item)) if (!check.has(dependent)) check.set(dependent, item.id);
    }
    const reopen = [...check].filter(([id]) => {
      const node = b.node(id);
      return skippedByEngine(node) && readinessOf(node) !== 'skipped';
    });
    for (const [id, source] of reopen) {
      const before = b.node(id);
      b.move(id, 'pending', ENGINE, reopened(b, source), { skippedBy: null });
      queue.push({ id, before });
    }
    if (reopen.length > 0) continue; // their dependents' counters first; they stay up for a decision
    // A node made ready whose parent runs again (retried, reopened) waits for it again: an edge means "waits for".
    for (const [id, source] of check) {
      const node = b.node(id);
      if (node.status === 'ready' && node.waiting > 0) b.move(id, 'pending', ENGINE, heldBack(b, source));
    }
    if (check.size === 0) return;
    const round = [...check.keys()];
    check.clear();
    if (!b.readinessActive) continue;
    for (const id of round) {
      const node = b.node(id);
      if (node.status !== 'pending') continue;
      const readiness = readinessOf(node);
      if (readiness === 'ready') b.move(id, 'ready', ENGINE, 'its dependencies are met', { runAfterDelayMs: 0 });
      else if (readiness === 'skipped') {
        b.move(id, 'skipped', ENGINE, 'no taken edge reaches it', { skippedBy: 'engine' });
        queue.push({ id, before: node });
      }
    }
  }
}

/** Why a ready node goes back to pending: the parent that runs again. */
function heldBack(b: StepBuilder, source: string | undefined): string {
  if (source === undefined) return 'held back: a node it waits for has not finished';
  return `held back: its parent ${JSON.stringify(source)} is ${b.node(source).status} again`;
}

/** Why a node the engine skipped is reopened: what became of the source that changed. */
function reopened(b: StepBuilder, source: string | undefined): string {
  if (source === undefined) return 'reopened: the revision changed what reaches it';
  const parent = b.node(source);
  if (!isFinished(parent)) return `reopened: its parent ${JSON.stringify(source)} is ${parent.status} again`;
  const by = parent.status === 'skipped' && parent.skippedBy ? ` by ${WHO[parent.skippedBy]}` : '';
  return `reopened: its parent ${JSON.stringify(source)} was ${parent.status}${by}`;
}

/** Adjusts the counters of the node's dependents for its change; returns the dependents. */
function updateDependents(b: StepBuilder, { id, before }: Changed): string[] {
  const after = b.node(id);
  const wasFinished = isFinished(before);
  const nowFinished = isFinished(after);
  if (!wasFinished && !nowFinished) return [];
  const dependents: string[] = [];
  for (const edge of b.edges(id)) {
    const wasTaken = wasFinished && isTaken(before, edge.when);
    const nowTaken = nowFinished && isTaken(after, edge.when);
    const dependent = b.node(edge.to);
    const waiting = dependent.waiting + (wasFinished ? 1 : 0) - (nowFinished ? 1 : 0);
    const taken = dependent.taken + (nowTaken ? 1 : 0) - (wasTaken ? 1 : 0);
    b.counters(edge.to, waiting, taken);
    dependents.push(edge.to);
  }
  return dependents;
}
