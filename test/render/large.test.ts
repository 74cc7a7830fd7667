/**
 * Issue 14, case 12 (the drawing): a plan too large to draw legibly is drawn as counts by status,
 * and a Graphviz failure becomes a note, never an exception (before: `Maximum call stack size
 * exceeded` from WebAssembly Graphviz, shown as `[INTERNAL]`).
 */
import { describe, expect, it } from 'vitest';
import { drawPlan, drawingNote, MAX_DRAWN_NODES, renderSvg } from '../../src/render/index.js';
import type { PlanGraph } from '../../src/model/types.js';

function fan(nodes: number): PlanGraph {
  return {
    strict: false,
    attributes: { label: 'Fan' },
    clusters: [],
    nodes: Array.from({ length: nodes }, (_, i) => ({ id: `n${i}`, attributes: { type: 'function', status: i % 2 === 0 ? 'done' : 'failed' } })),
    edges: Array.from({ length: nodes - 1 }, (_, i) => ({ from: 'n0', to: `n${i + 1}`, attributes: {} })),
  };
}

describe('drawing large plans', () => {
  it(`draws a plan of more than ${MAX_DRAWN_NODES} nodes as counts by status, saying so`, async () => {
    const drawing = await drawPlan(fan(20_000));
    expect(drawing.note).toBe(
      'the plan has 20,000 nodes and 19,999 edges, too many to draw legibly (more than 2,000 nodes): drawn as counts by status instead',
    );
    expect(drawing.svg).toMatch(/>done<\/text>\s*<text[^>]*>10,000<\/text>/);
    expect(drawing.svg).toMatch(/>failed<\/text>\s*<text[^>]*>10,000<\/text>/);
    expect(drawing.svg).not.toContain('>n19999<');
    expect(drawingNote(drawing.svg)).toBe(drawing.note);
  });

  it('draws a plan at the limit node by node, with no note', async () => {
    const drawing = await drawPlan(fan(50));
    expect(drawing.note).toBeUndefined();
    expect(drawingNote(drawing.svg)).toBeUndefined();
    expect(drawing.svg).toContain('>n49</text>');
  });

  it('turns a Graphviz failure into a note, and draws the next plan normally', async () => {
    // 500 nested clusters make WebAssembly Graphviz abort (measured: it fails from a few hundred levels).
    const depth = 500;
    const graph: PlanGraph = {
      strict: false,
      attributes: {},
      clusters: Array.from({ length: depth }, (_, i) => ({ id: `cluster_${i}`, attributes: {}, ...(i > 0 ? { parent: `cluster_${i - 1}` } : {}) })),
      nodes: [{ id: 'leaf', attributes: { type: 'function', status: 'done' }, cluster: `cluster_${depth - 1}` }],
      edges: [],
    };
    const drawing = await drawPlan(graph);
    expect(drawing.note).toMatch(/^Graphviz could not draw the plan \(.+\): drawn as counts by status instead$/);
    expect(drawing.svg).toContain('<svg');
    expect(await renderSvg(fan(3))).toContain('>n2</text>');
  });
});
