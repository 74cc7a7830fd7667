import { NeedsMore, type Snapshot } from '../engine/snapshot.js';
import type { Queryable } from './sql/executor.js';
import { loadDependents, loadNodes, type LoadedPlan } from './sql/load.js';

/** The snapshot of what has been loaded so far. */
export function snapshotOf(loaded: LoadedPlan): Snapshot {
  return { plan: loaded.plan, nodes: loaded.nodes, edges: loaded.edges };
}

/** Runs a rule on what is loaded; when it needs the dependents of more nodes, loads them and runs it again. */
export async function decideWithMore<T>(q: Queryable, loaded: LoadedPlan, rule: (snapshot: Snapshot) => T): Promise<T> {
  for (;;) {
    try {
      return rule(snapshotOf(loaded));
    } catch (error) {
      if (!(error instanceof NeedsMore)) throw error;
      const before = loaded.edges.size + loaded.nodes.size;
      await loadNodes(q, loaded, error.nodes);
      await loadDependents(q, loaded, error.nodes);
      if (loaded.edges.size + loaded.nodes.size === before) throw error; // nothing more to load: a bug, not a loop
    }
  }
}
