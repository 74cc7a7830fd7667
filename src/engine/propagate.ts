import { isFinished, isTaken, readinessOf } from './readiness.js';
import type { NodeState } from './snapshot.js';
import type { Actor, StepBuilder } from './step.js';

const ENGINE: Actor = { driver: 'engine' };

/** A node whose state a step changed, with its state before. */
export interface Changed {
  id: string;
  before: NodeState;
}

/**
 * After nodes finished (or, retried, stopped being finished), their dependents' counters follow;
 * then, while workflow readiness applies, each pending node among the dependents and the given
 * `candidates` whose sources have all finished becomes `ready` or `skipped` (readiness.ts), and
 * the skips cascade. Throws NeedsMore when a cascade reaches nodes whose dependents the snapshot
 * does not hold.
 */
export function propagate(b: StepBuilder, changed: readonly Changed[], candidates: Iterable<string> = []): void {
  const queue = [...changed];
  let check = new Set<string>(candidates);
  while (queue.length > 0 || check.size > 0) {
    for (let item = queue.shift(); item; item = queue.shift()) {
      for (const dependent of updateDependents(b, item)) check.add(dependent);
    }
    const round = check;
    check = new Set();
    if (!b.readinessActive) continue;
    for (const id of round) {
      const node = b.node(id);
      if (node.status !== 'pending') continue;
      const readiness = readinessOf(node);
      if (readiness === 'ready') b.move(id, 'ready', ENGINE, 'its dependencies are met', { runAfterDelayMs: 0 });
      else if (readiness === 'skipped') {
        b.move(id, 'skipped', ENGINE, 'no taken edge reaches it', { skippedBy: null });
        queue.push({ id, before: node });
      }
    }
  }
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
