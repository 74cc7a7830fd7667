import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlanGraph } from '../../src/model/types.js';
import { applyChanges, diffPlans } from '../../src/revisions/diff.js';
import { formatDiff } from '../../src/revisions/format-diff.js';

/** Order-free form of a graph: what two graphs must share to be the same plan. */
function normal(g: PlanGraph) {
  return {
    strict: g.strict,
    attributes: g.attributes,
    nodes: [...g.nodes].map((n) => ({ id: n.id, attributes: n.attributes, cluster: n.cluster })).sort((a, b) => a.id.localeCompare(b.id)),
    edges: g.edges.map((e) => `${e.from}->${e.to} ${JSON.stringify(Object.entries(e.attributes).sort())}`).sort(),
    clusters: [...g.clusters].map((c) => ({ id: c.id, attributes: c.attributes, parent: c.parent })).sort((a, b) => a.id.localeCompare(b.id)),
  };
}

const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const attrs = fc.dictionary(fc.constantFrom('label', 'toolInput', 'status', 'when', 'retries'), fc.string({ maxLength: 4 }), { maxKeys: 3 });
const graphArb: fc.Arbitrary<PlanGraph> = fc
  .record({
    attributes: attrs,
    nodes: fc.uniqueArray(fc.record({ id: ids, attributes: attrs, cluster: fc.option(fc.constantFrom('cluster_x', 'cluster_y'), { nil: undefined }) }), {
      selector: (n) => n.id,
    }),
    edges: fc.array(fc.record({ from: ids, to: ids, attributes: attrs }), { maxLength: 8 }),
    clusters: fc.uniqueArray(fc.record({ id: fc.constantFrom('cluster_x', 'cluster_y'), attributes: attrs }), { selector: (c) => c.id }),
  })
  .map((g) => ({
    strict: false,
    attributes: g.attributes,
    nodes: g.nodes.map((n) => (n.cluster === undefined ? { id: n.id, attributes: n.attributes } : n)),
    edges: g.edges,
    clusters: g.clusters,
  }));

describe('plan diff', () => {
  it('applying diff(a, b) to a gives b, for random plans', () => {
    fc.assert(
      fc.property(graphArb, graphArb, (a, b) => {
        expect(normal(applyChanges(a, diffPlans(a, b)))).toEqual(normal(b));
        expect(diffPlans(a, a)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('names each change: attributes added, changed and removed; nodes and edges added and removed', () => {
    const a: PlanGraph = {
      strict: false,
      attributes: { goal: 'g' },
      nodes: [
        { id: 'x', attributes: { label: 'X', toolInput: '1' } },
        { id: 'y', attributes: {} },
      ],
      edges: [{ from: 'x', to: 'y', attributes: {} }],
      clusters: [],
    };
    const b: PlanGraph = {
      strict: false,
      attributes: { goal: 'h' },
      nodes: [
        { id: 'x', attributes: { label: 'X2', retries: '1' } },
        { id: 'z', attributes: { label: 'Z' } },
      ],
      edges: [{ from: 'x', to: 'z', attributes: { when: 'yes' } }],
      clusters: [],
    };
    expect(diffPlans(a, b)).toEqual([
      { kind: 'graph-attribute', attribute: 'goal', from: 'g', to: 'h' },
      { kind: 'node-attribute', node: 'x', attribute: 'label', from: 'X', to: 'X2' },
      { kind: 'node-attribute', node: 'x', attribute: 'retries', to: '1' },
      { kind: 'node-attribute', node: 'x', attribute: 'toolInput', from: '1' },
      { kind: 'node-added', node: 'z', attributes: { label: 'Z' } },
      { kind: 'edge-added', edge: { from: 'x', to: 'z', nth: 1 }, attributes: { when: 'yes' } },
      { kind: 'edge-removed', edge: { from: 'x', to: 'y', nth: 1 } },
      { kind: 'node-removed', node: 'y' },
    ]);
  });
});

describe('a diff for the terminal', () => {
  it('prints one marked line per change, coloured on request, long values cut in the middle', () => {
    const changes = diffPlans(
      {
        strict: false,
        attributes: {},
        nodes: [
          { id: 'a', attributes: { toolInput: 'x'.repeat(100) } },
          { id: 'gone', attributes: {} },
        ],
        edges: [],
        clusters: [],
      },
      {
        strict: false,
        attributes: {},
        nodes: [
          { id: 'a', attributes: { toolInput: 'y' } },
          { id: 'b', attributes: { label: 'B' } },
        ],
        edges: [{ from: 'a', to: 'b', attributes: {} }],
        clusters: [],
      },
    );
    expect(formatDiff(changes, { width: 11 }).split('\n')).toEqual([
      '~ node a toolInput: "xxxxx…xxxxx" → "y"',
      '+ node b [label="B"]',
      '+ edge a -> b',
      '- node gone',
    ]);
    expect(formatDiff(changes, { color: true }).split('\n')[1]).toBe('\u001b[32m+ node b [label="B"]\u001b[0m');
    expect(formatDiff([])).toBe('no change');
  });
});
