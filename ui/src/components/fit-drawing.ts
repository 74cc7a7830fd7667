/**
 * The page shows the node counts per status live (the drawing's own legend would show the statuses
 * of the moment it was drawn): the legend is taken out of the drawing, which is then cropped to the
 * plan, its title centred over it. Works in the drawing's own units (Graphviz: 1 unit = 1 pt).
 */
export function dropLegend(svg: SVGSVGElement): void {
  const legend = svg.querySelector('g.node.legend');
  const graph = svg.querySelector<SVGGElement>('g.graph');
  if (!legend || !graph) return;
  legend.remove();
  const parts = Array.from(graph.querySelectorAll<SVGGraphicsElement>(':scope > g.node, :scope > g.edge, :scope > g.cluster'));
  if (parts.length === 0) return;
  const box = union(parts.map((p) => p.getBBox()));
  const title = graph.querySelector<SVGTextElement>(':scope > text');
  if (title) {
    title.setAttribute('x', String(box.x + box.width / 2));
    const all = union([box, title.getBBox()]);
    Object.assign(box, all);
  }
  const m = graph.transform.baseVal.consolidate()?.matrix ?? new DOMMatrix();
  const pad = 4;
  const x = box.x * m.a + m.e - pad;
  const y = box.y * m.d + m.f - pad;
  const width = box.width * m.a + 2 * pad;
  const height = box.height * m.d + 2 * pad;
  svg.setAttribute('viewBox', `${x} ${y} ${width} ${height}`);
  svg.setAttribute('width', `${width}pt`);
  svg.setAttribute('height', `${height}pt`);
}

function union(boxes: Array<{ x: number; y: number; width: number; height: number }>): { x: number; y: number; width: number; height: number } {
  const left = Math.min(...boxes.map((b) => b.x));
  const top = Math.min(...boxes.map((b) => b.y));
  const right = Math.max(...boxes.map((b) => b.x + b.width));
  const bottom = Math.max(...boxes.map((b) => b.y + b.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}
