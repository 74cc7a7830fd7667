import { isImplicit } from '../model/serial-groups.js';
import type { Attributes, GraphCluster, GraphEdge, GraphNode, PlanGraph } from '../model/types.js';

/**
 * The difference between two plan graphs, as a list of changes a person can read and a machine can
 * apply: nodes, edges and clusters added or removed, and attributes (of nodes, edges, clusters and
 * the graph) added, removed or changed. `applyChanges(a, diffPlans(a, b))` gives `b` (up to the order
 * of nodes, edges and clusters). An edge is named `from -> to`; a second edge between the same two
 * nodes is `from -> to #2`.
 */
export type PlanChange =
  | { kind: 'node-added'; node: string; attributes: Attributes; cluster?: string }
  | { kind: 'node-removed'; node: string }
  | { kind: 'node-attribute'; node: string; attribute: string; from?: string; to?: string }
  | { kind: 'node-cluster'; node: string; from?: string; to?: string }
  | { kind: 'edge-added'; edge: EdgeKey; attributes: Attributes }
  | { kind: 'edge-removed'; edge: EdgeKey }
  | { kind: 'edge-attribute'; edge: EdgeKey; attribute: string; from?: string; to?: string }
  | { kind: 'cluster-added'; cluster: string; attributes: Attributes; parent?: string }
  | { kind: 'cluster-removed'; cluster: string }
  | { kind: 'cluster-attribute'; cluster: string; attribute: string; from?: string; to?: string }
  | { kind: 'graph-attribute'; attribute: string; from?: string; to?: string };

/** An edge as the diff names it: its ends, and which of the edges between them (1 for the first). */
export interface EdgeKey {
  from: string;
  to: string;
  nth: number;
}

export function edgeName(edge: EdgeKey): string {
  return `${edge.from} -> ${edge.to}${edge.nth > 1 ? ` #${edge.nth}` : ''}`;
}

export function diffPlans(a: PlanGraph, b: PlanGraph): PlanChange[] {
  const out: PlanChange[] = [];
  out.push(...attributeChanges(a.attributes, b.attributes).map((c) => ({ kind: 'graph-attribute' as const, ...c })));

  const clustersA = byId(a.clusters);
  const clustersB = byId(b.clusters);
  for (const [id, cluster] of clustersB) {
    const before = clustersA.get(id);
    if (!before)
      out.push({
        kind: 'cluster-added',
        cluster: id,
        attributes: { ...cluster.attributes },
        ...(cluster.parent !== undefined ? { parent: cluster.parent } : {}),
      });
    else out.push(...attributeChanges(before.attributes, cluster.attributes).map((c) => ({ kind: 'cluster-attribute' as const, cluster: id, ...c })));
  }

  const nodesA = byId(a.nodes);
  const nodesB = byId(b.nodes);
  for (const [id, node] of nodesB) {
    const before = nodesA.get(id);
    if (!before) {
      out.push({ kind: 'node-added', node: id, attributes: { ...node.attributes }, ...(node.cluster !== undefined ? { cluster: node.cluster } : {}) });
      continue;
    }
    out.push(...attributeChanges(before.attributes, node.attributes).map((c) => ({ kind: 'node-attribute' as const, node: id, ...c })));
    if (before.cluster !== node.cluster) out.push({ kind: 'node-cluster', node: id, ...optional('from', before.cluster), ...optional('to', node.cluster) });
  }

  const edgesA = keyedEdges(a.edges);
  const edgesB = keyedEdges(b.edges);
  for (const [key, { edge, attributes }] of edgesB) {
    const before = edgesA.get(key);
    if (!before) out.push({ kind: 'edge-added', edge, attributes: { ...attributes } });
    else out.push(...attributeChanges(before.attributes, attributes).map((c) => ({ kind: 'edge-attribute' as const, edge, ...c })));
  }
  for (const [key, { edge }] of edgesA) if (!edgesB.has(key)) out.push({ kind: 'edge-removed', edge });

  for (const id of nodesA.keys()) if (!nodesB.has(id)) out.push({ kind: 'node-removed', node: id });
  for (const id of clustersA.keys()) if (!clustersB.has(id)) out.push({ kind: 'cluster-removed', cluster: id });
  return out;
}

/** `graph` with the changes made, in a new graph (the input is not changed). Throws on a change that does not fit the graph. */
export function applyChanges(graph: PlanGraph, changes: readonly PlanChange[]): PlanGraph {
  const attributes = { ...graph.attributes };
  const clusters = new Map(graph.clusters.map((c) => [c.id, { ...c, attributes: { ...c.attributes } }]));
  const nodes = new Map(graph.nodes.map((n) => [n.id, { ...n, attributes: { ...n.attributes } }]));
  const edges = keyedEdges(graph.edges);
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the change refers to ${what}, which the plan does not have`);
    return value;
  };
  for (const change of changes) {
    switch (change.kind) {
      case 'graph-attribute':
        setAttribute(attributes, change.attribute, change.to);
        break;
      case 'cluster-added':
        clusters.set(change.cluster, { id: change.cluster, attributes: { ...change.attributes }, ...optional('parent', change.parent) });
        break;
      case 'cluster-removed':
        clusters.delete(change.cluster);
        break;
      case 'cluster-attribute':
        setAttribute(need(clusters.get(change.cluster), `cluster ${change.cluster}`).attributes, change.attribute, change.to);
        break;
      case 'node-added':
        nodes.set(change.node, { id: change.node, attributes: { ...change.attributes }, ...optional('cluster', change.cluster) });
        break;
      case 'node-removed':
        nodes.delete(change.node);
        break;
      case 'node-attribute':
        setAttribute(need(nodes.get(change.node), `node ${change.node}`).attributes, change.attribute, change.to);
        break;
      case 'node-cluster': {
        const node = need(nodes.get(change.node), `node ${change.node}`);
        if (change.to === undefined) delete node.cluster;
        else node.cluster = change.to;
        break;
      }
      case 'edge-added':
        edges.set(edgeKey(change.edge), { edge: change.edge, attributes: { ...change.attributes } });
        break;
      case 'edge-removed':
        edges.delete(edgeKey(change.edge));
        break;
      case 'edge-attribute':
        setAttribute(need(edges.get(edgeKey(change.edge)), `edge ${edgeName(change.edge)}`).attributes, change.attribute, change.to);
        break;
    }
  }
  return {
    ...(graph.name !== undefined ? { name: graph.name } : {}),
    strict: graph.strict,
    attributes,
    nodes: [...nodes.values()],
    edges: [...edges.values()].map(({ edge, attributes: a }) => ({ from: edge.from, to: edge.to, attributes: a })),
    clusters: [...clusters.values()],
  };
}

/** The edges keyed `from\0to\0nth`, in order. */
export function keyedEdges(edges: readonly GraphEdge[]): Map<string, { edge: EdgeKey; attributes: Attributes }> {
  const seen = new Map<string, number>();
  const out = new Map<string, { edge: EdgeKey; attributes: Attributes }>();
  for (const e of edges) {
    if (isImplicit(e)) continue; // a serial group's edge follows from the group: not a change of its own
    const pair = `${e.from}\u0000${e.to}`;
    const nth = (seen.get(pair) ?? 0) + 1;
    seen.set(pair, nth);
    const edge = { from: e.from, to: e.to, nth };
    out.set(edgeKey(edge), { edge, attributes: { ...e.attributes } });
  }
  return out;
}

export function edgeKey(edge: EdgeKey): string {
  return `${edge.from}\u0000${edge.to}\u0000${edge.nth}`;
}

function attributeChanges(a: Attributes, b: Attributes): Array<{ attribute: string; from?: string; to?: string }> {
  const out: Array<{ attribute: string; from?: string; to?: string }> = [];
  for (const [key, value] of Object.entries(b)) if (a[key] !== value) out.push({ attribute: key, ...optional('from', a[key]), to: value });
  for (const [key, value] of Object.entries(a)) if (!(key in b)) out.push({ attribute: key, from: value });
  return out;
}

function setAttribute(attributes: Attributes, key: string, value: string | undefined): void {
  if (value === undefined) delete attributes[key];
  else attributes[key] = value;
}

function byId<T extends GraphNode | GraphCluster>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
