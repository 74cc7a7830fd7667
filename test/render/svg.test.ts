import { describe, expect, it } from 'vitest';
import { STATUS_COLOURS, renderSvg, toVizGraph } from '../../src/render/index.js';
import { NODE_STATUSES, type PlanGraph } from '../../src/model/types.js';

/** One node per status, in a chain, the first two in a labelled cluster. */
function everyStatus(): PlanGraph {
  return {
    name: 'G',
    strict: false,
    attributes: { label: 'Every status' },
    clusters: [{ id: 'cluster_first', attributes: { label: 'First steps' } }],
    nodes: NODE_STATUSES.map((status, i) => ({
      id: `n${i}`,
      attributes: { label: `Step ${status}`, type: 'function', status, shape: 'record' },
      ...(i < 2 ? { cluster: 'cluster_first' } : {}),
    })),
    edges: NODE_STATUSES.slice(1).map((_, i) => ({ from: `n${i}`, to: `n${i + 1}`, attributes: {} })),
  };
}

describe('renderSvg', () => {
  it('draws every node with its label and fills it with its status colour', async () => {
    const svg = await renderSvg(everyStatus(), { legend: false });
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('<svg');
    for (const status of NODE_STATUSES) {
      expect(svg).toContain(`>Step ${status}</text>`);
      expect(svg).toContain(`fill="${STATUS_COLOURS[status].fill}"`);
      expect(svg).toContain(`class="node status&#45;${status} type&#45;function"`);
    }
    expect(svg).toContain('>Every status</text>');
    expect(svg).toContain('>First steps</text>');
  });

  it('gives every status its own fill colour', () => {
    const fills = new Set(NODE_STATUSES.map((s) => STATUS_COLOURS[s].fill.toLowerCase()));
    expect(fills.size).toBe(NODE_STATUSES.length);
  });

  it("falls back to the id when a node has no label, and reads the seed's Chinese statuses", async () => {
    const svg = await renderSvg(
      {
        strict: false,
        attributes: {},
        clusters: [],
        nodes: [
          { id: '节点1', attributes: { type: 'function', status: '已完成' } },
          { id: 'ask', attributes: { type: 'confirm', status: '待用户输入中', label: '' } },
        ],
        edges: [{ from: '节点1', to: 'ask', attributes: {} }],
      },
      { legend: false },
    );
    expect(svg).toContain('>节点1</text>');
    expect(svg).toContain('>ask</text>');
    expect(svg).toContain(`fill="${STATUS_COLOURS.done.fill}"`);
    expect(svg).toContain(`<ellipse fill="${STATUS_COLOURS.awaiting_input.fill}"`);
  });

  it('shows labels as written: record punctuation, backslashes, quotes and markup are not interpreted', async () => {
    const label = 'a|b {c} <d> \\N "e" & f';
    const svg = await renderSvg(
      {
        strict: false,
        attributes: {},
        clusters: [],
        nodes: [
          { id: 'r', attributes: { type: 'function', status: 'ready', shape: 'record', label } },
          { id: 'p', attributes: { type: 'function', status: 'ready', label } },
        ],
        edges: [],
      },
      { legend: false },
    );
    const shown = 'a|b {c} &lt;d&gt; \\N &quot;e&quot; &amp; f';
    expect(svg.split(`>${shown}</text>`).length - 1).toBe(2);
  });

  it('labels conditional edges with their condition and dashes edges into skipped nodes', async () => {
    const graph: PlanGraph = {
      strict: false,
      attributes: {},
      clusters: [],
      nodes: [
        { id: 'ask', attributes: { type: 'confirm', status: 'done', question: 'ok?' } },
        { id: 'yes', attributes: { type: 'function', status: 'ready' } },
        { id: 'no', attributes: { type: 'function', status: 'skipped' } },
      ],
      edges: [
        { from: 'ask', to: 'yes', attributes: { when: 'yes|y' } },
        { from: 'ask', to: 'no', attributes: { when: '!yes|y' } },
      ],
    };
    const svg = await renderSvg(graph, { legend: false });
    expect(svg).toContain('>when yes|y</text>');
    expect(svg).toContain('>when !yes|y</text>');
    expect(svg).toMatch(/<title>ask&#45;&gt;no<\/title>\s*<path fill="none" stroke="#a8a29e" stroke-dasharray/);
    expect(svg).not.toMatch(/<title>ask&#45;&gt;yes<\/title>\s*<path fill="none" stroke="#a8a29e"/);
  });

  it('adds a legend of the statuses that occur, and only those', async () => {
    const graph = everyStatus();
    graph.nodes = graph.nodes.slice(0, 2);
    graph.edges = graph.edges.slice(0, 1);
    const svg = await renderSvg(graph);
    expect(svg).toContain('>pending</text>');
    expect(svg).toContain('>ready</text>');
    expect(svg).not.toContain('>failed</text>');
    const withoutLegend = await renderSvg(graph, { legend: false });
    expect(withoutLegend).not.toContain('>pending</text>');
  });

  it('nests clusters and keeps plan-only attributes out of the drawing', () => {
    const viz = toVizGraph(
      {
        strict: true,
        attributes: { rankdir: 'LR', params: 'topic', goal: 'g' },
        clusters: [
          { id: 'cluster_outer', attributes: { label: 'Outer' } },
          { id: 'cluster_inner', attributes: { label: 'Inner' }, parent: 'cluster_outer' },
        ],
        nodes: [{ id: 'x', attributes: { type: 'function', status: 'pending', toolCode: 'echo', toolInput: 'secret' }, cluster: 'cluster_inner' }],
        edges: [],
      },
      { legend: false },
    );
    expect(viz.strict).toBe(true);
    expect(viz.graphAttributes).toMatchObject({ rankdir: 'LR' });
    expect(viz.graphAttributes).not.toHaveProperty('params');
    const outer = viz.subgraphs?.[0];
    expect(outer?.name).toBe('cluster_outer');
    expect(outer?.subgraphs?.[0]?.name).toBe('cluster_inner');
    expect(outer?.subgraphs?.[0]?.nodes?.[0]?.name).toBe('x');
    expect(JSON.stringify(viz)).not.toContain('secret');
  });
});

describe('label escapes', () => {
  it('break lines at \\n, \\l and \\r as Graphviz does, and show other backslashes as written', async () => {
    const graph: PlanGraph = {
      strict: false,
      attributes: {},
      clusters: [],
      nodes: [
        { id: 'a', attributes: { label: 'first\\nsecond\\lthird\\r', type: 'function', status: 'pending', shape: 'box' } },
        { id: 'b', attributes: { label: 'C:\\Names\\N', type: 'function', status: 'pending', shape: 'box' } },
      ],
      edges: [],
    };
    const svg = await renderSvg(graph, { legend: false });
    for (const line of ['first', 'second', 'third']) expect(svg).toContain(`>${line}</text>`);
    expect(svg).toContain('text-anchor="start"'); // \l: left-justified
    expect(svg).toContain('>C:\\Names\\N</text>');
  });
});
