import type { PlanGraph } from '../model/types.js';
import { diffPlans, edgeName, type PlanChange } from '../revisions/diff.js';
import { authoredAttributes, initialNode } from './initial-state.js';
import { propagate, type Changed } from './propagate.js';
import { isFinished, isTaken, readinessOf, skippedByEngine } from './readiness.js';
import type { NodeState, OutEdge, Snapshot } from './snapshot.js';
import { StepBuilder, type Actor, type Step } from './step.js';

/**
 * A new revision of a running plan (SPEC §9), as the engine applies it once the revision path has
 * validated the new plan and checked every change against its driver's rights: nodes added and
 * removed, attributes changed, the edges replaced, every node's readiness counters as the new
 * edges make them, the status moves the revision asks for (a `status` changed by hand: an
 * operator's retry or skip, the LLM's pending → ready), then readiness as usual — and one
 * `revision` event per change. An operator's revision that gives a completed or failed plan
 * something to run reopens it (the plan moves to running first, so the new work runs as in any
 * running plan). `snapshot` holds every node and edge of the plan; `current` is the plan as it
 * stands (latest revision with the live fields merged in), `next` the new one; `revision` its
 * number, for the events.
 */
export interface Revised {
  /** Changes of existing nodes (attributes, counters, moves) and every event, new nodes' moves too. */
  step: Step;
  /** New nodes in their state after the revision (readiness decided). */
  inserts: NodeState[];
  /** Nodes removed. */
  deletes: string[];
  /** The plan's edges after the revision, by source. */
  edges: Map<string, OutEdge[]>;
  /** What changed, as `plan diff` shows it. */
  changes: PlanChange[];
}

export function revise(snapshot: Snapshot, current: PlanGraph, next: PlanGraph, by: Actor, revision?: number): Revised {
  const changes = diffPlans(current, next);
  const added = new Set(changes.flatMap((c) => (c.kind === 'node-added' ? [c.node] : [])));
  const deletes = changes.flatMap((c) => (c.kind === 'node-removed' ? [c.node] : []));

  // Every node of the new plan, existing ones as stored, new ones as written; then the new edges.
  const nodes = new Map<string, NodeState>();
  for (const node of next.nodes) nodes.set(node.id, added.has(node.id) ? initialNode(node.id, node.attributes) : snapshot.nodes.get(node.id)!);
  const edges = new Map<string, OutEdge[]>(next.nodes.map((n) => [n.id, []]));
  for (const edge of next.edges) edges.get(edge.from)?.push(edge.attributes.when === undefined ? { to: edge.to } : { to: edge.to, when: edge.attributes.when });

  // Readiness counters from scratch over the new edges (a node without incoming edges is a root).
  const counts = new Map(next.nodes.map((n) => [n.id, { waiting: 0, taken: 0, root: true }]));
  for (const edge of next.edges) {
    const source = nodes.get(edge.from);
    const count = counts.get(edge.to);
    if (!source || !count) continue;
    count.root = false;
    if (!isFinished(source)) count.waiting++;
    else if (isTaken(source, edge.attributes.when)) count.taken++;
  }
  for (const [id, count] of counts) nodes.set(id, { ...nodes.get(id)!, root: count.root });

  const b = new StepBuilder({ plan: snapshot.plan, nodes, edges });
  for (const [id, count] of counts) b.counters(id, count.waiting, count.taken);
  // Attributes as the revision writes them (live fields stay columns).
  for (const node of next.nodes) {
    if (added.has(node.id)) continue;
    const attributes = authoredAttributes(node.attributes);
    if (JSON.stringify(attributes) !== JSON.stringify(nodes.get(node.id)!.attributes ?? {})) b.attributes(node.id, attributes);
  }

  // The moves the revision asks for, then readiness over the new edges.
  const moved: Changed[] = [];
  for (const change of changes) {
    if (change.kind !== 'node-attribute' || change.attribute !== 'status' || change.to === undefined || added.has(change.node)) continue;
    const before = b.node(change.node);
    const to = change.to as NodeState['status'];
    b.move(
      change.node,
      to,
      by,
      `${by.driver === 'llm' ? 'the LLM' : (by.name ?? `the ${by.driver}`)} set status="${to}" in a revision`,
      to === 'ready' ? { attempts: 0, error: null, runAfterDelayMs: 0 } : to === 'skipped' ? { skippedBy: by.driver } : {},
    );
    moved.push({ id: change.node, before });
  }
  // An operator's revision that gives a plan that has ended something to run — a node retried or
  // skipped (as `node retry` and `node skip` resume a failed plan), a new node to run — reopens it;
  // when nothing comes of it after all, the plan settles again.
  const runnable = (id: string) => ['pending', 'ready'].includes(b.node(id).status);
  const reopened = by.driver === 'operator' && ['completed', 'failed'].includes(b.plan.status) && (moved.length > 0 || [...added].some(runnable));
  if (reopened) {
    const where = revision !== undefined ? `in revision ${revision}` : 'in a revision';
    b.movePlan('running', by, `reopened by ${by.name ?? 'an operator'} ${where}: it gives the plan something to run`, null);
  }
  // Decided afresh: pending nodes with nothing to wait for, and engine skips the new edges no longer justify.
  const candidates = [...counts.keys()].filter((id) => {
    const node = b.node(id);
    return (node.status === 'pending' && node.waiting === 0) || (skippedByEngine(node) && readinessOf(node) !== 'skipped');
  });
  propagate(b, moved, candidates);

  for (const change of changes) {
    const where = 'node' in change ? { node: change.node } : {};
    const what = 'edge' in change ? { edge: edgeName(change.edge) } : {};
    b.note({ ...where, kind: 'revision', driver: by.driver, ...(by.name ? { actor: by.name } : {}), reason: describe(change), detail: { ...change, ...what } });
  }
  const built = b.build();
  const inserts = built.changes.filter((c) => added.has(c.node)).map((c) => ({ ...b.node(c.node) }));
  for (const id of added) if (!inserts.some((n) => n.id === id)) inserts.push({ ...b.node(id) });
  const step: Step = { ...built, changes: built.changes.filter((c) => !added.has(c.node)) };
  if (reopened && b.plan.mode === 'reflection') step.askLlm = true; // the LLM decides what of it runs
  return { step, inserts, deletes, edges, changes };
}

function describe(change: PlanChange): string {
  switch (change.kind) {
    case 'node-added':
      return `node ${change.node} added`;
    case 'node-removed':
      return `node ${change.node} removed`;
    case 'node-attribute':
      return `node ${change.node}: ${change.attribute} ${change.to === undefined ? 'removed' : change.from === undefined ? 'set' : 'changed'}`;
    case 'node-cluster':
      return `node ${change.node} moved to cluster ${change.to ?? '(none)'}`;
    case 'edge-added':
      return `edge ${edgeName(change.edge)} added`;
    case 'edge-removed':
      return `edge ${edgeName(change.edge)} removed`;
    case 'edge-attribute':
      return `edge ${edgeName(change.edge)}: ${change.attribute} changed`;
    case 'graph-attribute':
      return `graph attribute ${change.attribute} changed`;
    case 'cluster-added':
    case 'cluster-removed':
    case 'cluster-attribute':
      return `cluster ${change.cluster} changed`;
  }
}
