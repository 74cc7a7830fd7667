import { instance } from '@viz-js/viz';
import { describe, expect, it } from 'vitest';
import { readDot, writeDot } from '../../src/dot/index.js';
import type { PlanGraph } from '../../src/model/types.js';
import { withoutLocations } from './arbitraries.js';

const plan: PlanGraph = {
  name: 'G',
  strict: false,
  attributes: { mode: 'workflow', goal: 'say "hi"' },
  clusters: [
    { id: 'cluster_fetch', attributes: { label: 'Fetch' } },
    { id: 'cluster_inner', attributes: { label: 'Inner' }, parent: 'cluster_fetch' },
  ],
  nodes: [
    { id: 'start', attributes: { type: 'function', status: 'pending', toolCode: 'echo' } },
    { id: 'a', attributes: { type: 'function', status: 'ready' }, cluster: 'cluster_fetch' },
    { id: 'b', attributes: { label: 'multi\nline' }, cluster: 'cluster_inner' },
    { id: 'node', attributes: { label: 'C:\\' } },
    { id: '7', attributes: {} },
  ],
  edges: [
    { from: 'start', to: 'a', attributes: { when: 'yes' } },
    { from: 'a', to: 'b', attributes: {} },
  ],
};

describe('writeDot', () => {
  it('writes the pretty form: graph attributes, nested clusters with labels, full node attributes, edges', () => {
    expect(writeDot(plan)).toBe(
      [
        'digraph G {',
        '  mode="workflow";',
        '  goal="say \\"hi\\"";',
        '  start [type="function", status="pending", toolCode="echo"];',
        '  subgraph cluster_fetch {',
        '    label="Fetch";',
        '    a [type="function", status="ready"];',
        '    subgraph cluster_inner {',
        '      label="Inner";',
        '      b [label="multi',
        'line"];',
        '    }',
        '  }',
        '  "node" [label="C:\\\\"];',
        '  7;',
        '  start -> a [when="yes"];',
        '  a -> b;',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('flattens defaults: every node carries its full attribute list', () => {
    const read = readDot('digraph { node [type=function, status=pending] edge [color=grey] a -> b }');
    const text = writeDot(read);
    expect(text).not.toMatch(/node \[|edge \[/);
    expect(text).toContain('a [type="function", status="pending"];');
    expect(text).toContain('a -> b [color="grey"];');
  });

  it('reopens a cluster when node order requires it, so order and membership survive', () => {
    const graph: PlanGraph = {
      strict: true,
      attributes: {},
      clusters: [
        { id: 'cluster_x', attributes: { label: 'X' } },
        { id: 'cluster_empty', attributes: {} },
      ],
      nodes: [
        { id: 'x1', attributes: {}, cluster: 'cluster_x' },
        { id: 'top', attributes: {} },
        { id: 'x2', attributes: {}, cluster: 'cluster_x' },
      ],
      edges: [],
    };
    const text = writeDot(graph);
    expect(text.match(/subgraph cluster_x \{/g)).toHaveLength(2);
    expect(text.match(/label="X"/g)).toHaveLength(1);
    expect(withoutLocations(readDot(text))).toEqual(graph);
  });

  it('writes DOT that Graphviz itself draws, values with quotes, backslashes and line breaks included', async () => {
    const viz = await instance();
    const result = viz.render(writeDot(plan), { format: 'svg' });
    expect(result.errors.filter((e) => e.level === 'error')).toEqual([]);
    expect(result.status).toBe('success');
    expect(result.output).toContain('<title>start&#45;&gt;a</title>');
  });
});
