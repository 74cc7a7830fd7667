import { revise, type Actor } from '../engine/index.js';
import type { Snapshot } from '../engine/snapshot.js';
import { readDot, writeDot, NO_DOT_LIMITS } from '../dot/index.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { PlanGraph } from '../model/types.js';
import { mergeLiveState } from '../plans/plan-view.js';
import { diffPlans, type PlanChange } from '../revisions/diff.js';
import { keepLiveFields } from '../revisions/merge.js';
import { checkRights, type RightsProblem } from '../revisions/rights.js';
import type { RevisionWrite } from '../store/types.js';

/**
 * A hand edit of a running plan, decided against the plan as it stands (SPEC §9): the edited graph
 * (already validated) with the live fields it left out kept; the changes against the current plan
 * with its live state; every change checked against the operator's rights; then the revision the
 * engine makes of it — or nothing, with every problem. Pure: the store calls it inside its transaction.
 */
export interface EditVerdict {
  changes: PlanChange[];
  problems: RightsProblem[];
  /** What to write; absent when refused, when nothing changed, or on a dry run. */
  write?: RevisionWrite;
}

export function decideEdit(
  current: { snapshot: Snapshot; revision: { number: number; dot: string } },
  edited: PlanGraph,
  by: Actor,
  options: { dryRun?: boolean; updateLog?: string } = {},
): EditVerdict {
  const { snapshot, revision } = current;
  const live = mergeLiveState(
    readDot(revision.dot, { source: `plan ${snapshot.plan.id} revision ${revision.number}`, ...NO_DOT_LIMITS }),
    snapshot.nodes.values(),
  );
  const next = keepLiveFields(live, edited);
  const changes = diffPlans(live, next);
  const statuses = new Map([...snapshot.nodes.values()].map((n) => [n.id, n.status]));
  const problems = checkRights(changes, statuses, 'operator');
  if (problems.length > 0 || changes.length === 0 || options.dryRun) return { changes, problems };
  const revised = revise(snapshot, live, next, by);
  const write: RevisionWrite = {
    revised,
    next,
    dot: writeDot(next),
    author: 'operator',
    updateLog: options.updateLog ?? `hand edit by ${by.name ?? 'an operator'}`,
  };
  return { changes, problems, write };
}

/** `plan apply --json`: {"applied", "revision", "changes", "conflicts", "diagnostics"}. */
export interface ApplyReport {
  applied: boolean;
  revision: number | null;
  changes: PlanChange[];
  conflicts: RightsProblem[];
  diagnostics: Diagnostic[];
}
