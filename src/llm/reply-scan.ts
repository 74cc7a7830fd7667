/**
 * The lexical part of reading a reply's plan: where the DOT text in an `@EP@` block ends (the first
 * `@EP@` that is not inside a quoted string, an HTML string `<...>` or a comment, so a label may say
 * "@EP@"), and whether that text starts as a digraph. The same states as `src/dot/prepare.ts`; the
 * DOT reader does the rest.
 */

/** Where the DOT text ends: the offset of the closing marker, or why none was found. */
export type PlanEnd = { closer: number } | { closer: -1; unclosed?: 'string' | 'html' | 'comment' };

type State = 'normal' | 'string' | 'html' | 'line-comment' | 'block-comment';

/** The first `marker` (case-insensitive) at or after `start` that is outside DOT strings and comments. */
export function findPlanEnd(text: string, start: number, marker: string): PlanEnd {
  const lower = marker.toLowerCase();
  let state: State = 'normal';
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    switch (state) {
      case 'normal':
        if (c === marker[0] && text.slice(i, i + marker.length).toLowerCase() === lower) return { closer: i };
        if (c === '"') state = 'string';
        else if (c === '<') {
          state = 'html';
          depth = 1;
        } else if (c === '#' || (c === '/' && text[i + 1] === '/')) state = 'line-comment';
        else if (c === '/' && text[i + 1] === '*') {
          state = 'block-comment';
          i++;
        }
        break;
      case 'string':
        if (c === '\\') i++;
        else if (c === '"') state = 'normal';
        break;
      case 'html':
        if (c === '<') depth++;
        else if (c === '>' && --depth === 0) state = 'normal';
        break;
      case 'line-comment':
        if (c === '\n') state = 'normal';
        break;
      case 'block-comment':
        if (c === '*' && text[i + 1] === '/') {
          state = 'normal';
          i++;
        }
        break;
    }
  }
  if (state === 'string' || state === 'html') return { closer: -1, unclosed: state };
  return state === 'block-comment' ? { closer: -1, unclosed: 'comment' } : { closer: -1 };
}

/** What a plan text starts with, past white space and comments: `offset` is where that is. */
export interface PlanStart {
  kind: 'digraph' | 'empty' | 'undirected' | 'json' | 'other';
  offset: number;
  /** The first word or characters, for messages. */
  word: string;
}

export function planStart(text: string): PlanStart {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text[i] === '#' || text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else break;
  }
  const rest = text.slice(i);
  const word = /^\S{1,20}/.exec(rest)?.[0] ?? '';
  if (rest === '') return { kind: 'empty', offset: i, word };
  if (/^(?:strict\s+)?digraph(?![\w\u0080-\uffff])/i.test(rest)) return { kind: 'digraph', offset: i, word };
  if (/^(?:strict\s+)?graph(?![\w\u0080-\uffff])/i.test(rest)) return { kind: 'undirected', offset: i, word };
  if (rest.startsWith('{') || rest.startsWith('[')) return { kind: 'json', offset: i, word };
  return { kind: 'other', offset: i, word };
}
