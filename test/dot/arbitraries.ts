import fc from 'fast-check';
import type { Attributes, GraphCluster, GraphEdge, GraphNode, PlanGraph } from '../../src/model/types.js';

/** Pieces that have broken DOT writers before: quotes, backslashes, line breaks, braces, keywords. */
const NASTY = [
  '"',
  '\\',
  '\\"',
  '"\\',
  '\\\\',
  '\\n',
  '\n',
  '\r\n',
  '\r',
  '\u2028',
  '\u2029',
  '}',
  '{',
  ';',
  ',',
  '=',
  '[',
  ']',
  '->',
  '--',
  '//',
  '/*',
  '*/',
  '#',
  '<',
  '>',
  '<b>',
  ' ',
  '\t',
  '\u0000',
  '节点',
  '待初始化',
  '😀',
  '👩‍👩‍👧',
  'é',
  'node',
  'edge',
  'graph',
  'digraph',
  'subgraph',
  'strict',
  'cluster',
  '1',
  '-1.5',
  'a b',
  '{{nodes.a.output}}',
];

/** Any string: full unicode, or built from the nasty pieces, or a keyword on its own. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom(...NASTY), maxLength: 8 }),
  fc.constantFrom('', 'node', 'edge', 'graph', 'strict', 'subgraph', '0', '007', '\\', 'ends with \\'),
);

const attributeKey: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/),
  fc.constantFrom('label', 'type', 'status', 'toolInput', 'node', 'edge', 'graph', 'strict', 'constructor'),
);

export const attributes: fc.Arbitrary<Attributes> = fc
  .uniqueArray(fc.tuple(attributeKey, anyText), { selector: ([key]) => key, maxLength: 5 })
  .map((entries) => {
    const out: Attributes = {};
    for (const [key, value] of entries) out[key] = value;
    return out;
  });

/** A PlanGraph as readDot would produce it, minus locations: edges join listed nodes, strict graphs have no repeated edges. */
export const planGraph: fc.Arbitrary<PlanGraph> = fc
  .record({
    name: fc.option(anyText, { nil: undefined }),
    strict: fc.boolean(),
    attributes,
    clusters: fc.uniqueArray(fc.record({ suffix: anyText, attributes, parent: fc.nat(), nested: fc.boolean() }), { selector: (c) => c.suffix, maxLength: 4 }),
    nodes: fc.uniqueArray(fc.record({ id: anyText, attributes, cluster: fc.nat(), inCluster: fc.boolean() }), {
      selector: (n) => n.id,
      maxLength: 8,
    }),
    edges: fc.array(fc.record({ from: fc.nat(), to: fc.nat(), attributes }), { maxLength: 10 }),
  })
  .map((raw) => {
    const clusters: GraphCluster[] = raw.clusters.map((c, i) => {
      const cluster: GraphCluster = { id: `cluster${c.suffix}`, attributes: c.attributes };
      if (c.nested && i > 0) cluster.parent = `cluster${raw.clusters[c.parent % i]!.suffix}`;
      return cluster;
    });
    const nodes: GraphNode[] = raw.nodes.map((n) => {
      const node: GraphNode = { id: n.id, attributes: n.attributes };
      if (n.inCluster && clusters.length > 0) node.cluster = clusters[n.cluster % clusters.length]!.id;
      return node;
    });
    const edges: GraphEdge[] = [];
    const seen = new Set<string>();
    if (nodes.length > 0) {
      for (const e of raw.edges) {
        const from = nodes[e.from % nodes.length]!.id;
        const to = nodes[e.to % nodes.length]!.id;
        const key = JSON.stringify([from, to]);
        if (raw.strict && seen.has(key)) continue;
        seen.add(key);
        edges.push({ from, to, attributes: e.attributes });
      }
    }
    const graph: PlanGraph = { strict: raw.strict, attributes: raw.attributes, nodes, edges, clusters };
    if (raw.name !== undefined) graph.name = raw.name;
    return graph;
  });

/** The graph without source locations, for comparing what was read with what was written. */
export function withoutLocations(graph: PlanGraph): PlanGraph {
  const drop = <T extends { location?: unknown }>(item: T): T => {
    const { location: _location, ...rest } = item;
    return rest as T;
  };
  return { ...graph, nodes: graph.nodes.map(drop), edges: graph.edges.map(drop), clusters: graph.clusters.map(drop) };
}
