/**
 * The server's drawing (`GET /v1/plans/{id}/graph.svg`, src/render) recoloured in place: every plan
 * node is a `g.node` whose `<title>` is its id and whose class holds `status-<status>`; a status move
 * swaps that class and repaints the shapes with the renderer's own palette (src/render/colours.ts),
 * so the page never reloads the drawing for a status change.
 */
import { STATUS_COLOURS, UNKNOWN_STATUS_COLOUR, type StatusColour } from '../../../src/render/colours.js';
import type { NodeStatus } from '../types.js';

const XLINK = 'http://www.w3.org/1999/xlink';

/** The drawing's plan nodes by id (the legend, also a `g.node`, is left out). */
export function nodeElements(root: ParentNode): Map<string, SVGGElement> {
  const found = new Map<string, SVGGElement>();
  for (const g of Array.from(root.querySelectorAll<SVGGElement>('g.node'))) {
    if (g.classList.contains('legend')) continue;
    const title = g.querySelector(':scope > title')?.textContent;
    if (title) found.set(title, g);
  }
  return found;
}

/** The status a drawn node shows now (from its class). */
export function drawnStatus(g: Element): string | undefined {
  return Array.from(g.classList)
    .find((c) => c.startsWith('status-'))
    ?.slice('status-'.length);
}

/** Moves a drawn node to `status`: its class, colours, border style and tooltip. False when it already showed it. */
export function setNodeStatus(g: SVGGElement, id: string, status: NodeStatus): boolean {
  const before = drawnStatus(g);
  if (before === status) return false;
  if (before !== undefined) g.classList.remove(`status-${before}`);
  g.classList.add(`status-${status}`);
  paint(g, STATUS_COLOURS[status] ?? UNKNOWN_STATUS_COLOUR);
  const link = g.querySelector('a');
  const title = link?.getAttributeNS(XLINK, 'title');
  if (link && title) link.setAttributeNS(XLINK, 'xlink:title', title.replace(/ · [^·]+$/, ` · ${status}`));
  g.setAttribute('aria-label', `node ${id}: ${status.replace('_', ' ')}`);
  return true;
}

function paint(g: SVGGElement, colour: StatusColour): void {
  for (const shape of Array.from(g.querySelectorAll('path, polygon, ellipse, polyline'))) {
    if (shape.getAttribute('fill') !== 'none') shape.setAttribute('fill', colour.fill);
    if (shape.getAttribute('stroke') !== 'none') shape.setAttribute('stroke', colour.border);
    // Graphviz draws style=bold as a 2-wide stroke and dashed as a 5,2 dash array.
    if (colour.style === 'bold') shape.setAttribute('stroke-width', '2');
    else shape.removeAttribute('stroke-width');
    if (colour.style === 'dashed') shape.setAttribute('stroke-dasharray', '5,2');
    else shape.removeAttribute('stroke-dasharray');
  }
  for (const text of Array.from(g.querySelectorAll('text'))) text.setAttribute('fill', colour.font);
}
