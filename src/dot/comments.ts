/**
 * The comment block a DOT text opens with (`//` and `#` lines, `/* *\/` blocks, blank lines
 * between them), as written, so that what an author wrote above the graph survives a rewrite of
 * the graph itself. Empty when the text starts with the graph.
 */
export function leadingComments(text: string): string {
  return text
    .slice(0, leadingCommentsEnd(text))
    .replace(/^\s*\n/, '')
    .trimEnd();
}

/** Where the leading comment block ends (0 when there is none). */
export function leadingCommentsEnd(text: string): number {
  let i = 0;
  let end = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '#' || text.startsWith('//', i)) {
      const newline = text.indexOf('\n', i);
      i = newline === -1 ? text.length : newline + 1;
      end = i;
    } else if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close === -1) break; // unclosed: not a comment block the parser would accept either
      i = close + 2;
      end = i;
    } else {
      break;
    }
  }
  return end;
}
