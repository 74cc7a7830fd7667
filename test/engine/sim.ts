/**
 * An in-memory plan for testing the engine's pure rules without a database: it holds every node and
 * edge, hands the rules a snapshot of all of it, and applies the steps they return (no rules here:
 * it only writes what a step says, checking each change's `expect` as the store does).
 */
import { initialSnapshot, type NodeState, type OutEdge, type PlanState, type Snapshot, type Step } from '../../src/engine/index.js';
import type { Attributes, GraphEdge, PlanGraph } from '../../src/model/types.js';

export class SimPlan {
  plan: PlanState;
  readonly nodes = new Map<string, NodeState>();
  readonly edges: ReadonlyMap<string, readonly OutEdge[]>;
  readonly events: Step['events'] = [];
  readonly steps: Step[] = [];

  constructor(graph: PlanGraph, id = 'p1') {
    const { snapshot } = initialSnapshot(id, graph);
    this.plan = snapshot.plan;
    for (const [key, node] of snapshot.nodes) this.nodes.set(key, { ...node });
    this.edges = snapshot.edges;
  }

  snapshot(): Snapshot {
    return { plan: this.plan, nodes: new Map([...this.nodes].map(([k, v]) => [k, { ...v }])), edges: this.edges };
  }

  /** Pending nodes whose sources have all finished, and pending roots. */
  candidates(): string[] {
    return [...this.nodes.values()].filter((n) => n.status === 'pending' && n.waiting === 0).map((n) => n.id);
  }

  apply(step: Step | undefined): Step | undefined {
    if (!step) return step;
    for (const change of step.changes) {
      const node = this.nodes.get(change.node)!;
      const { status, waiting, taken } = change.expect;
      if (node.status !== status || node.waiting !== waiting || node.taken !== taken) throw new Error(`stale change of ${change.node}`);
      node.status = change.status;
      node.waiting = change.waiting;
      node.taken = change.taken;
      const set = change.set;
      if (set.output !== undefined) node.output = set.output ?? undefined;
      if (set.answer !== undefined) node.answer = set.answer ?? undefined;
      if (set.error !== undefined) node.error = set.error ?? undefined;
      if (set.attempts !== undefined) node.attempts = set.attempts;
      if (set.skippedBy !== undefined) node.skippedBy = set.skippedBy ?? undefined;
      if (set.attributes !== undefined) node.attributes = set.attributes;
    }
    if (step.planChange) {
      if (this.plan.status !== step.planChange.from) throw new Error('stale plan change');
      this.plan = { ...this.plan, status: step.planChange.to };
    }
    this.events.push(...step.events);
    this.steps.push(step);
    return step;
  }

  status(id: string): string {
    return this.nodes.get(id)!.status;
  }

  statuses(): Record<string, string> {
    return Object.fromEntries([...this.nodes].map(([k, v]) => [k, v.status]));
  }

  facts() {
    const all = [...this.nodes.values()];
    return { active: all.some((n) => ['pending', 'ready', 'running', 'awaiting_input'].includes(n.status)), failed: all.some((n) => n.status === 'failed') };
  }
}

/** A plan graph from a compact description: nodes with attributes, edges as [from, to, when?]. */
export function graph(nodes: Record<string, Attributes>, edges: Array<[string, string, string?]> = [], attributes: Attributes = {}): PlanGraph {
  return {
    strict: false,
    attributes: { mode: 'workflow', ...attributes },
    nodes: Object.entries(nodes).map(([id, a]) => ({ id, attributes: { type: 'function', status: 'pending', toolCode: 'echo', ...a } })),
    edges: edges.map(([from, to, when]): GraphEdge => ({ from, to, attributes: when === undefined ? {} : { when } })),
    clusters: [],
  };
}
