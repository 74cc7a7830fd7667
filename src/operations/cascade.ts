import * as engine from '../engine/index.js';
import type { Actor } from '../engine/index.js';
import { FINISHED_PLAN_STATUSES } from '../state/plan-moves.js';
import type { Store } from '../store/index.js';
import { thePlan } from '../store/read-back.js';
import type { PlanRecord } from '../store/types.js';

/**
 * Commands that cascade down the plan stack (issue 15), each in one transaction, root → leaf: a
 * cancel cancels every descendant not finished (no node of one runs after the cancel event); a pause
 * pauses the running descendants and marks them; a resume un-pauses only what a pause cascaded to
 * (a child an operator paused by hand stays paused). The named plan is moved as before, with its
 * checks (a finished plan cannot be cancelled, and so on). Each returns the named plan as it left it.
 */
export function cancelTree(store: Store, planId: string, by: Actor, reason: string): Promise<PlanRecord> {
  return store.tree.cascade(
    planId,
    { all: true },
    (snapshot, _candidates, place) => {
      if (!place.descendant) return engine.cancel(snapshot, by, reason);
      if (FINISHED_PLAN_STATUSES.has(snapshot.plan.status)) return undefined;
      return engine.cancel(snapshot, by, `${reason} (its ancestor ${planId} was cancelled)`);
    },
    thePlan(planId),
  );
}

export function pauseTree(store: Store, planId: string, by: Actor, reason: string): Promise<PlanRecord> {
  return store.tree.cascade(
    planId,
    {},
    (snapshot, _candidates, place) => {
      if (!place.descendant) return engine.pause(snapshot, by, reason);
      return snapshot.plan.status === 'running' ? engine.pause(snapshot, by, `${reason} (its ancestor ${planId} was paused)`) : undefined;
    },
    thePlan(planId),
  );
}

export function resumeTree(store: Store, planId: string, by: Actor, reason: string): Promise<PlanRecord> {
  return store.tree.cascade(
    planId,
    { candidates: true },
    (snapshot, candidates, place) => {
      if (!place.descendant) return engine.resume(snapshot, by, reason, candidates);
      return snapshot.plan.status === 'paused' && place.cascadePaused
        ? engine.resume(snapshot, by, `${reason} (its ancestor ${planId} was resumed)`, candidates)
        : undefined;
    },
    thePlan(planId),
  );
}
