import { TERMINAL_NODE_STATUSES } from '../../model/status.js';
import { NODE_WAITS, PLAN_WAITS, startsWaiting } from '../../model/waiting.js';
import type { EventInput, NodeChange, Step } from '../../engine/step.js';
import { DotplanError } from '../../errors/errors.js';
import { encodeText } from '../text.js';
import { redact, redactValue } from '../../secrets/redact.js';

/**
 * A step as rows to write — the same for both backends. A node row is written only if it still
 * holds the state the step was computed from (`exp_*`, and the lease token of the attempt being
 * finished); the lease follows the move: a claim takes a new one, leaving `running` clears it.
 */
export interface NodeWrite {
  id: number;
  plan_id: string;
  node_id: string;
  exp_status: string;
  exp_waiting: number;
  exp_taken: number;
  exp_token: string | null;
  status: string;
  waiting: number;
  taken: number;
  set_output: boolean;
  output: string | null;
  set_answer: boolean;
  answer: string | null;
  set_error: boolean;
  error: string | null;
  attempts: number | null;
  /** null: keep; 0: due at once; > 0: due that many ms from now. */
  run_after_delay: number | null;
  set_skipped_by: boolean;
  skipped_by: string | null;
  attributes: string | null;
  claim: boolean;
  clear_lease: boolean;
  finished: boolean;
  /** The move starts a wait for a person: `waiting_since` is now, the notice and timeout times start afresh. */
  waits: boolean;
  /**
   * In a step computed from a claim's basis, only the counters of a pending node that still waits
   * (isCountDown): written as their change (`waiting` less the parents that finished in this step, `taken`
   * plus those taken), on a row still pending that the change leaves waiting, rather than as values on a row
   * holding the counters the claim saw: a parent that another write finished since does not refuse the
   * step. Where the change would leave the row waiting for nothing, the write is refused, as any unmet
   * expectation is. A step computed from rows read under lock writes values (their counters are current).
   */
  relative: boolean;
}

export interface PlanWrite {
  plan_id: string;
  from_status: string;
  to_status: string;
  set_error: boolean;
  error: string | null;
  /** The plan starts waiting for its reviewer (as `NodeWrite.waits`). */
  waits: boolean;
}

export interface EventWrite {
  ord: number;
  plan_id: string;
  node_id: string | null;
  kind: string;
  driver: string;
  actor: string | null;
  from_status: string;
  to_status: string;
  reason: string | null;
  detail: string | null;
  /** A plan move's event: written only if the plan move was (another writer may have moved the plan first). */
  plan_move: boolean;
}

export interface WriteSet {
  nodes: NodeWrite[];
  plans: PlanWrite[];
  events: EventWrite[];
  /**
   * The plan statuses the steps were computed on, and the revision where a step was computed from a
   * claim's basis: the write is refused if one changed meanwhile.
   */
  expect: Array<{ plan_id: string; status: string; revision: number | null }>;
}

/** Row ids of the nodes the steps change, by plan and node id. */
export type RowIds = (planId: string, nodeId: string) => number | undefined;

export function toWriteSet(
  steps: readonly Step[],
  rowIds: RowIds,
  tokens: ReadonlyMap<number, string> = new Map(),
  planAsSeen?: (planId: string) => { status: string; revision?: number },
): WriteSet {
  const out: WriteSet = { nodes: [], plans: [], events: [], expect: [] };
  const expected = new Set<string>();
  for (const step of steps) {
    const seen = planAsSeen?.(step.planId);
    // One expectation per plan: the plan as seen is the same for each of its steps (a node's end and the plan's settling, say).
    if (seen !== undefined && !expected.has(step.planId)) {
      expected.add(step.planId);
      out.expect.push({ plan_id: step.planId, status: seen.status, revision: seen.revision ?? null });
    }
    // A step computed from a claim's basis (its plan's revision checked) counts its dependents down as they stand.
    const fromBasis = seen?.revision !== undefined;
    for (const change of step.changes) {
      const id = rowIds(step.planId, change.node);
      if (id === undefined) throw new DotplanError('INTERNAL', `no row for node ${JSON.stringify(change.node)} of plan ${step.planId} in the step`);
      const { set } = change;
      out.nodes.push({
        id,
        plan_id: step.planId,
        node_id: change.node,
        exp_status: change.expect.status,
        exp_waiting: change.expect.waiting,
        exp_taken: change.expect.taken,
        exp_token: change.expect.status === 'running' ? (tokens.get(id) ?? null) : null,
        status: change.status,
        waiting: change.waiting,
        taken: change.taken,
        set_output: set.output !== undefined,
        output: encodeText(redact(set.output)),
        set_answer: set.answer !== undefined,
        answer: encodeText(set.answer),
        set_error: set.error !== undefined,
        error: encodeText(redact(set.error)),
        attempts: set.attempts ?? null,
        run_after_delay: set.runAfterDelayMs ?? null,
        set_skipped_by: set.skippedBy !== undefined,
        skipped_by: set.skippedBy ?? null,
        attributes: set.attributes !== undefined ? JSON.stringify(set.attributes) : null,
        claim: change.claim === true,
        clear_lease: change.claim !== true && change.expect.status === 'running' && change.status !== 'running',
        finished: change.status !== change.expect.status && TERMINAL_NODE_STATUSES.has(change.status),
        waits: startsWaiting(change.expect.status, change.status, NODE_WAITS),
        relative: fromBasis && isCountDown(change),
      });
    }
    if (step.planChange) {
      const { from, to, error } = step.planChange;
      out.plans.push({
        plan_id: step.planId,
        from_status: from,
        to_status: to,
        set_error: error !== undefined,
        error: encodeText(redact(error)),
        waits: startsWaiting(from, to, PLAN_WAITS),
      });
    }
    out.events.push(...toEventWrites(step.events, out.events.length));
  }
  return out;
}

/**
 * A change of a pending node's counters alone that leaves it waiting: no status move, no field set, no
 * claim (what propagate.ts writes for a dependent whose parents have not all finished). Its result does
 * not depend on the counters it was computed from: a step computed on older counters writes the same
 * change, so it is written as a change (NodeWrite.relative).
 */
function isCountDown(change: NodeChange): boolean {
  return (
    change.expect.status === 'pending' &&
    change.status === 'pending' &&
    change.waiting > 0 &&
    change.claim !== true &&
    Object.values(change.set).every((value) => value === undefined)
  );
}

export function toEventWrites(events: readonly EventInput[], first = 0): EventWrite[] {
  return events.map((event, i) => ({
    ord: first + i,
    plan_id: event.planId,
    node_id: event.node ?? null,
    kind: event.kind,
    driver: event.driver,
    actor: event.actor ?? null,
    from_status: event.from ?? '',
    to_status: event.to ?? '',
    reason: encodeText(redact(event.reason)),
    detail: event.detail !== undefined ? JSON.stringify(redactValue(event.detail)) : null,
    plan_move: event.node === undefined && event.kind === 'status',
  }));
}

/** Some row no longer held what the step was computed from: nothing of the step was written. */
export class StaleStepError extends DotplanError {
  constructor() {
    super('CONFLICT', 'the plan changed while the step was computed; nothing was written');
    this.name = 'StaleStepError';
  }
}
