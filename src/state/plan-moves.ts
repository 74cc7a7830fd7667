import { DotplanError } from '../errors/errors.js';
import type { Driver, PlanStatus } from '../model/types.js';

/**
 * Plan statuses: draft → awaiting_review (review required) → running → completed | failed |
 * cancelled | rejected; paused is entered and left by an operator. A completed or failed plan runs
 * again when an operator gives it something to run (a retry, a revision with new work); a cancelled
 * or rejected one never does (`plan rerun` makes a new plan of it).
 */
const PLAN_MOVES: ReadonlyArray<readonly [PlanStatus, PlanStatus, ReadonlyArray<Driver>]> = [
  ['draft', 'awaiting_review', ['engine', 'operator']],
  ['draft', 'running', ['engine', 'operator']],
  ['awaiting_review', 'running', ['person', 'operator', 'engine']], // approved (engine: reviewTimeout with onReviewTimeout="approve")
  ['awaiting_review', 'rejected', ['person', 'operator', 'engine']], // (engine: reviewTimeout, by default)
  ['awaiting_review', 'failed', ['engine']], // a reflection plan's LLM could not write the plan to review (maxRewriteAttempts)
  ['running', 'completed', ['engine']],
  ['running', 'failed', ['engine']],
  ['running', 'paused', ['operator']],
  ['paused', 'running', ['operator']],
  ['draft', 'cancelled', ['operator']],
  ['awaiting_review', 'cancelled', ['operator']],
  ['running', 'cancelled', ['operator']],
  ['paused', 'cancelled', ['operator']],
  ['failed', 'running', ['operator']], // an operator retried a failed node, or a revision gave the plan something to run
  ['completed', 'running', ['operator']], // an operator's revision gave the plan something to run (reopened)
];

export const FINISHED_PLAN_STATUSES: ReadonlySet<PlanStatus> = new Set(['completed', 'failed', 'cancelled', 'rejected']);

export class IllegalPlanTransitionError extends DotplanError {
  readonly move: { plan: string; from: PlanStatus; to: PlanStatus; driver: Driver };
  constructor(plan: string, from: PlanStatus, to: PlanStatus, driver: Driver) {
    const allowed = PLAN_MOVES.filter(([f, , d]) => f === from && d.includes(driver)).map(([, t]) => t);
    super(
      'ILLEGAL_TRANSITION',
      `plan ${plan}: ${driver} may not move it from ${from} to ${to}` +
        (allowed.length > 0 ? `; allowed: ${allowed.join(', ')}` : `; a ${from} plan cannot be moved by the ${driver}`),
    );
    this.name = 'IllegalPlanTransitionError';
    this.move = { plan, from, to, driver };
  }
}

export function canMovePlan(from: PlanStatus, to: PlanStatus, driver: Driver): boolean {
  return PLAN_MOVES.some(([f, t, d]) => f === from && t === to && d.includes(driver));
}

export function assertPlanMove(plan: string, from: PlanStatus, to: PlanStatus, driver: Driver): void {
  if (!canMovePlan(from, to, driver)) throw new IllegalPlanTransitionError(plan, from, to, driver);
}
