import * as engine from '../engine/index.js';
import type { Actor } from '../engine/step.js';
import { InvalidArgumentError, InvalidInputError } from '../errors/errors.js';
import type { PlanStatus } from '../model/types.js';
import type { PlanRecord, Store } from '../store/types.js';
import { thePlan } from '../store/read-back.js';
import { applyRevision, type RevisionDeps } from './apply-revision.js';
import type { ApplyReport } from './decide-revision.js';

/**
 * People in the loop (seed 003, issue 9): a reviewer approves, rejects or modifies a plan waiting
 * for review, each decision a `review` event with who and why; the inbox lists what waits for a
 * person across plans. The Dotplan class exposes these as its methods.
 */
type Person = Actor & { driver: 'person'; name: string };

/** A reviewer's change: a DOT text (a new revision by the person), or a suggestion for the LLM (reflection plans). */
export type Modification =
  | {
      /** The plan as it should be (from `show`). */
      dot: string;
      /** A name for the text in diagnostics (a file path). */
      source?: string;
    }
  | {
      /** What the LLM should change. */
      suggestion: string;
    };

export async function approve(store: Store, planId: string, by: Person, reason?: string): Promise<PlanRecord> {
  return store.plans.change(
    planId,
    { candidates: true },
    (snapshot, candidates) => {
      awaitingReview(snapshot.plan.id, snapshot.plan.status, 'approved');
      return engine.approve(snapshot, by, reason ?? `approved by ${by.name}`, candidates);
    },
    thePlan(planId),
  );
}

export async function reject(store: Store, planId: string, by: Person, reason: string): Promise<PlanRecord> {
  return store.plans.change(
    planId,
    {},
    (snapshot) => {
      awaitingReview(snapshot.plan.id, snapshot.plan.status, 'rejected');
      return engine.reject(snapshot, by, reason);
    },
    thePlan(planId),
  );
}

/**
 * A DOT text becomes a new revision by the person (through the revision path, under a reviewer's
 * rights); a suggestion goes to the LLM as a rewrite request (reflection plans only). Either way the
 * plan waits for review again.
 */
export async function modify(deps: RevisionDeps, planId: string, change: Modification, by: Person, reason?: string): Promise<ApplyReport | PlanRecord> {
  if ('dot' in change) {
    awaitingReview(planId, (await deps.store.plans.get(planId)).status, 'modified');
    return applyRevision(deps, planId, change.dot, { by, source: change.source ?? '<modification>', reason: reason ?? `modified in review by ${by.name}` });
  }
  // The check and the request in one step: a decision that lands first makes this one refused, not half-applied.
  return deps.store.plans.change(
    planId,
    {},
    (snapshot) => {
      awaitingReview(planId, snapshot.plan.status, 'modified');
      if (snapshot.plan.mode !== 'reflection') {
        throw InvalidArgumentError.about(
          'suggestion',
          `has no one to act on it: plan ${planId} is a workflow plan, which no LLM rewrites; give the change as DOT instead`,
          'modify',
        );
      }
      return engine.suggest(snapshot, by, change.suggestion);
    },
    thePlan(planId),
  );
}

/** Review decisions apply to a plan waiting for review only. */
function awaitingReview(planId: string, status: PlanStatus, what: string): void {
  if (status !== 'awaiting_review') {
    throw new InvalidInputError(
      `plan ${planId} is ${status}, not awaiting_review: only a plan waiting for review can be ${what} (a plan waits for review when it is created for review, or says review="required")`,
    );
  }
}
