import { InvalidInputError } from '../errors/errors.js';
import { ValidationError, type Diagnostic } from '../model/diagnostics.js';
import { rerunGraph } from '../plans/rerun-graph.js';
import { authoredComments, withComments } from '../revisions/edit-file.js';
import { revisionGraph } from '../revisions/revision-graphs.js';
import type { PlanRecord } from '../store/types.js';
import { validateGraph } from '../validate/index.js';
import type { RevisionDeps } from './apply-revision.js';

export interface RerunOptions {
  /** Run again from this node on: the results of the done nodes it does not lead to are carried over. Default: every node runs again. */
  from?: string;
  /** The new plan's title; default the old one's, suffixed ` (rerun)`. */
  title?: string;
  /** Who reruns it (an operator). */
  by: string;
}

/**
 * `plan rerun`: a new plan from a stored plan's latest revision — its template, parameters, title
 * and settings (review, mode, goal...) — with every node pending, or only from a node on (the
 * results before it carried over, each with an event saying from which plan). It is validated
 * against today's tools like any new plan, linked to the old one (`rerunOf`, and the creation
 * event), and started.
 */
export async function rerunPlan(deps: RevisionDeps, planId: string, options: RerunOptions): Promise<PlanRecord & { warnings: Diagnostic[] }> {
  const { store, tools } = deps;
  // The latest revision and the nodes' state read at one instant (the old plan may still be running).
  const [old, { revision, nodes }] = await Promise.all([store.plans.get(planId), store.plans.editable(planId)]);
  const authored = revisionGraph(planId, revision.number, revision.dot);
  if (options.from !== undefined && !authored.nodes.some((n) => n.id === options.from)) {
    const ids = authored.nodes.map((n) => n.id);
    throw new InvalidInputError(
      `from ${JSON.stringify(options.from)}: plan ${planId} has no node ${JSON.stringify(options.from)}; its nodes are ${ids.length > 0 ? ids.join(', ') : '(none)'}`,
    );
  }
  const { graph, carried } = rerunGraph(authored, nodes, options.from);
  const source = `plan ${planId} revision ${revision.number}`;
  const checked = validateGraph(graph, { tools, source, allowAgent: false });
  if (!checked.valid || !checked.graph) throw new ValidationError(checked.diagnostics, source);
  const from = options.from !== undefined ? `, from node ${options.from}` : '';
  const created = await store.plans.create({
    title: options.title ?? (old.title.endsWith(' (rerun)') ? old.title : `${old.title} (rerun)`),
    graph: checked.graph,
    dot: withComments(authoredComments(revision.dot), checked.graph),
    author: 'operator',
    actor: options.by,
    updateLog: `Rerun of plan ${planId} (its revision ${revision.number})${from}`,
    ...(old.template !== undefined ? { template: old.template } : {}),
    params: old.params,
    rerunOf: { planId, ...(options.from !== undefined ? { from: options.from } : {}) },
    events: carried.map((node) => ({
      node,
      kind: 'status' as const,
      driver: 'operator' as const,
      actor: options.by,
      from: '',
      to: 'done',
      reason: `carried over from plan ${planId}`,
      detail: { carriedFrom: planId },
    })),
  });
  return { ...created, warnings: checked.diagnostics };
}
