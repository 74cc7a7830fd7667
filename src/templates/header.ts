/**
 * The documentation comment at the top of a template file: `//` lines (or `#` lines, or one
 * `/* ... *\/` block) before the `digraph`. Its first paragraph is the template's description.
 */
export function readHeaderComment(text: string): string[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  const first = lines[i]?.trim() ?? '';
  if (first.startsWith('/*')) return readBlock(lines.slice(i));
  const out: string[] = [];
  for (; i < lines.length; i++) {
    const line = lines[i]!.trim();
    const match = /^(?:\/\/|#)\s?(.*)$/.exec(line);
    if (!match) break;
    out.push(match[1]!.trimEnd());
  }
  return out;
}

function readBlock(lines: string[]): string[] {
  const out: string[] = [];
  for (const [index, raw] of lines.entries()) {
    let line = raw.trim();
    if (index === 0) line = line.slice(2).replace(/^\s/, '');
    const end = line.indexOf('*/');
    if (end >= 0) line = line.slice(0, end);
    out.push(line.replace(/^\*\s?/, '').trimEnd());
    if (end >= 0) break;
  }
  while (out.length > 0 && out[0] === '') out.shift();
  return out;
}

/** The first paragraph of a header comment, as one line. */
export function firstParagraph(header: readonly string[]): string {
  const paragraph: string[] = [];
  for (const line of header) {
    if (line.trim() === '') {
      if (paragraph.length > 0) break;
      continue;
    }
    paragraph.push(line.trim());
  }
  return paragraph.join(' ');
}
