import { MAX_DOT_NESTING } from './limits.js';

/**
 * A light lexical pass before ts-graphviz parses a DOT text. Graphviz allows raw line breaks inside
 * quoted strings, ts-graphviz's grammar does not; this pass puts a backslash in front of each raw
 * line break inside a quoted string (which ts-graphviz accepts) and remembers where, so that quoted
 * values can be decoded from the original text. Line and column numbers are unchanged for
 * everything outside strings. It also tells whether the text holds anything but comments, and where
 * `{` first nests deeper than the limit (braces in strings, HTML strings and comments do not count),
 * so that a too deep input is refused before anything recursive reads it.
 */
export interface PreparedText {
  /** The text to hand to the parser. */
  text: string;
  /** False when the input is empty, white space or comments only. */
  hasContent: boolean;
  /** Maps an offset in `text` back to the same place in the original input. */
  originalOffset(offset: number): number;
  /** Where a string, HTML string or block comment that is never closed starts (original offset). */
  unclosed?: { kind: 'string' | 'html' | 'comment'; offset: number };
  /** Where the first `{` that nests deeper than `maxNesting` below the graph's own braces stands (original offset). */
  tooDeep?: number;
}

type State = 'normal' | 'string' | 'html' | 'line-comment' | 'block-comment';
const LINE_BREAKS = new Set(['\n', '\r', '\u2028', '\u2029']);

export function prepareDot(source: string, maxNesting: number = MAX_DOT_NESTING): PreparedText {
  const chunks: string[] = [];
  const inserted: number[] = [];
  let start = 0;
  let outLength = 0;
  let state: State = 'normal';
  let htmlDepth = 0;
  let hasContent = false;
  let opened = 0;
  let depth = 0;
  let tooDeep: number | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    switch (state) {
      case 'normal':
        if (c === '#' || (c === '/' && source[i + 1] === '/')) {
          state = 'line-comment';
          break;
        }
        if (c === '/' && source[i + 1] === '*') {
          state = 'block-comment';
          opened = i;
          i++;
          break;
        }
        if (c === '"') {
          state = 'string';
          opened = i;
        } else if (c === '{') {
          // The graph's own `{` is level 0.
          if (++depth > maxNesting + 1 && tooDeep === undefined) tooDeep = i;
        } else if (c === '}') {
          depth--;
        } else if (c === '<') {
          opened = i;
          state = 'html';
          htmlDepth = 1;
        }
        hasContent ||= !/\s/.test(c);
        break;
      case 'string':
        if (c === '\\') i++;
        else if (c === '"') state = 'normal';
        else if (LINE_BREAKS.has(c)) {
          chunks.push(source.slice(start, i), '\\');
          outLength += i - start;
          inserted.push(outLength);
          outLength += 1;
          start = i;
        }
        break;
      case 'html':
        if (c === '<') htmlDepth++;
        else if (c === '>' && --htmlDepth === 0) state = 'normal';
        break;
      case 'line-comment':
        if (c === '\n') state = 'normal';
        break;
      case 'block-comment':
        if (c === '*' && source[i + 1] === '/') {
          state = 'normal';
          i++;
        }
        break;
    }
  }
  chunks.push(source.slice(start));
  const prepared: PreparedText = {
    text: inserted.length === 0 ? source : chunks.join(''),
    hasContent,
    originalOffset: (offset) => offset - countBelow(inserted, offset),
  };
  const kind = state === 'string' ? 'string' : state === 'html' ? 'html' : state === 'block-comment' ? 'comment' : undefined;
  if (kind) prepared.unclosed = { kind, offset: opened };
  if (tooDeep !== undefined) prepared.tooDeep = tooDeep;
  return prepared;
}

/** How many sorted values are < limit. */
function countBelow(sorted: number[], limit: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
