import { LIMIT_SETTINGS } from './limits.js';
import type { Diagnostic } from '../model/diagnostics.js';

/**
 * Turns what ts-graphviz throws into one diagnostic a person can act on: DOT_SYNTAX with the line,
 * column and what was expected in plain words, or DOT_TOO_LARGE / DOT_TOO_DEEP / DOT_UNDIRECTED /
 * DOT_MULTIPLE_GRAPHS when the parser tripped over one of those. (Nested `{` is refused before
 * parsing, see prepare.ts; the parser's own depth limits are for HTML labels and edge chains.)
 */
interface PegExpectation {
  type: string;
  text?: string;
  description?: string;
}
interface PegFailure {
  expected?: PegExpectation[] | null;
  found?: string | null;
  location?: { start: { line: number; column: number; offset: number } };
}

const SECOND_GRAPH = /^(?:strict\s+)?(?:di)?graph\b/i;

export function diagnoseParseError(error: unknown, text: string, maxASTNodes: number): Diagnostic {
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error instanceof Error ? (error.cause as PegFailure | undefined) : undefined) ?? {};
  const start = cause.location?.start;
  const where = start ? { line: start.line, column: start.column } : {};

  if (/AST node count/i.test(message)) {
    return {
      code: 'DOT_TOO_LARGE',
      severity: 'error',
      message: `the plan has more than ${maxASTNodes.toLocaleString('en')} DOT elements (nodes, edges, attributes), the limit`,
      fix: `split the plan into smaller plans, or raise the setting ${LIMIT_SETTINGS.elements} if you trust the input`,
    };
  }
  if (cause instanceof RangeError || (error instanceof RangeError && /call stack/i.test(message))) {
    return {
      code: 'DOT_TOO_DEEP',
      severity: 'error',
      message: 'the DOT text is nested too deeply to read',
      fix: 'flatten the nesting: put subgraphs side by side, split long edge chains into several statements',
    };
  }
  if (/depth exceeds maximum/i.test(message)) {
    return {
      code: 'DOT_TOO_DEEP',
      severity: 'error',
      message: message
        .replace(/ Consider .*$/, '')
        .replace(/\.$/, '')
        .replace(/^./, (c) => c.toLowerCase()),
      ...where,
      fix: 'break the chain or the nesting into several statements',
    };
  }
  if (/^In graph, it's necessary/.test(message)) return undirected(where);
  if (/^In digraph, it's necessary/.test(message)) {
    return {
      code: 'DOT_SYNTAX',
      severity: 'error',
      message: '"--" is an undirected edge, which a digraph does not allow',
      ...where,
      fix: 'write edges as a -> b',
    };
  }
  if (start && SECOND_GRAPH.test(text.slice(start.offset)) && onlyEndExpected(cause.expected)) {
    return {
      code: 'DOT_MULTIPLE_GRAPHS',
      severity: 'error',
      message: `a second graph starts at line ${start.line}; one input holds exactly one digraph`,
      ...where,
      fix: 'keep one digraph per file (put the other plan in its own file)',
    };
  }
  const found = describeFound(cause.found);
  const expected = describeExpected(cause.expected);
  return {
    code: 'DOT_SYNTAX',
    severity: 'error',
    message: start
      ? `unexpected ${found} at line ${start.line}, column ${start.column}${expected ? `; expected ${expected}` : ''}`
      : `the DOT text cannot be read: ${message}`,
    ...where,
    fix:
      cause.found == null
        ? 'the text ends too early: check that every "{", "[" and quote is closed'
        : 'check the DOT syntax there: a plan is digraph G { a [key="value"]; a -> b; }',
  };
}

export function undirected(where: { line?: number; column?: number }): Diagnostic {
  return {
    code: 'DOT_UNDIRECTED',
    severity: 'error',
    message: 'the input is an undirected "graph"; a plan is a directed "digraph" (an edge a -> b means b depends on a)',
    ...where,
    fix: 'write "digraph" instead of "graph" and "->" instead of "--"',
  };
}

function onlyEndExpected(expected: PegExpectation[] | null | undefined): boolean {
  return (expected ?? []).every((e) => e.type === 'end' || isCommentStart(e));
}

function isCommentStart(e: PegExpectation): boolean {
  return e.type === 'literal' && (e.text === '#' || e.text === '/*' || e.text === '//');
}

function describeFound(found: string | null | undefined): string {
  if (found == null) return 'end of input';
  if (found === '\n' || found === '\r') return 'line break';
  return JSON.stringify(found);
}

const WORDS: Record<string, string> = {
  '"': 'a quoted string',
  '<': 'an HTML string',
  NUMBER: 'a number',
  UNICODE_STRING: 'a name',
};

function describeExpected(expected: PegExpectation[] | null | undefined): string {
  const words: string[] = [];
  for (const e of expected ?? []) {
    if (isCommentStart(e) || e.text === '\\') continue;
    let word: string | undefined;
    if (e.type === 'literal' && e.text !== undefined) word = WORDS[e.text] ?? JSON.stringify(e.text);
    else if (e.type === 'other' && e.description !== undefined) word = WORDS[e.description] ?? e.description;
    else if (e.type === 'end') word = 'the end of the input';
    else if (e.type === 'class' && /,;/.test(JSON.stringify(e))) word = '"," or ";"';
    if (word !== undefined && !words.includes(word)) words.push(word);
  }
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}
