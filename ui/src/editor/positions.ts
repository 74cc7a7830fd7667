/**
 * Where dotplan's diagnostics and an edit's conflicts go in the editor: a diagnostic's line and
 * column (1-based) to the token there; a conflict (or a diagnostic with only a node) to the line
 * where the node is declared. Pure over the text, so it is easy to reason about.
 */
import type { Text } from '@codemirror/state';

export interface Span {
  from: number;
  to: number;
}

/** The token at `line:column`, or the line's text when the column is past it. */
export function spanAt(doc: Text, line: number, column = 1): Span | undefined {
  if (!Number.isInteger(line) || line < 1 || line > doc.lines) return undefined;
  const l = doc.line(line);
  const offset = Math.min(Math.max(column - 1, 0), l.length);
  const rest = l.text.slice(offset);
  const token = /^("(?:[^"\\]|\\.)*"|[\w.-]+|\S+)/.exec(rest);
  if (token && offset < l.length) return { from: l.from + offset, to: l.from + offset + token[0].length };
  const start = l.text.length - l.text.trimStart().length;
  return { from: l.from + start, to: Math.max(l.from + start, l.to) };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The first line that declares `node` (`node [`, `"node" [`, `node;`), else the first that names it. */
export function lineOfNode(doc: Text, node: string): number | undefined {
  const names = `(?:${escape(node)}|"${escape(node.replace(/"/g, '\\"'))}")`;
  const declared = new RegExp(`^\\s*${names}\\s*(?:\\[|;|$)`);
  const named = new RegExp(`(?:^|[\\s{;>-])${names}(?=[\\s;\\[\\]-]|$)`);
  let fallback: number | undefined;
  for (let i = 1; i <= doc.lines; i += 1) {
    const text = doc.line(i).text;
    if (declared.test(text)) return i;
    if (fallback === undefined && named.test(text)) fallback = i;
  }
  return fallback;
}
