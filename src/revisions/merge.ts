import type { PlanGraph } from '../model/types.js';
import { applyChanges, diffPlans, edgeKey, edgeName, type PlanChange } from './diff.js';
import { keepLiveFields } from './live-fields.js';
import { DISPLAY_ATTRIBUTES } from './rights.js';

/**
 * Three-way merge of an edit (SPEC §9): the edit was made from revision `base`; the plan has moved
 * on to `current` (workers finished nodes, another edit landed). Each change of the edit that
 * touches only what did not change since `base` is applied to `current`; a change that does — the
 * same attribute changed on both sides, an edit to a node that has since moved (started, finished),
 * an edge to a node removed since — is a conflict, named. Pure.
 */
/** A change of an edit that clashes with what changed in the plan since the edit's base revision. */
export interface Conflict {
  code: 'MERGE_CONFLICT';
  node?: string;
  edge?: string;
  attribute?: string;
  message: string;
  fix: string;
}

export interface Merged {
  /** `current` with the edit's applicable changes. */
  graph: PlanGraph;
  /** The edit's changes, as applied to `current` (changes already there are left out). */
  applied: PlanChange[];
  conflicts: Conflict[];
}

export function mergeEdit(base: PlanGraph, current: PlanGraph, edited: PlanGraph): Merged {
  const theirs = diffPlans(base, keepLiveFields(base, edited));
  const ours = diffPlans(base, current);
  const since = indexChanges(ours);
  const accepted: PlanChange[] = [];
  const conflicts: Conflict[] = [];
  const currentNodes = new Set(current.nodes.map((n) => n.id));

  for (const change of theirs) {
    const conflict = conflictOf(change, since, currentNodes);
    if (conflict === 'same') continue;
    if (conflict) conflicts.push({ code: 'MERGE_CONFLICT', ...conflict });
    else accepted.push(change);
  }
  if (conflicts.length > 0) return { graph: current, applied: [], conflicts };
  return { graph: applyChanges(current, accepted), applied: accepted, conflicts };
}

interface Since {
  /** `node\0attribute` → the value now (undefined: removed). */
  nodeAttributes: Map<string, string | undefined>;
  /** Nodes whose status changed since the base: from → to. */
  moved: Map<string, { from?: string; to?: string }>;
  removedNodes: Set<string>;
  addedNodes: Map<string, PlanChange & { kind: 'node-added' }>;
  edgeAttributes: Map<string, string | undefined>;
  removedEdges: Set<string>;
  addedEdges: Set<string>;
  graphAttributes: Map<string, string | undefined>;
  clusterAttributes: Map<string, string | undefined>;
  removedClusters: Set<string>;
}

function indexChanges(changes: readonly PlanChange[]): Since {
  const s: Since = {
    nodeAttributes: new Map(),
    moved: new Map(),
    removedNodes: new Set(),
    addedNodes: new Map(),
    edgeAttributes: new Map(),
    removedEdges: new Set(),
    addedEdges: new Set(),
    graphAttributes: new Map(),
    clusterAttributes: new Map(),
    removedClusters: new Set(),
  };
  for (const c of changes) {
    if (c.kind === 'node-attribute') {
      s.nodeAttributes.set(`${c.node}\u0000${c.attribute}`, c.to);
      if (c.attribute === 'status') s.moved.set(c.node, { ...(c.from !== undefined ? { from: c.from } : {}), ...(c.to !== undefined ? { to: c.to } : {}) });
    } else if (c.kind === 'node-removed') s.removedNodes.add(c.node);
    else if (c.kind === 'node-added') s.addedNodes.set(c.node, c);
    else if (c.kind === 'edge-attribute') s.edgeAttributes.set(`${edgeKey(c.edge)}\u0000${c.attribute}`, c.to);
    else if (c.kind === 'edge-removed') s.removedEdges.add(edgeKey(c.edge));
    else if (c.kind === 'edge-added') s.addedEdges.add(edgeKey(c.edge));
    else if (c.kind === 'graph-attribute') s.graphAttributes.set(c.attribute, c.to);
    else if (c.kind === 'cluster-attribute') s.clusterAttributes.set(`${c.cluster}\u0000${c.attribute}`, c.to);
    else if (c.kind === 'cluster-removed') s.removedClusters.add(c.cluster);
  }
  return s;
}

/** The conflict of one change of the edit with what changed since, 'same' when the plan already has it, undefined when it applies. */
function conflictOf(change: PlanChange, since: Since, currentNodes: ReadonlySet<string>): Omit<Conflict, 'code'> | 'same' | undefined {
  const removed = (node: string): Omit<Conflict, 'code'> => ({
    node,
    message: `node ${q(node)} was removed from the plan since this edit was made`,
    fix: 'make the edit again from the latest revision (`dotplan plan show <id> --format dot`)',
  });
  switch (change.kind) {
    case 'node-attribute': {
      if (since.removedNodes.has(change.node)) return removed(change.node);
      const key = `${change.node}\u0000${change.attribute}`;
      if (since.nodeAttributes.has(key)) {
        const now = since.nodeAttributes.get(key);
        if (now === change.to) return 'same';
        return {
          node: change.node,
          attribute: change.attribute,
          message: `node ${q(change.node)}: ${change.attribute} was changed on both sides — it is now ${show(now)}, the edit says ${show(change.to)}`,
          fix: `keep one value: edit the latest revision`,
        };
      }
      const moved = started(since, change.node);
      if (moved && !DISPLAY_ATTRIBUTES.has(change.attribute)) {
        return {
          node: change.node,
          attribute: change.attribute,
          message: `node ${q(change.node)} has moved from ${moved.from ?? 'pending'} to ${moved.to ?? 'pending'} since this edit was made; its ${change.attribute} cannot be edited from there`,
          fix: 'edit the latest revision, or add a new node',
        };
      }
      return undefined;
    }
    case 'node-cluster':
      return since.removedNodes.has(change.node) ? removed(change.node) : undefined;
    case 'node-removed': {
      if (since.removedNodes.has(change.node)) return 'same';
      const moved = started(since, change.node);
      if (moved) {
        return {
          node: change.node,
          message: `node ${q(change.node)} has moved from ${moved.from ?? 'pending'} to ${moved.to ?? 'pending'} since this edit was made, and the edit removes it`,
          fix: 'edit the latest revision',
        };
      }
      return undefined;
    }
    case 'node-added': {
      const ours = since.addedNodes.get(change.node);
      if (!ours && !currentNodes.has(change.node)) return undefined;
      if (ours && JSON.stringify(ours.attributes) === JSON.stringify(change.attributes)) return 'same';
      return { node: change.node, message: `node ${q(change.node)} was added on both sides, differently`, fix: 'give the new node another id' };
    }
    case 'edge-added': {
      for (const end of [change.edge.from, change.edge.to]) if (since.removedNodes.has(end)) return { ...removed(end), edge: edgeName(change.edge) };
      return since.addedEdges.has(edgeKey(change.edge)) ? 'same' : undefined;
    }
    case 'edge-removed':
      return since.removedEdges.has(edgeKey(change.edge)) ? 'same' : undefined;
    case 'edge-attribute': {
      const key = `${edgeKey(change.edge)}\u0000${change.attribute}`;
      if (since.removedEdges.has(edgeKey(change.edge))) {
        return {
          edge: edgeName(change.edge),
          message: `edge ${edgeName(change.edge)} was removed since this edit was made`,
          fix: 'edit the latest revision',
        };
      }
      if (!since.edgeAttributes.has(key)) return undefined;
      if (since.edgeAttributes.get(key) === change.to) return 'same';
      return {
        edge: edgeName(change.edge),
        attribute: change.attribute,
        message: `edge ${edgeName(change.edge)}: ${change.attribute} was changed on both sides`,
        fix: 'edit the latest revision',
      };
    }
    case 'graph-attribute': {
      if (!since.graphAttributes.has(change.attribute)) return undefined;
      if (since.graphAttributes.get(change.attribute) === change.to) return 'same';
      return { attribute: change.attribute, message: `graph attribute ${change.attribute} was changed on both sides`, fix: 'edit the latest revision' };
    }
    case 'cluster-attribute': {
      if (since.removedClusters.has(change.cluster)) return { message: `cluster ${q(change.cluster)} was removed since`, fix: 'edit the latest revision' };
      const key = `${change.cluster}\u0000${change.attribute}`;
      if (!since.clusterAttributes.has(key)) return undefined;
      return since.clusterAttributes.get(key) === change.to
        ? 'same'
        : {
            attribute: change.attribute,
            message: `cluster ${q(change.cluster)}: ${change.attribute} was changed on both sides`,
            fix: 'edit the latest revision',
          };
    }
    case 'cluster-added':
    case 'cluster-removed':
      return undefined;
  }
}

/** The node's move since the base when it has started since (a node that only became ready may still be edited). */
function started(since: Since, node: string): { from?: string; to?: string } | undefined {
  const moved = since.moved.get(node);
  return moved && moved.to !== 'pending' && moved.to !== 'ready' ? moved : undefined;
}

const q = (s: string) => JSON.stringify(s);
const show = (v: string | undefined) => (v === undefined ? 'unset' : q(v));

/**
 * The merged plan laid out as the edit has it: its nodes, edges and clusters in the edit's order,
 * what only the plan's side has (added since) after them. Only the order changes.
 */
export function inEditOrder(merged: PlanGraph, edited: PlanGraph): PlanGraph {
  const rank = <T>(items: readonly T[], key: (item: T) => string) => {
    const order = new Map<string, number>();
    items.forEach((item, i) => order.has(key(item)) || order.set(key(item), i));
    return (a: T, b: T) => (order.get(key(a)) ?? Infinity) - (order.get(key(b)) ?? Infinity);
  };
  const pair = (e: { from: string; to: string }) => `${e.from}\u0000${e.to}`;
  return {
    ...merged,
    nodes: [...merged.nodes].sort(rank(edited.nodes, (n) => n.id)),
    edges: [...merged.edges].sort(rank(edited.edges, pair)),
    clusters: [...merged.clusters].sort(rank(edited.clusters, (c) => c.id)),
  };
}
