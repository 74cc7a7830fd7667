import { revise, type Actor } from '../engine/index.js';
import type { Snapshot } from '../engine/snapshot.js';
import { withComments } from '../revisions/edit-file.js';
import { revisionGraph } from '../revisions/revision-graphs.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { PlanGraph } from '../model/types.js';
import { mergeLiveState } from '../plans/plan-view.js';
import { baseGraph, type StatusMove } from '../revisions/base.js';
import { diffPlans, edgeName, type PlanChange } from '../revisions/diff.js';
import { keepLiveFields } from '../revisions/live-fields.js';
import { inEditOrder, mergeEdit, type Conflict } from '../revisions/merge.js';
import { checkRights, closedTo, type RevisionDriver, type RightsProblem } from '../revisions/rights.js';
import type { RevisionWrite } from '../store/types.js';

/**
 * A new revision of a running plan by an operator (hand edit), a person or the LLM (rewrite),
 * decided against the plan as it stands (SPEC §9). Live fields the new graph (as read) leaves out
 * are kept (revisions/live-fields.ts) and the plan it makes is validated whole. It is merged
 * three-way when it says what it was made from (`revision`, `asOfEvent`) and the plan has moved on
 * since: what changed on the plan's side stays, the new graph's changes that touch none of it are
 * applied, the others are conflicts, and the merged plan is validated again. Without a base it is
 * taken against the latest revision. Then every change is checked against the driver's rights; the
 * engine makes the revision of it — or nothing, with every problem. Pure: the store calls it inside
 * its transaction.
 */
export interface EditVerdict {
  changes: PlanChange[];
  conflicts: EditProblem[];
  diagnostics: Diagnostic[];
  /** What to write; absent when refused, when nothing changed, or on a dry run. */
  write?: RevisionWrite;
}

/** A change refused: one the operator may not make, or one that conflicts with what changed since the base. */
export type EditProblem = (RightsProblem | Conflict) & { line?: number };

/** What the edit was made from, as the store read it: revision N's text and the audit log's status moves. */
export interface LoadedBase {
  revision: number;
  dot: string;
  /** Status moves up to the edit's `asOfEvent`; absent when the file did not say (the live state is taken as it is now). */
  moves?: { asOfEvent: number; events: readonly StatusMove[] };
}

export interface EditOptions {
  base?: LoadedBase;
  dryRun?: boolean;
  updateLog?: string;
  /** Validates a plan the revision would make (the shared validator with the plan's tools). */
  validate: (graph: PlanGraph) => { diagnostics: Diagnostic[]; graph?: PlanGraph };
  /** The edit's authored comment block, kept at the top of the revision. */
  comments?: string;
  /** More problems of the merged plan for this author. */
  check?: (next: PlanGraph) => Diagnostic[];
}

export function decideRevision(
  current: { snapshot: Snapshot; revision: { number: number; dot: string } },
  edited: PlanGraph,
  by: Actor & { driver: RevisionDriver },
  options: EditOptions,
): EditVerdict {
  const { snapshot, revision } = current;
  const closed = closedTo(snapshot.plan, by.driver);
  if (closed) return { changes: [], conflicts: [], diagnostics: [closed] };
  const read = (dot: string, number: number) => revisionGraph(snapshot.plan.id, number, dot);
  const live = mergeLiveState(read(revision.dot, revision.number), snapshot.nodes.values());
  // The LLM refreshes the plan's nodes; graph attributes it leaves out (mode, goal...) are kept as they are.
  if (by.driver === 'llm') edited = { ...edited, attributes: { ...live.attributes, ...edited.attributes } };
  const refused = (diagnostics: Diagnostic[]): EditVerdict => ({ changes: [], conflicts: [], diagnostics });
  const errorsOf = (checked: { diagnostics: Diagnostic[] }) => checked.diagnostics.filter((d) => d.severity === 'error');

  let next: PlanGraph | undefined;
  if (options.base) {
    const { base } = options;
    const from = base.moves
      ? baseGraph(read(base.dot, base.revision), base.moves.events, base.moves.asOfEvent, snapshot.nodes, edited)
      : mergeLiveState(read(base.dot, base.revision), snapshot.nodes.values());
    // When the plan has moved on since the base, the edit is merged three-way; otherwise it is taken as written.
    if (diffPlans(from, live).length > 0) {
      // The edit as a plan of its own (what it left out as it was at its base), then merged.
      const own = options.validate(keepLiveFields(from, edited));
      if (errorsOf(own).length > 0 || !own.graph) return refused(errorsOf(own));
      const merged = mergeEdit(from, live, own.graph);
      if (merged.conflicts.length > 0) return { changes: merged.applied, conflicts: located(merged.conflicts, edited), diagnostics: [] };
      // Both sides' changes together must still make a valid plan (e.g. no cycle across them).
      const checked = options.validate(inEditOrder(merged.graph, edited));
      if (errorsOf(checked).length > 0 || !checked.graph) return refused(errorsOf(checked).map((d) => mergedDiagnostic(d, base.revision)));
      next = checked.graph;
    }
  }
  if (!next) {
    // The plan as it will be: live fields the edit left out kept (revisions/live-fields.ts), then validated whole.
    const checked = options.validate(keepLiveFields(live, edited));
    if (errorsOf(checked).length > 0 || !checked.graph) return refused(errorsOf(checked));
    next = checked.graph;
  }

  const extra = options.check?.(next) ?? [];
  const changes = diffPlans(live, next);
  const statuses = new Map([...snapshot.nodes.values()].map((n) => [n.id, n.status]));
  const problems = located(checkRights(changes, statuses, by.driver, next), edited);
  // The caller's checks and the driver's rights named together: a model learns every problem of a reply at once.
  if (extra.length > 0) return { changes: [], conflicts: problems, diagnostics: extra };
  if (problems.length > 0 || changes.length === 0 || options.dryRun) return { changes, conflicts: problems, diagnostics: [] };
  const write: RevisionWrite = {
    revised: revise(snapshot, live, next, by, revision.number + 1),
    next,
    dot: withComments(options.comments, next),
    author: by.driver,
    updateLog: options.updateLog ?? `hand edit by ${by.name ?? `the ${by.driver}`}`,
  };
  return { changes, conflicts: problems, diagnostics: [], write };
}

/** Each problem with the line of its node or edge in the edited file, where known. */
function located<T extends RightsProblem | Conflict>(problems: readonly T[], edited: PlanGraph): Array<T & { line?: number }> {
  const lines = new Map<string, number>();
  for (const n of edited.nodes) if (n.location) lines.set(`node ${n.id}`, n.location.line);
  for (const e of edited.edges) {
    const name = `edge ${edgeName({ from: e.from, to: e.to, nth: 1 })}`;
    if (e.location && !lines.has(name)) lines.set(name, e.location.line);
  }
  return problems.map((p) => {
    const line =
      (p.edge !== undefined ? lines.get(`edge ${p.edge.replace(/ #\d+$/, '')}`) : undefined) ??
      (p.node !== undefined ? lines.get(`node ${p.node}`) : undefined);
    return line === undefined ? p : { ...p, line };
  });
}

function mergedDiagnostic(d: Diagnostic, base: number): Diagnostic {
  const { line: _line, column: _column, ...rest } = d;
  return { ...rest, message: `with what changed in the plan since revision ${base}: ${d.message}` };
}

/** `plan apply --json`: {"applied", "revision", "base", "changes", "conflicts", "diagnostics"}. */
export interface ApplyReport {
  /** Whether it became a revision (false for a dry run, a refused edit, or no change). */
  applied: boolean;
  /** The new revision's number, when applied. */
  revision: number | null;
  /** What the edit was merged against: the revision (and event) the file names, or null when it named none and was taken against the latest. */
  base: { revision: number; asOfEvent?: number } | null;
  /** What it changes (or would change): nodes, edges, attributes, moves. */
  changes: PlanChange[];
  /** Changes the author may not make, or that clash with what changed since the base: each refuses the edit. */
  conflicts: EditProblem[];
  /** The text's own problems (it does not read or validate): each error refuses the edit. */
  diagnostics: Diagnostic[];
}
