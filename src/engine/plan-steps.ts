import { modeRules } from '../model/plan-modes.js';
import { handOff } from './attempts.js';
import { planFailure, type FailedNode } from './failure.js';
import { propagate, type Changed } from './propagate.js';
import { isFinished } from './readiness.js';
import type { NodeState, PlanState, Snapshot } from './snapshot.js';
import type { PlanStatus } from '../model/types.js';
import { StepBuilder, type Actor, type Step } from './step.js';

/**
 * Plan-level moves (SPEC §3): start, pause, resume, cancel, and settling a plan whose nodes have
 * all finished. `candidates` are the pending nodes whose sources have all finished (and the roots):
 * starting or resuming decides their readiness.
 */
const ENGINE: Actor = { driver: 'engine' };

/** draft → running, or → awaiting_review when the plan says review="required". */
export function start(snapshot: Snapshot, candidates: readonly string[], claimFor?: { owner: string; limit: number }): Step {
  const b = new StepBuilder(snapshot);
  const review = b.plan.attributes.review === 'required';
  b.movePlan(review ? 'awaiting_review' : 'running', ENGINE, review ? 'waiting for a reviewer (review="required")' : 'started');
  propagate(b, [], candidates);
  // A child plan started by a worker: what it makes ready first goes to that worker, in the same write.
  if (claimFor) handOff(b, claimFor.owner, claimFor.limit);
  // A reflection plan's nodes are made ready by the LLM: starting asks it for the (first) plan — before
  // the review, when there is one, so that the reviewer sees the plan the LLM means to run.
  if (modeRules(b.plan.mode).servedByLlm) return { ...b.build(), settle: false, askLlm: true };
  return { ...b.build(), settle: !review }; // a plan with nothing to run completes at once
}

/**
 * The plan as a start step leaves it, when the step only starts it and makes nodes ready (handing
 * some to the worker): its status and each node's state, for writing a new plan's rows as started
 * rather than writing the start after them. Undefined for any other start (a review, a reflection
 * plan asking the LLM, one with nothing to run, any other change): that start is written as a step.
 */
export function startedState(snapshot: Snapshot, step: Step): { status: PlanStatus; nodes: Map<string, NodeState> } | undefined {
  if (step.planChange?.to !== 'running' || step.askLlm || step.changes.length === 0) return undefined;
  const nodes = new Map(snapshot.nodes);
  for (const change of step.changes) {
    const before = nodes.get(change.node);
    const { attempts, runAfterDelayMs, ...rest } = change.set;
    const plain = change.expect.status === 'pending' && (change.status === 'ready' || (change.status === 'running' && change.claim === true));
    if (!before || !plain || (runAfterDelayMs ?? 0) !== 0 || Object.keys(rest).length > 0) return undefined;
    nodes.set(change.node, { ...before, status: change.status, waiting: change.waiting, taken: change.taken, attempts: attempts ?? before.attempts });
  }
  return { status: 'running', nodes };
}

/** running → paused: no node of the plan is claimed until it resumes; running ones finish. */
export function pause(snapshot: Snapshot, by: Actor, reason: string): Step {
  const b = new StepBuilder(snapshot);
  b.movePlan('paused', by, reason);
  return b.build();
}

/** paused → running: nodes whose sources finished meanwhile become ready; a plan with nothing left settles. */
export function resume(snapshot: Snapshot, by: Actor, reason: string, candidates: readonly string[]): Step {
  const b = new StepBuilder(snapshot);
  b.movePlan('running', by, reason);
  propagate(b, [], candidates);
  const step = b.build();
  return { ...step, settle: true };
}

/**
 * The plan is cancelled, and the engine cancels every node that has not finished (running ones
 * lose their lease). The snapshot holds every node and edge of the plan.
 */
export function cancel(snapshot: Snapshot, by: Actor, reason: string): Step {
  const b = new StepBuilder(snapshot);
  b.movePlan('cancelled', by, reason);
  const changed: Changed[] = [];
  const because = `the plan was cancelled${by.name ? ` by ${by.name}` : ''}`;
  for (const node of [...b.nodes()]) {
    if (isFinished(node)) continue;
    b.move(node.id, 'cancelled', ENGINE, because);
    changed.push({ id: node.id, before: node });
  }
  propagate(b, changed);
  return b.build();
}

/** What settling needs to know of a plan's nodes. */
export interface PlanFacts {
  /** Any node pending, ready, running or waiting for input. */
  active: boolean;
  /** Any node failed. */
  failed: boolean;
  /** When nothing is active and nodes failed: the first few to fail (first first) and how many did. */
  failures?: { count: number; first: readonly FailedNode[] };
}

/**
 * A running workflow plan with nothing left to run completes, or fails when a node failed — with
 * the error naming the first node that failed (failure.ts).
 */
export function settle(plan: PlanState, facts: PlanFacts): Step | undefined {
  if (plan.status !== 'running' || !modeRules(plan.mode).settles || facts.active) return undefined;
  const b = new StepBuilder({ plan, nodes: new Map(), edges: new Map() });
  if (facts.failed) {
    const error = planFailure(facts.failures?.first ?? [], facts.failures?.count ?? 1);
    b.movePlan('failed', ENGINE, error, error);
  } else b.movePlan('completed', ENGINE, 'every node has finished');
  return b.build();
}

/**
 * A reflection plan ends by the LLM's work (SPEC §6): `completed` once the final answer is written,
 * `failed` when its replies kept being refused, its token budget is spent or it re-planned too often.
 */
export function conclude(snapshot: Snapshot, to: 'completed' | 'failed', reason: string): Step {
  const b = new StepBuilder(snapshot);
  b.movePlan(to, ENGINE, reason, to === 'failed' ? reason : null);
  return b.build();
}

/**
 * A reviewer approves a plan waiting for review (seed 003): awaiting_review → running, readiness
 * as at a start (a reflection plan's LLM marked what runs first before the review). One `review`
 * event says who and why.
 */
export function approve(snapshot: Snapshot, by: Actor, reason: string, candidates: readonly string[]): Step {
  const b = new StepBuilder(snapshot);
  b.note({ kind: 'review', driver: by.driver, actor: by.name, reason, detail: { decision: 'approved' } });
  b.movePlan('running', by, reason);
  propagate(b, [], candidates);
  return { ...b.build(), settle: true };
}

/** Nobody decided within the plan's `reviewTimeout`: the engine applies `onReviewTimeout` (reject unless it says approve), once. */
export function reviewTimedOut(snapshot: Snapshot, why: string, candidates: readonly string[]): Step | undefined {
  if (snapshot.plan.status !== 'awaiting_review') return undefined;
  const approve = snapshot.plan.attributes.onReviewTimeout === 'approve';
  const b = new StepBuilder(snapshot);
  const reason = `timeout: ${why}; onReviewTimeout="${approve ? 'approve' : 'reject'}"`;
  b.note({ kind: 'review', driver: 'engine', reason, detail: { decision: approve ? 'approved' : 'rejected', timeout: true } });
  b.movePlan(approve ? 'running' : 'rejected', ENGINE, reason);
  if (approve) propagate(b, [], candidates);
  return { ...b.build(), settle: approve };
}

/**
 * A reviewer's suggestion for a reflection plan waiting for review: a `review` event with the text,
 * and a request for the LLM in the same step (the planner reads the suggestion from that event). The
 * plan keeps waiting for review.
 */
export function suggest(snapshot: Snapshot, by: Actor, suggestion: string): Step {
  const b = new StepBuilder(snapshot);
  b.note({ kind: 'review', driver: by.driver, actor: by.name, reason: suggestion, detail: { decision: 'modify', suggestion } });
  return { ...b.build(), askLlm: true };
}

/** A reviewer rejects a plan waiting for review: it ends `rejected` and nothing of it ever runs. */
export function reject(snapshot: Snapshot, by: Actor, reason: string): Step {
  const b = new StepBuilder(snapshot);
  b.note({ kind: 'review', driver: by.driver, actor: by.name, reason, detail: { decision: 'rejected' } });
  b.movePlan('rejected', by, reason);
  return b.build();
}
