/**
 * The engine: the rules of a running plan as pure functions over a snapshot of its state (no I/O).
 * Each returns a Step — the moves, each checked against the state machine for its driver, the
 * counter updates, the events and whether the plan may be over — which the store persists in one
 * transaction. Readiness, `when` branches, cascading skips, onFailure, retries and plan completion
 * are each written once, here.
 */
export { finishAttempts, expireLeases, type AttemptEnd, type AttemptResult, type ExpiredLease, type FinishOptions } from './attempts.js';
export { answer, answerTimedOut, retry, skip } from './commands.js';
export { start, pause, resume, cancel, settle, conclude, approve, reject, reviewTimedOut, suggest, type PlanFacts } from './plan-steps.js';
export { initialSnapshot, LIVE_ATTRIBUTES } from './initial-state.js';
export { revise, type Revised } from './revise.js';
export { isFinished, isTaken, readinessOf, skippedByDecision, skippedByEngine, type Readiness } from './readiness.js';
export { planFailure, type FailedNode } from './failure.js';
export { NeedsMore, mergeSnapshots, snapshotOf, type NodeState, type OutEdge, type PlanState, type Snapshot } from './snapshot.js';
export { StepBuilder, type Actor, type EventInput, type NodeChange, type PlanChange, type Step } from './step.js';
export { retryPolicy, nextRetryDelay, parseRetries, MAX_RETRY_DELAY_MS, type RetryDefaults, type RetryPolicy } from './retry-policy.js';
