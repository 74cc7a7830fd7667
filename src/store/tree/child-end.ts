import { finishAttempts } from '../../engine/attempts.js';
import type { PlanState } from '../../engine/snapshot.js';
import type { Step } from '../../engine/step.js';
import type { PlanStatus } from '../../model/types.js';
import type { RetryDefaults } from '../../engine/retry-policy.js';
import { FINISHED_PLAN_STATUSES } from '../../state/plan-moves.js';
import { decideWithMore } from '../decide.js';
import type { Queryable } from '../sql/executor.js';
import { addDependents, readDependents, type LoadedPlan } from '../sql/load.js';
import { childLink, childResult, linkOf, type ChildEnding } from './child-result.js';
import type { ChildAhead } from './read-ahead.js';

/** A child plan that a written step ended: its parent node is finished in the same transaction. */
export interface EndedChild {
  plan: PlanState;
  to: PlanStatus;
  actor?: string;
  reason?: string;
}

/** The child plans these steps ended (a plan move to a finished status that was written, of a plan with a parent node). */
export function endedChildren(steps: ReadonlyArray<{ step: Step; plan: PlanState }>, moved: ReadonlySet<string>): EndedChild[] {
  const out: EndedChild[] = [];
  for (const { step, plan } of steps) {
    const to = step.planChange?.to;
    if (!plan.parent || to === undefined || !FINISHED_PLAN_STATUSES.has(to) || !moved.has(step.planId)) continue;
    const event = step.events.find((e) => e.kind === 'status' && e.node === undefined && e.to === to);
    out.push({ plan, to, ...(event?.actor !== undefined ? { actor: event.actor } : {}), ...(event?.reason !== undefined ? { reason: event.reason } : {}) });
  }
  return out;
}

/**
 * The parent node's end for each ended child: done with the child's result or failed with its error
 * (child-result.ts), as a worker's report would end it — retries, onFailure, readiness of what follows.
 * A parent node that no longer waits on this child (cancelled with its plan, say) is left alone.
 * `ending`: the child's nodes as a write not yet made leaves them (the one child that write ends);
 * `ahead`: what the finish read of that child's end with its first reads (read-ahead.ts), if it could.
 */
export async function parentSteps(
  q: Queryable,
  ended: readonly EndedChild[],
  retryDefaults: RetryDefaults,
  handOff: { owner: string; slots: number } = { owner: '', slots: 0 },
  ending?: ChildEnding,
  ahead?: ChildAhead,
): Promise<Array<{ step: Step; loaded: LoadedPlan }>> {
  const out: Array<{ step: Step; loaded: LoadedPlan }> = [];
  for (const child of ended) {
    const parent = child.plan.parent!;
    // The child's end with the parent plan and node, locked, in one read; the node's dependents (locked) read at once.
    const read = ahead?.childId === child.plan.id ? ahead.end : undefined;
    const [linked, dependents] = read
      ? [linkOf(read.link, ending), read.dependents]
      : await Promise.all([childLink(q, child.plan.id, parent, ending), readDependents(q, parent.planId, [parent.nodeId])]);
    if (!linked) continue;
    const { end: link, parent: loaded } = linked;
    if (link.status !== 'running' || link.child !== child.plan.id || link.leased !== null || loaded.plan.id !== parent.planId) continue;
    addDependents(loaded, [parent.nodeId], dependents);
    const result = childResult(child.plan.id, link, child.to, child);
    const by = link.instance ?? `child plan ${child.plan.id}`;
    const claim = handOff.owner === '' ? 0 : handOff.slots;
    const step = await decideWithMore(q, loaded, (snapshot) =>
      finishAttempts(snapshot, [{ node: parent.nodeId, result, jitter: Math.random() }], {
        retryDefaults,
        owner: by,
        claim,
        claimFor: handOff.owner,
      }),
    );
    out.push({ step, loaded });
  }
  return out;
}
