import { instance, type Viz } from '@viz-js/viz';
import { DotplanError } from '../errors/errors.js';
import type { PlanGraph } from '../model/types.js';
import { LAYOUT_FONT, SVG_FONT_FAMILY, toVizGraph, type RenderOptions } from './viz-graph.js';

let viz: Promise<Viz> | undefined;

/** The WebAssembly Graphviz instance, created once per process. */
function getViz(): Promise<Viz> {
  viz ??= instance();
  return viz;
}

/** Draws the plan as SVG with WebAssembly Graphviz (nothing to install), nodes coloured by status. */
export async function renderSvg(graph: PlanGraph, options: RenderOptions = {}): Promise<string> {
  const result = (await getViz()).render(toVizGraph(graph, options), { format: 'svg', engine: 'dot' });
  if (result.status !== 'success') {
    const reasons = result.errors.map((e) => e.message.trim()).join('; ');
    throw new DotplanError('INTERNAL', `Graphviz could not draw the plan: ${reasons || 'no reason given'}`);
  }
  // Text is drawn in the font the layout was measured with, where the viewer has it (see LAYOUT_FONT).
  return result.output.replaceAll(`font-family="${LAYOUT_FONT}"`, `font-family="${SVG_FONT_FAMILY}"`);
}
