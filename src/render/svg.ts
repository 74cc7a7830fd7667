import type { Graph as VizGraph, Viz } from '@viz-js/viz';
import type { PlanGraph } from '../model/types.js';
import { noteSvg, withNote } from './note.js';
import { tooLargeToDraw } from './size.js';
import { summaryVizGraph } from './summary.js';
import { LAYOUT_FONT, SVG_FONT_FAMILY, toVizGraph, type RenderOptions } from './viz-graph.js';

let viz: Promise<Viz> | undefined;

/** The WebAssembly Graphviz instance, created once per process (again after it failed: its memory may be spoiled). */
function getViz(): Promise<Viz> {
  // Loaded on first drawing: Graphviz's WebAssembly costs every other command start-up time.
  viz ??= import('@viz-js/viz').then(({ instance }) => instance());
  return viz;
}

/** A drawing, and when it is not the plan node by node, why (a summary, or no picture at all). */
export interface Drawing {
  svg: string;
  /** What was drawn instead of the plan node by node, and why; absent when the plan was drawn whole. */
  note?: string;
}

/**
 * Draws the plan as SVG with WebAssembly Graphviz (nothing to install), nodes coloured by status.
 * A plan too large to draw legibly (`MAX_DRAWN_NODES`, `MAX_DRAWN_EDGES`) is drawn as its nodes
 * counted by status; when Graphviz fails, the summary is tried, and then an SVG that only says why.
 * Never throws for the plan's size or shape: the note says what was done.
 */
export async function drawPlan(graph: PlanGraph, options: RenderOptions = {}): Promise<Drawing> {
  const tooLarge = tooLargeToDraw(graph);
  let failure: string | undefined;
  if (tooLarge === undefined) {
    const whole = await draw(toVizGraph(graph, options));
    if (typeof whole === 'string') return { svg: whole };
    failure = `Graphviz could not draw the plan (${whole.error})`;
  }
  const note = tooLarge ?? `${failure}: drawn as counts by status instead`;
  const summary = await draw(summaryVizGraph(graph, note));
  if (typeof summary === 'string') return { svg: withNote(summary, note), note };
  const none = `${failure ?? tooLarge!.replace(/: drawn as .*$/, '')}; the summary could not be drawn either (${summary.error}): no picture`;
  return { svg: noteSvg(none), note: none };
}

/** The drawing's SVG alone (see `drawPlan`; the SVG carries the note as text and as a leading comment). */
export async function renderSvg(graph: PlanGraph, options: RenderOptions = {}): Promise<string> {
  return (await drawPlan(graph, options)).svg;
}

/** Graphviz's SVG of a graph, or why it failed (an error status, or an exception such as a stack overflow). */
async function draw(graph: VizGraph): Promise<string | { error: string }> {
  try {
    const result = (await getViz()).render(graph, { format: 'svg', engine: 'dot' });
    if (result.status !== 'success') return { error: result.errors.map((e) => e.message.trim()).join('; ') || 'no reason given' };
    // Text is drawn in the font the layout was measured with, where the viewer has it (see LAYOUT_FONT).
    return result.output.replaceAll(`font-family="${LAYOUT_FONT}"`, `font-family="${SVG_FONT_FAMILY}"`);
  } catch (error) {
    viz = undefined;
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}
