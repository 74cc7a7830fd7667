import { finishAttempts } from '../../engine/attempts.js';
import type { PlanState } from '../../engine/snapshot.js';
import type { Step } from '../../engine/step.js';
import type { PlanStatus } from '../../model/types.js';
import type { RetryDefaults } from '../../engine/retry-policy.js';
import { FINISHED_PLAN_STATUSES } from '../../state/plan-moves.js';
import { decideWithMore } from '../decide.js';
import type { Queryable } from '../sql/executor.js';
import { addDependents, readDependents, type DependentRow, type LoadedPlan } from '../sql/load.js';
import { childLink, childResult, linkOf, readChildLinks, type ChildEnding, type ChildLinked } from './child-result.js';
import type { ChildAhead } from './read-ahead.js';
import { groupBy } from '../../model/group-by.js';

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
  const reads = await linksOf(q, ended, ending, ahead);
  const out: Array<{ step: Step; loaded: LoadedPlan }> = [];
  for (const child of ended) {
    const parent = child.plan.parent!;
    const read = reads.get(child.plan.id);
    if (!read) continue;
    const { end: link, parent: loaded } = read.linked;
    addDependents(loaded, [parent.nodeId], read.dependents);
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

/** Whether the parent node still waits on this child: running, holding no lease, linked to it. */
function waitsOn(child: EndedChild, linked: ChildLinked | undefined): linked is ChildLinked {
  const parent = child.plan.parent!;
  const { end, parent: loaded } = linked ?? { end: undefined, parent: undefined };
  return end?.status === 'running' && end.child === child.plan.id && end.leased === null && loaded?.plan.id === parent.planId;
}

/**
 * Each ended child's link with its parent plan and node (locked) and that node's dependents (locked),
 * for the parent nodes that still wait on their children: read ahead (the one child a finish ends), or
 * for one child its link and the dependents at once; for several (a cascade) the links together, then
 * the dependents of the parent nodes that still wait, one read per parent plan, at once. A child that
 * completed without a result of its own is read alone: its result is made of its nodes.
 */
async function linksOf(
  q: Queryable,
  ended: readonly EndedChild[],
  ending: ChildEnding | undefined,
  ahead: ChildAhead | undefined,
): Promise<Map<string, { linked: ChildLinked; dependents: DependentRow[] }>> {
  const out = new Map<string, { linked: ChildLinked; dependents: DependentRow[] }>();
  const alone = ended.length === 1 ? ended : ended.filter((c) => c.to === 'completed');
  for (const child of alone) {
    const parent = child.plan.parent!;
    const read = ahead?.childId === child.plan.id ? ahead.end : undefined;
    const [linked, dependents] = read
      ? [linkOf(read.link, ending), read.dependents]
      : await Promise.all([childLink(q, child.plan.id, parent, ending), readDependents(q, parent.planId, [parent.nodeId])]);
    if (waitsOn(child, linked)) out.set(child.plan.id, { linked, dependents });
  }
  const together = ended.filter((c) => !alone.includes(c));
  if (together.length === 0) return out;
  const rows = await readChildLinks(
    q,
    together.map((c) => ({ id: c.plan.id, parent: c.plan.parent! })),
  );
  const waiting = new Map<string, { child: EndedChild; linked: ChildLinked }>();
  for (const child of together) {
    const row = rows.get(child.plan.id);
    const linked = row && linkOf(row);
    if (waitsOn(child, linked)) waiting.set(child.plan.id, { child, linked });
  }
  const byPlan = groupBy(
    [...waiting.values()].map(({ child }) => child.plan.parent!),
    (parent) => parent.planId,
    (parent) => parent.nodeId,
  );
  const read = await Promise.all([...byPlan].map(([planId, nodes]) => readDependents(q, planId, nodes)));
  const dependents = new Map([...byPlan.keys()].map((planId, i) => [planId, read[i]!]));
  for (const [id, { child, linked }] of waiting) {
    const parent = child.plan.parent!;
    out.set(id, { linked, dependents: dependents.get(parent.planId)!.filter((row) => row.from === parent.nodeId) });
  }
  return out;
}
