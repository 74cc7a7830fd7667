import { Reads } from './reads.js';
import type { Queryable } from './sql/executor.js';
import type { NodeRecord, PlanRecord } from './types.js';

/**
 * What a command returns of what it changed (`approve` the plan, `retry` the node): read in the command's own
 * transaction after its write, so that it is what the command left. A worker its commit wakes may move the plan
 * on at once; a read after the commit would return that instead, or not, as the two race.
 */
export type ReadBack<T> = (reads: Reads) => Promise<T>;

/** The read-back in the command's transaction `q`, after its write. */
export function readIn<T>(q: Queryable, read: ReadBack<T>): Promise<T> {
  return read(new Reads(q));
}

/**
 * After the commit and the write's settling (`ended`: the plans that settling ended), what the command returns:
 * the read in its transaction, or the read again where the settling ended `planId` — an end that no one moves on.
 * (PostgreSQL ends a root plan left with nothing to run right after the commit that left it so; SQLite in the write.)
 */
export function readAfter<T>(db: Queryable, planId: string, ended: ReadonlySet<string>, inTransaction: T, read: ReadBack<T>): Promise<T> {
  return ended.has(planId) ? read(new Reads(db)) : Promise.resolve(inTransaction);
}

/** The plan as the command left it. */
export function thePlan(planId: string): ReadBack<PlanRecord> {
  return (reads) => reads.getPlan(planId);
}

/** The node as the command left it. */
export function theNode(planId: string, nodeId: string): ReadBack<NodeRecord> {
  return (reads) => reads.getNode(planId, nodeId);
}
