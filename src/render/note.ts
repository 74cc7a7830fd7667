import { SVG_FONT_FAMILY } from './viz-graph.js';

const NOTE_COMMENT = /<!-- dotplan-note: ([^]*?) -->/;

/** Markup's five special characters escaped. */
function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The SVG with `note` as a comment before its `<svg` element (read back with `drawingNote`). */
export function withNote(svg: string, note: string): string {
  const start = svg.indexOf('<svg');
  const comment = `<!-- dotplan-note: ${note.replace(/--+/g, '-')} -->\n`;
  return start < 0 ? comment + svg : svg.slice(0, start) + comment + svg.slice(start);
}

/**
 * What a drawing says it drew instead of the plan node by node (a summary of a large plan, or no
 * picture after a Graphviz failure), or undefined when the plan was drawn whole.
 */
export function drawingNote(svg: string): string | undefined {
  return NOTE_COMMENT.exec(svg.slice(0, 4096))?.[1];
}

/** An SVG, made without Graphviz, that shows only `note` (wrapped at about 100 characters). */
export function noteSvg(note: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of note.split(/\s+/)) {
    if (line && line.length + word.length > 100) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  const height = 20 * lines.length + 16;
  const text = lines.map((l, i) => `<text x="8" y="${24 + 20 * i}">${xml(l)}</text>`).join('');
  return withNote(
    `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<svg xmlns="http://www.w3.org/2000/svg" class="note" width="820pt" height="${height}pt" viewBox="0 0 820 ${height}" font-family="${SVG_FONT_FAMILY}" font-size="14">${text}</svg>\n`,
    note,
  );
}
